package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/config/crd"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/pkg/version"
)

// installOptions are the flags of `controller install`.
type installOptions struct {
	g           *GlobalOptions
	streams     genericiooptions.IOStreams
	namespace   string
	name        string
	image       string
	source      string
	state       string
	policy      string
	readBudget  string
	replicas    int
	metricsAddr string
	healthPort  int
	auth        string
	clientID    string
	credentials string
	leaseNS     string
	secrets     []string
	allowEnv    []string
	webhook     string

	// Filled by validate.
	src                  controllerSource
	stateNS, set         string
	allowed              []secretRef
	metricsHost, metrics string // metrics: the port
}

// Install defaults, in one place.
const (
	defaultInstallNamespace = "kubectl-azure"
	defaultInstallName      = "kubectl-azure-controller"
	defaultMetricsAddr      = "127.0.0.1:8080" // loopback: /metrics has no authentication
	defaultHealthPort       = 8081
)

// installAuthModes are the credentials a pod can use.
var installAuthModes = []string{arm.AuthWorkloadIdentity, arm.AuthManagedIdentity, arm.AuthEnv}

func newControllerInstallCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := &installOptions{g: g, streams: s, namespace: defaultInstallNamespace, name: defaultInstallName, image: "kubectl-azure:" + version.Version,
		policy: reconcile.PolicyDetect, readBudget: "5%", replicas: 2, metricsAddr: defaultMetricsAddr, healthPort: defaultHealthPort, auth: arm.AuthWorkloadIdentity, webhook: webhookNone}
	cmd := &cobra.Command{
		Use:   "install --source SOURCE --state-ref kubernetes://NAMESPACE/SET -o yaml",
		Short: "Print the Kubernetes objects that run the controller (the Resource CRD, Namespaces, ServiceAccount, Roles and RoleBindings, Deployment)",
		Example: `  kubectl azure controller install --source configmap://kubectl-azure?selector=app=infra \
      --state-ref kubernetes://kubectl-azure/prod --client-id 00000000-0000-0000-0000-000000000000 -o yaml | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: runE(o),
	}
	// The objects are YAML: text is the same YAML.
	g.printFlags(cmd, printer.OutputText, printer.OutputYAML)
	fs := cmd.Flags()
	fs.StringVar(&o.namespace, "install-namespace", o.namespace, "namespace of the controller's ServiceAccount and Deployment")
	fs.StringVar(&o.name, "name", o.name, "name of the controller's objects")
	fs.StringVar(&o.image, "image", o.image, "container image holding kubectl-azure")
	fs.StringVar(&o.source, "source", o.source, "manifest source: dir://PATH (mount it, e.g. with git-sync), configmap://NAMESPACE?selector=LABELS, or kubernetes://NAMESPACE[?selector=LABELS] (Resource objects)")
	fs.StringVar(&o.state, "state-ref", o.state, "state backend of the controller (default: --state when it is kubernetes://, else kubernetes://NAMESPACE/default)")
	fs.StringVar(&o.policy, "drift-policy", o.policy, "detect or correct")
	fs.StringVar(&o.readBudget, "read-budget", o.readBudget, "share of ARM's read bucket the observer may spend")
	fs.IntVar(&o.replicas, "replicas", o.replicas, "replicas (one leads at a time)")
	fs.StringVar(&o.metricsAddr, "metrics-addr", o.metricsAddr, "address of /metrics in the pod; unauthenticated, so loopback unless you scrape it from outside the pod (then a warning)")
	fs.IntVar(&o.healthPort, "health-port", o.healthPort, "port of /healthz and /readyz (the kubelet's probes; all interfaces)")
	fs.StringVar(&o.auth, "azure-auth", o.auth, "credential of the pod: "+strings.Join(installAuthModes, "|"))
	fs.StringVar(&o.clientID, "client-id", o.clientID, "workload identity: the client ID of the Entra application or managed identity the ServiceAccount federates with")
	fs.StringVar(&o.credentials, "credentials-secret", o.credentials, "--azure-auth env: the Secret in the install namespace holding AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET")
	fs.StringVar(&o.leaseNS, "leader-elect-namespace", o.leaseNS, "namespace of the leader Lease (default: the state's)")
	fs.StringArrayVar(&o.secrets, "secret", nil, "[NAMESPACE/]NAME of a Secret manifests read with secretKeyRef (repeatable; NAME alone: the install namespace); the Role grants get on these alone")
	fs.StringArrayVar(&o.allowEnv, "allow-env", nil, "an environment variable manifests may read with valueFrom.env (repeatable; the controller reads no other)")
	fs.StringVar(&o.webhook, "webhook", o.webhook, "with --source kubernetes://: none, cert-manager or self-signed (a validating webhook refusing invalid Resource objects at kubectl apply, its certificate issued and renewed by cert-manager, or by the controller itself with a CA of its own)")
	return cmd
}

// Complete defaults the controller's state to --state when that is a
// Kubernetes one.
func (o *installOptions) Complete(*cobra.Command, []string) error {
	if o.state == "" {
		if strings.HasPrefix(o.g.State, state.KubernetesScheme) {
			o.state = o.g.State
		} else {
			o.state = state.KubernetesScheme + o.namespace + "/default"
		}
	}
	return nil
}

func (o *installOptions) Validate() error {
	if err := o.validate(); err != nil {
		return withCode(ExitValidation, err)
	}
	return nil
}

func (o *installOptions) Run(context.Context) error {
	if o.metricsExposed() {
		fmt.Fprintf(o.streams.ErrOut, "warning: --metrics-addr %s serves /metrics beyond the pod's loopback without authentication (a Service is printed for it); restrict who can reach it, e.g. with a NetworkPolicy\n", o.metricsAddr)
	} else {
		fmt.Fprintf(o.streams.ErrOut, "note: /metrics listens on %s inside the pod only (no authentication, so not exposed); the probes use /healthz and /readyz on port %d. Give --metrics-addr 0.0.0.0:PORT to scrape it from outside.\n", o.metricsAddr, o.healthPort)
	}
	return o.print(o.streams.Out)
}

func (o *installOptions) validate() error {
	for _, check := range []func() error{o.validateNames, o.validateSource, o.validateState, o.validatePorts, o.validateAuth, o.validateLoop, o.validateAccess, o.validateWebhook} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (o *installOptions) validateNames() error {
	if errs := validation.IsDNS1123Label(o.namespace); len(errs) > 0 {
		return fmt.Errorf("--install-namespace %q: %s", o.namespace, strings.Join(errs, "; "))
	}
	// The name is also the Service's, which must be a DNS-1035 label.
	if errs := validation.IsDNS1035Label(o.name); len(errs) > 0 {
		return fmt.Errorf("--name %q: %s", o.name, strings.Join(errs, "; "))
	}
	if o.leaseNS != "" {
		if errs := validation.IsDNS1123Label(o.leaseNS); len(errs) > 0 {
			return fmt.Errorf("--leader-elect-namespace %q: %s", o.leaseNS, strings.Join(errs, "; "))
		}
	}
	if !imageRE.MatchString(o.image) {
		return fmt.Errorf("--image %q: not an image reference (REGISTRY/NAME:TAG or NAME@sha256:DIGEST)", o.image)
	}
	return nil
}

// imageRE is a container image reference, loosely: no spaces, quotes or
// control characters, which is what could break out of the manifest.
var imageRE = regexp.MustCompile(`^[a-z0-9][a-zA-Z0-9._/:@+-]*$`)

func (o *installOptions) validateSource() error {
	if o.source == "" {
		return errors.New("--source is required: dir://PATH, configmap://NAMESPACE?selector=LABELS or kubernetes://NAMESPACE")
	}
	src, err := parseSource(o.source)
	if err != nil {
		return err
	}
	if src.Dir != "" && (!path.IsAbs(src.Dir) || path.Clean(src.Dir) != src.Dir || strings.ContainsFunc(src.Dir, isControl)) {
		return fmt.Errorf("--source %q: in a pod the directory must be a clean absolute path, e.g. dir:///manifests", o.source)
	}
	o.src = src
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func (o *installOptions) validateState() error {
	if !strings.HasPrefix(o.state, state.KubernetesScheme) {
		return fmt.Errorf("--state-ref %q: in a cluster the state must be kubernetes://NAMESPACE/SET (a file would be lost with the pod)", o.state)
	}
	ns, set, err := state.ParseKubernetesRef(o.state)
	if err != nil {
		return fmt.Errorf("--state-ref: %s", strings.TrimPrefix(err.Error(), "--state "))
	}
	o.stateNS, o.set = ns, set
	if o.g.Set != "" {
		// The set names the key Secret and the Leases the Roles grant.
		if errs := validation.IsDNS1123Label(o.g.Set); len(errs) > 0 {
			return fmt.Errorf("--set %q: %s", o.g.Set, strings.Join(errs, "; "))
		}
		o.set = o.g.Set
	}
	return nil
}

func (o *installOptions) validatePorts() error {
	host, port, err := net.SplitHostPort(o.metricsAddr)
	if err != nil {
		return fmt.Errorf("--metrics-addr %q: use HOST:PORT, e.g. %s", o.metricsAddr, defaultMetricsAddr)
	}
	if host != "" && net.ParseIP(host) == nil {
		return fmt.Errorf("--metrics-addr %q: the host must be an IP address, e.g. 127.0.0.1", o.metricsAddr)
	}
	if err := checkPort("--metrics-addr", port); err != nil {
		return err
	}
	if err := checkPort("--health-port", strconv.Itoa(o.healthPort)); err != nil {
		return err
	}
	if port == strconv.Itoa(o.healthPort) {
		return fmt.Errorf("--metrics-addr %s and --health-port %d: use two ports", o.metricsAddr, o.healthPort)
	}
	o.metricsHost, o.metrics = host, port
	return nil
}

func checkPort(flag, p string) error {
	if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%s: port %q must be a number from 1 to 65535", flag, p)
	}
	return nil
}

func (o *installOptions) validateAuth() error {
	switch o.auth {
	case arm.AuthWorkloadIdentity:
		if !guidRE.MatchString(o.clientID) {
			return fmt.Errorf("--azure-auth %s needs --client-id, the client ID (a GUID) of the identity the ServiceAccount federates with; got %q", o.auth, o.clientID)
		}
	case arm.AuthManagedIdentity:
	case arm.AuthEnv:
		if errs := validation.IsDNS1123Subdomain(o.credentials); len(errs) > 0 {
			return fmt.Errorf("--azure-auth env needs --credentials-secret NAME, a Secret in %s holding AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET; got %q", o.namespace, o.credentials)
		}
	default:
		return fmt.Errorf("--azure-auth %q: use one of %s", o.auth, strings.Join(installAuthModes, ", "))
	}
	if o.clientID != "" && o.auth != arm.AuthWorkloadIdentity {
		return fmt.Errorf("--client-id is for --azure-auth %s", arm.AuthWorkloadIdentity)
	}
	if o.credentials != "" && o.auth != arm.AuthEnv {
		return fmt.Errorf("--credentials-secret is for --azure-auth %s", arm.AuthEnv)
	}
	return nil
}

var guidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func (o *installOptions) validateLoop() error {
	if err := reconcile.ValidatePolicy(o.policy); err != nil {
		return fmt.Errorf("--drift-policy: %w", err)
	}
	if _, err := reconcile.ParseBudget(o.readBudget); err != nil {
		return err
	}
	if o.replicas < 1 {
		return fmt.Errorf("--replicas must be at least 1, got %d", o.replicas)
	}
	if o.g.Subscription != "" && !guidRE.MatchString(o.g.Subscription) {
		return fmt.Errorf("--subscription %q: must be a subscription ID (a GUID)", o.g.Subscription)
	}
	return nil
}

func (o *installOptions) validateAccess() error {
	for _, s := range o.secrets {
		r, err := parseSecretRef(s)
		if err != nil {
			return err
		}
		if r.Namespace == "" {
			r.Namespace = o.namespace // the pod's namespace is the controller's default
		}
		if refuseStateKey(r.Namespace, r.Name, nil) != nil {
			return fmt.Errorf("--secret %s: a state's secret-hashing key is never readable by manifests", s)
		}
		o.allowed = append(o.allowed, r)
	}
	for _, n := range o.allowEnv {
		if err := checkAllowEnv(n); err != nil {
			return err
		}
	}
	return nil
}

// print writes the CRD (as the repository ships it: no flag touches it),
// then the objects as one YAML stream, each built as a structure and
// marshalled, so no flag value can add a line of its own.
func (o *installOptions) print(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "%s\n---\n", bytes.TrimSpace(crd.YAML)); err != nil {
		return err
	}
	return writeYAMLStream(w, o.objects())
}
