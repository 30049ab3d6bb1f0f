package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// controllerOptions are the flags of `kubectl azure controller`.
type controllerOptions struct {
	g       *GlobalOptions
	streams genericiooptions.IOStreams
	watch   *watchOptions
	// manifests are -f/-k, the same as --source dir://.
	manifests manifestFlags
	apply     apply.Options
	// source is dir://PATH, configmap://NAMESPACE?selector=... or
	// kubernetes://NAMESPACE[?selector=...]; -f/-k are the same as dir://.
	source string
	// kubeSrc is the kubernetes:// source, whose objects get a status.
	kubeSrc *reconcile.KubeSource

	leaderElect   bool
	leaseName     string
	leaseNS       string
	leaseDuration time.Duration
	renewDeadline time.Duration
	retryPeriod   time.Duration

	// secrets (--secret) are the only Secrets secretKeyRef may read;
	// allowEnv (--allow-env) the only variables valueFrom.env may.
	secrets  []string
	allowEnv []string
	allowed  []secretRef // parsed secrets, filled by Validate

	// healthAddr serves /healthz and /readyz alone, so --metrics-addr
	// can stay on loopback while the kubelet probes the pod.
	healthAddr string

	// webhookAddr serves the validating webhook of Resource objects, with
	// the certificate in webhookCertDir (tls.crt, tls.key).
	webhookAddr, webhookCertDir string
	// webhookSelfSigned (NAMESPACE/NAME) is the Secret where the
	// controller keeps a CA and certificate of its own for the DNS names,
	// written into webhookConfig's caBundle and rotated before expiry.
	webhookSelfSigned, webhookConfig, webhookMutating string
	webhookDNSNames                                   []string
	webhookValidity                                   time.Duration
}

// newControllerCommand is `kubectl azure controller` (and its install
// subcommand): the loop of apply --watch, run in a cluster.
func newControllerCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := &controllerOptions{g: g, streams: s, watch: newWatchOptions(), manifests: newManifestFlags(), apply: apply.DefaultOptions(),
		leaseDuration: reconcile.DefaultLeaseDuration, renewDeadline: reconcile.DefaultRenewDeadline, retryPeriod: reconcile.DefaultRetryPeriod}
	cmd := &cobra.Command{
		Use:   "controller (-f DIR | --source dir://PATH | --source configmap://NAMESPACE?selector=... | --source kubernetes://NAMESPACE)",
		Short: "Keep Azure matching the manifests: observe on a read budget, report drift, correct it if asked",
		Long: `The controller loads the manifests, observes Azure on a fraction of ARM's
read bucket, and applies manifest changes as they arrive. Drift (a change
made in Azure outside this tool) is reported (--drift-policy detect, the
default) or written back once (correct); a path someone keeps changing is
contested and left alone. It is the loop of 'apply --watch', meant to run in
a cluster with leader election; 'controller install -o yaml' prints the
objects to run it. With --source kubernetes://NAMESPACE the manifests are
Resource objects (the CRD 'controller install' prints) and each object's
status says how its resource stands (kubectl wait --for=condition=Ready).`,
		Example: `  kubectl azure controller -f infra/ --state kubernetes://azure/prod --status-file /tmp/status.json
  kubectl azure controller --source configmap://azure?selector=app=infra --leader-elect --metrics-addr 127.0.0.1:8080 --secret azure/db
  kubectl azure controller --source kubernetes://infra --state kubernetes://azure/prod --leader-elect
  kubectl azure controller install --source dir:///manifests --state kubernetes://azure/prod --client-id CLIENT_ID -o yaml | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: runE(o),
	}
	fs := cmd.Flags()
	o.manifests.addFlags(fs)
	o.watch.addFlags(fs)
	fs.StringVar(&o.source, "source", "", "where the manifests come from: dir://PATH (e.g. kept by a git-sync sidecar), configmap://NAMESPACE?selector=LABELS, or kubernetes://NAMESPACE[?selector=LABELS] (Resource objects, which get a status)")
	addReadFlags(fs, &o.apply)
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "run only while holding a Kubernetes Lease, so one of several replicas writes")
	fs.StringVar(&o.leaseName, "leader-elect-name", "", "name of the leader Lease (default: kubectl-azure-controller-SET)")
	fs.StringVar(&o.leaseNS, "leader-elect-namespace", "", "namespace of the leader Lease (default: the state's, else the kubeconfig's)")
	fs.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", o.leaseDuration, "how long a leader's Lease lasts without renewal")
	fs.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", o.renewDeadline, "a leader that cannot renew within this stops writing")
	fs.StringVar(&o.healthAddr, "health-addr", "", "serve only /healthz and /readyz on this address (for the kubelet's probes), e.g. :8081")
	fs.StringArrayVar(&o.secrets, "secret", nil, "[NAMESPACE/]NAME of a Secret manifests may read with secretKeyRef (repeatable; no other Secret is read; NAME alone: the kubeconfig's namespace)")
	fs.StringArrayVar(&o.allowEnv, "allow-env", nil, "an environment variable manifests may read with valueFrom.env (repeatable; no other is read; never the tool's own credentials)")
	fs.DurationVar(&o.retryPeriod, "leader-elect-retry-period", o.retryPeriod, "how often candidates try to take the Lease")
	fs.StringVar(&o.webhookAddr, "webhook-addr", "", "with --source kubernetes://: serve the validating webhook of Resource objects (diff's checks at kubectl apply) over TLS on this address, e.g. :9443")
	fs.StringVar(&o.webhookCertDir, "webhook-cert-dir", "", "directory holding the webhook's tls.crt and tls.key (e.g. a cert-manager Secret mounted there; read again when they change)")
	fs.StringVar(&o.webhookSelfSigned, "webhook-self-signed", "", "NAMESPACE/NAME of a Secret where the controller keeps a CA and the webhook's certificate of its own (created if absent, rotated before expiry); instead of --webhook-cert-dir")
	fs.StringVar(&o.webhookConfig, "webhook-configuration", "", "with --webhook-self-signed: the ValidatingWebhookConfiguration whose caBundle the controller keeps")
	fs.StringVar(&o.webhookMutating, "webhook-mutating-configuration", "", "with --webhook-self-signed: the MutatingWebhookConfiguration (the finalizer at create) whose caBundle the controller also keeps")
	fs.StringArrayVar(&o.webhookDNSNames, "webhook-dns-name", nil, "with --webhook-self-signed: a DNS name of the webhook's certificate, e.g. NAME.NAMESPACE.svc (repeatable)")
	fs.DurationVar(&o.webhookValidity, "webhook-cert-validity", reconcile.DefaultCertValidity, "with --webhook-self-signed: the certificate's life; renewed at 2/3 of it, the CA lives 4 times as long")
	cmd.AddCommand(newControllerInstallCommand(g, s), newStatusCommand(g, s))
	return cmd
}

func (o *controllerOptions) Complete(cmd *cobra.Command, _ []string) error {
	o.g.complete(cmd)
	o.apply.Subscription = manifest.Subscription(o.g.Subscription)
	return nil
}

// Validate checks the loop's flags and the manifest source before
// anything is read or sent.
func (o *controllerOptions) Validate() error {
	if err := o.watch.complete(); err != nil {
		return err
	}
	if err := checkOutputPaths(o.g.State, o.manifests.load,
		outputPath{"--status-file", o.watch.loop.StatusFile}, outputPath{"--plan-file", o.watch.loop.PlanFile}); err != nil {
		return err
	}
	if o.source != "" && o.manifests.given() {
		return withCode(ExitValidation, errors.New("give either --source or -f/-k, not both"))
	}
	if o.source == "" {
		if !o.manifests.given() {
			return withCode(ExitValidation, errors.New("no manifests given: give -f DIR, -k DIR or --source (dir://PATH, configmap://NAMESPACE?selector=LABELS or kubernetes://NAMESPACE)"))
		}
		for _, f := range o.manifests.load.Filenames {
			if f == "-" {
				return withCode(ExitValidation, errors.New("the controller needs files or directories to watch, not standard input"))
			}
		}
		return o.validateAccess()
	}
	src, err := parseSource(o.source)
	if err != nil {
		return withCode(ExitValidation, err)
	}
	if err := o.validateWebhook(src); err != nil {
		return withCode(ExitValidation, err)
	}
	return o.validateAccess()
}

// validateWebhook checks --webhook-addr and where its certificate comes
// from: --webhook-cert-dir or --webhook-self-signed.
func (o *controllerOptions) validateWebhook(src controllerSource) error {
	if o.webhookAddr == "" && o.webhookCertDir == "" && o.webhookSelfSigned == "" {
		return nil
	}
	switch {
	case !src.Kube:
		return errors.New("--webhook-addr validates Resource objects: it needs --source kubernetes://NAMESPACE")
	case o.webhookCertDir != "" && o.webhookSelfSigned != "":
		return errors.New("give --webhook-cert-dir or --webhook-self-signed, not both")
	case o.webhookAddr == "" || o.webhookCertDir == "" && o.webhookSelfSigned == "":
		return errors.New("give --webhook-addr with --webhook-cert-dir (a mounted certificate) or --webhook-self-signed NAMESPACE/NAME")
	}
	if o.webhookSelfSigned != "" {
		if err := o.validateSelfSigned(); err != nil {
			return err
		}
	}
	if _, _, err := net.SplitHostPort(o.webhookAddr); err != nil {
		return fmt.Errorf("--webhook-addr %q: use HOST:PORT or :PORT, e.g. :9443", o.webhookAddr)
	}
	return nil
}

func (o *controllerOptions) validateSelfSigned() error {
	ns, name, ok := strings.Cut(o.webhookSelfSigned, "/")
	switch {
	case !ok || ns == "" || name == "" || strings.Contains(name, "/"):
		return fmt.Errorf("--webhook-self-signed %q: use NAMESPACE/NAME of the Secret to keep the certificate in", o.webhookSelfSigned)
	case o.webhookConfig == "":
		return errors.New("--webhook-self-signed needs --webhook-configuration NAME, the ValidatingWebhookConfiguration whose caBundle it keeps")
	case len(o.webhookDNSNames) == 0:
		return errors.New("--webhook-self-signed needs --webhook-dns-name, e.g. NAME.NAMESPACE.svc of the webhook's Service")
	case o.webhookValidity < 10*time.Second:
		return fmt.Errorf("--webhook-cert-validity %s: give at least 10s (e.g. 720h)", o.webhookValidity)
	}
	return nil
}

// controllerSource is a parsed --source.
type controllerSource struct {
	// Dir is dir://'s path; Namespace and Selector are configmap://'s,
	// or kubernetes://'s when Kube is set.
	Dir, Namespace, Selector string
	Kube                     bool
}

// parseSource checks --source: dir://PATH, configmap://NAMESPACE with a
// selector (without one every ConfigMap of the namespace would be read as
// manifests, whoever wrote it and for whatever app), or
// kubernetes://NAMESPACE, whose selector is optional: Resource objects
// are only ever manifests.
func parseSource(s string) (controllerSource, error) {
	u, err := url.Parse(s)
	if err != nil {
		return controllerSource{}, fmt.Errorf("--source %q: %w", s, err)
	}
	switch {
	case u.Scheme == "dir" && u.Host+u.Path == "":
		return controllerSource{}, fmt.Errorf("--source %q names no directory: use dir://PATH", s)
	case u.Scheme == "dir":
		return controllerSource{Dir: u.Host + u.Path}, nil
	case u.Scheme == "kubernetes":
		return parseKubeSource(s, u)
	case u.Scheme == "configmap" && u.Host == "":
		return controllerSource{}, fmt.Errorf("--source %q names no namespace: use configmap://NAMESPACE?selector=LABELS", s)
	case u.Scheme != "configmap":
		return controllerSource{}, fmt.Errorf("--source %q: use dir://PATH, configmap://NAMESPACE?selector=LABELS or kubernetes://NAMESPACE", s)
	}
	if errs := validation.IsDNS1123Label(u.Host); len(errs) > 0 {
		return controllerSource{}, fmt.Errorf("--source %q: namespace %q: %s", s, u.Host, strings.Join(errs, "; "))
	}
	sel := strings.TrimSpace(u.Query().Get("selector"))
	if sel == "" {
		return controllerSource{}, fmt.Errorf("--source %q has no selector, which would read every ConfigMap of namespace %s: use configmap://%s?selector=LABELS, e.g. ?selector=app=infra", s, u.Host, u.Host)
	}
	if _, err := labels.Parse(sel); err != nil {
		return controllerSource{}, fmt.Errorf("--source %q: selector %q: %v", s, sel, err)
	}
	return controllerSource{Namespace: u.Host, Selector: sel}, nil
}

// parseKubeSource checks kubernetes://NAMESPACE[?selector=LABELS].
func parseKubeSource(s string, u *url.URL) (controllerSource, error) {
	if u.Host == "" || strings.Trim(u.Path, "/") != "" {
		return controllerSource{}, fmt.Errorf("--source %q: use kubernetes://NAMESPACE, optionally ?selector=LABELS", s)
	}
	if errs := validation.IsDNS1123Label(u.Host); len(errs) > 0 {
		return controllerSource{}, fmt.Errorf("--source %q: namespace %q: %s", s, u.Host, strings.Join(errs, "; "))
	}
	for k := range u.Query() {
		if k != "selector" {
			return controllerSource{}, fmt.Errorf("--source %q: unknown parameter %q; kubernetes:// takes selector only", s, k)
		}
	}
	sel := strings.TrimSpace(u.Query().Get("selector"))
	if _, err := labels.Parse(sel); err != nil {
		return controllerSource{}, fmt.Errorf("--source %q: selector %q: %v", s, sel, err)
	}
	return controllerSource{Namespace: u.Host, Selector: sel, Kube: true}, nil
}

// validateAccess checks --secret and --allow-env.
func (o *controllerOptions) validateAccess() error {
	o.allowed = []secretRef{}
	for _, s := range o.secrets {
		r, err := parseSecretRef(s)
		if err != nil {
			return withCode(ExitValidation, err)
		}
		o.allowed = append(o.allowed, r)
	}
	for _, n := range o.allowEnv {
		if err := checkAllowEnv(n); err != nil {
			return withCode(ExitValidation, err)
		}
	}
	return nil
}

// checkAllowEnv refuses an --allow-env name that is not a variable name or
// that names the tool's own credentials.
func checkAllowEnv(n string) error {
	if !envNameRE.MatchString(n) {
		return fmt.Errorf("--allow-env %q: not an environment variable name", n)
	}
	if manifest.CredentialEnv(n) {
		return fmt.Errorf("--allow-env %s: holds the tool's own Azure credential, which manifests never read", n)
	}
	return nil
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// envGuard is the controller's valueFrom.env policy: only --allow-env.
func (o *controllerOptions) envGuard(name string) error {
	if slices.Contains(o.allowEnv, name) {
		return nil
	}
	return fmt.Errorf("the controller reads no environment variable a manifest names unless it is listed: add --allow-env %s to the controller (or use secretKeyRef with --secret)", name)
}

// sourceOf turns --source and -f/-k (checked by Validate) into the loop's
// Source.
func (o *controllerOptions) sourceOf(ctx context.Context) (reconcile.Source, error) {
	skip := []string{o.g.State, o.watch.loop.StatusFile, o.watch.loop.PlanFile}
	if o.source == "" {
		paths := append([]string{}, o.manifests.load.Filenames...)
		if o.manifests.load.Kustomize != "" {
			paths = append(paths, o.manifests.load.Kustomize)
		}
		return &reconcile.DirSource{Paths: paths, Skip: skip}, nil
	}
	src, _ := parseSource(o.source)
	if src.Dir != "" {
		p := src.Dir
		o.manifests.load.Filenames, o.manifests.load.Recursive = []string{p}, true
		return &reconcile.DirSource{Paths: []string{p}, Skip: skip}, nil
	}
	cfg, err := o.g.KubeFlags.ToRESTConfig()
	if err != nil {
		return nil, withCode(ExitError, fmt.Errorf("--source %s: connecting to the cluster: %w", o.source, err))
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, withCode(ExitError, err)
	}
	dir, err := os.MkdirTemp("", "kubectl-azure-source-")
	if err != nil {
		return nil, withCode(ExitError, err)
	}
	lo := o.manifests.load
	loadDir := func(ctx context.Context, dir string) (*manifest.Set, error) {
		l := lo
		l.Filenames, l.Recursive = []string{dir}, true
		l.SecretValues = secret.NewRegistry() // the set's own (see watchOptions.runWith)
		return o.g.load(ctx, l, cleanWriter{o.streams.ErrOut, o.g.runSecrets()})
	}
	if src.Kube {
		return o.kubeSource(ctx, src, dir, loadDir)
	}
	cm := &reconcile.ConfigMapSource{Client: cs, Namespace: src.Namespace, Selector: src.Selector, Dir: dir, LoadDir: loadDir}
	if err := cm.Start(ctx); err != nil {
		return nil, withCode(ExitError, fmt.Errorf("--source %s: %w", o.source, err))
	}
	return cm, nil
}

// kubeSource starts the kubernetes:// source's informer.
func (o *controllerOptions) kubeSource(ctx context.Context, src controllerSource, dir string,
	loadDir func(context.Context, string) (*manifest.Set, error)) (reconcile.Source, error) {
	cfg, err := o.g.KubeFlags.ToRESTConfig()
	if err != nil {
		return nil, withCode(ExitError, err)
	}
	cfg.QPS, cfg.Burst = reconcile.KubeQPS, reconcile.KubeBurst
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, withCode(ExitError, err)
	}
	ks := &reconcile.KubeSource{Client: dc, Namespace: src.Namespace, Selector: src.Selector, Dir: dir, LoadDir: loadDir}
	if err := ks.Start(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, withCode(ExitError, fmt.Errorf("--source %s: %w", o.source, err))
	}
	o.kubeSrc = ks
	return ks, nil
}

func (o *controllerOptions) Run(ctx context.Context) error {
	// What manifests may read: the listed Secrets and variables only.
	o.manifests.load.Secrets = o.g.kubeSecrets(o.allowed)
	o.manifests.load.EnvAllowed = o.envGuard
	src, err := o.sourceOf(ctx)
	if err != nil {
		return err
	}
	if cm, ok := src.(*reconcile.ConfigMapSource); ok {
		defer os.RemoveAll(cm.Dir)
	}
	if o.kubeSrc != nil {
		defer os.RemoveAll(o.kubeSrc.Dir)
	}
	return o.watch.runWith(ctx, o.g, o.streams, src, o.manifests.load, o.apply, false, o.around)
}

// around runs the loop: the health endpoints first, then under leader
// election or not.
func (o *controllerOptions) around(ctx context.Context, ctl *reconcile.Controller) error {
	if o.healthAddr != "" {
		addr, err := reconcile.ServeHealth(ctx, o.healthAddr, ctl)
		if err != nil {
			return fmt.Errorf("--health-addr %s: %w", o.healthAddr, err)
		}
		fmt.Fprintf(o.streams.ErrOut, "Serving health on http://%s/healthz and /readyz.\n", addr)
	}
	if o.kubeSrc != nil {
		o.objectEvents(ctl)
		ks := o.objectStatus(ctl)
		ctl.History = ks.History // the pod's status file goes with the pod
		go ks.Run(ctx)
		if err := o.serveWebhook(ctx); err != nil {
			return err
		}
	}
	if o.leaderElect {
		return o.leaderElected(ctx, ctl)
	}
	return ctl.Run(ctx)
}

// serveWebhook serves the validating webhook on every replica (the
// Service sends admission requests to any of them), when asked.
func (o *controllerOptions) serveWebhook(ctx context.Context) error {
	if o.webhookAddr == "" {
		return nil
	}
	reg, err := o.g.schemas()
	if err != nil {
		return err
	}
	adm := &reconcile.Admission{Source: o.kubeSrc, LoadDir: o.kubeSrc.LoadDir, Schemas: reg}
	var addr string
	if o.webhookSelfSigned != "" {
		addr, err = o.serveSelfSigned(ctx, adm)
	} else {
		addr, err = reconcile.ServeWebhook(ctx, o.webhookAddr, filepath.Join(o.webhookCertDir, "tls.crt"), filepath.Join(o.webhookCertDir, "tls.key"), adm)
	}
	if err != nil {
		return fmt.Errorf("--webhook-addr %s: %w", o.webhookAddr, err)
	}
	fmt.Fprintf(o.streams.ErrOut, "Serving the Resource webhook on https://%s%s.\n", addr, reconcile.WebhookPath)
	return nil
}

// serveSelfSigned serves with the certificate this replica keeps in
// --webhook-self-signed: every replica syncs it (writes are guarded by
// resourceVersion), so a standby serves as surely as the leader.
func (o *controllerOptions) serveSelfSigned(ctx context.Context, h http.Handler) (string, error) {
	cfg, err := o.g.KubeFlags.ToRESTConfig()
	if err != nil {
		return "", err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", err
	}
	ns, name, _ := strings.Cut(o.webhookSelfSigned, "/")
	ss := &reconcile.SelfSigned{Client: cs, Namespace: ns, Secret: name, WebhookConfig: o.webhookConfig,
		MutatingWebhookConfig: o.webhookMutating, DNSNames: o.webhookDNSNames, Validity: o.webhookValidity}
	if err := ss.Sync(ctx); err != nil {
		return "", fmt.Errorf("--webhook-self-signed: %w", err)
	}
	go ss.Run(ctx, ss.SyncInterval(), func(f string, a ...any) { fmt.Fprintf(o.streams.ErrOut, f+"\n", a...) })
	return reconcile.ServeWebhookTLS(ctx, o.webhookAddr, ss.GetCertificate, h)
}

// objectStatus writes the kubernetes:// objects' status while this
// replica leads.
func (o *controllerOptions) objectStatus(ctl *reconcile.Controller) *reconcile.KubeStatus {
	log := cleanWriter{o.streams.ErrOut, o.g.runSecrets()}
	host, _ := os.Hostname()
	return &reconcile.KubeStatus{Client: o.kubeSrc.Client, Source: o.kubeSrc, Controller: ctl, Store: ctl.Store, Secrets: ctl.Secrets, Instance: host,
		OnError: func(err error) { fmt.Fprintf(log, "warning: %v\n", err) }}
}

// objectEvents also posts the loop's Events on the objects, where
// `kubectl describe` shows them.
func (o *controllerOptions) objectEvents(ctl *reconcile.Controller) {
	cfg, err := o.g.KubeFlags.ToRESTConfig()
	if err != nil {
		return
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return
	}
	log := cleanWriter{o.streams.ErrOut, o.g.runSecrets()}
	host, _ := os.Hostname()
	onObject := reconcile.ObjectEvents(cs, o.kubeSrc, ctl, ctl.Secrets, host, func(err error) {
		fmt.Fprintf(log, "warning: posting an Event on a Resource object: %v\n", err)
	})
	prev := ctl.Events
	ctl.Events = func(e reconcile.Event) {
		if prev != nil {
			prev(e)
		}
		onObject(e)
	}
}

// allInterfaces warns when --metrics-addr listens beyond loopback:
// /metrics has no authentication.
func allInterfaces(addr string) string {
	if addr == "" {
		return ""
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || isLoopbackHost(host) || strings.EqualFold(host, "localhost") {
		return ""
	}
	return fmt.Sprintf("warning: --metrics-addr %s serves /metrics beyond loopback without authentication; use 127.0.0.1:PORT unless something outside must scrape it, and then restrict who can reach it\n", addr)
}

// leaderElected runs the loop only while this replica holds the Lease.
func (o *controllerOptions) leaderElected(ctx context.Context, ctl *reconcile.Controller) error {
	cfg, err := o.g.KubeFlags.ToRESTConfig()
	if err != nil {
		return fmt.Errorf("--leader-elect: connecting to the cluster: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ns := o.leaseNS
	if ns == "" {
		if rest, ok := strings.CutPrefix(o.g.State, "kubernetes://"); ok {
			ns, _, _ = strings.Cut(rest, "/")
		}
	}
	if ns == "" {
		if ns, _, err = o.g.KubeFlags.ToRawKubeConfigLoader().Namespace(); err != nil {
			return err
		}
	}
	name := o.leaseName
	if name == "" {
		name = leaderLeaseName(o.g.setName())
	}
	host, _ := os.Hostname()
	return ctl.RunElected(ctx, reconcile.Election{Client: cs, Namespace: ns, Name: name, Identity: fmt.Sprintf("%s-%d", host, os.Getpid()),
		LeaseDuration: o.leaseDuration, RenewDeadline: o.renewDeadline, RetryPeriod: o.retryPeriod, ReleaseOnCancel: true})
}

// leaderLeaseName is the default --leader-elect-name of a set; install
// grants the controller this Lease.
func leaderLeaseName(set string) string { return "kubectl-azure-controller-" + set }
