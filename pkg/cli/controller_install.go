package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
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
	metricsPort int
	auth        string
}

func newControllerInstallCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := &installOptions{g: g, streams: s, namespace: "kubectl-azure", name: "kubectl-azure-controller", image: "kubectl-azure:" + version.Version,
		policy: reconcile.PolicyDetect, readBudget: "5%", replicas: 2, metricsPort: 8080, auth: "workload-identity"}
	cmd := &cobra.Command{
		Use:   "install --source SOURCE --state kubernetes://NAMESPACE/SET -o yaml",
		Short: "Print the Kubernetes objects that run the controller (ServiceAccount, Role, RoleBinding, Deployment, Service)",
		Example: `  kubectl azure controller install --source configmap://kubectl-azure?selector=app=infra \
      --state kubernetes://kubectl-azure/prod -o yaml | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: runE(o),
	}
	// The objects are YAML: text is the same YAML.
	g.printFlags(cmd, printer.OutputText, printer.OutputYAML)
	fs := cmd.Flags()
	fs.StringVar(&o.namespace, "install-namespace", o.namespace, "namespace of the controller's objects")
	fs.StringVar(&o.name, "name", o.name, "name of the controller's objects")
	fs.StringVar(&o.image, "image", o.image, "container image holding kubectl-azure")
	fs.StringVar(&o.source, "source", o.source, "manifest source: dir://PATH (mount it, e.g. with git-sync) or configmap://NAMESPACE?selector=LABELS")
	fs.StringVar(&o.state, "state-ref", o.state, "state backend of the controller (default: --state when it is kubernetes://, else kubernetes://NAMESPACE/default)")
	fs.StringVar(&o.policy, "drift-policy", o.policy, "detect or correct")
	fs.StringVar(&o.readBudget, "read-budget", o.readBudget, "share of ARM's read bucket the observer may spend")
	fs.IntVar(&o.replicas, "replicas", o.replicas, "replicas (one leads at a time)")
	fs.IntVar(&o.metricsPort, "metrics-port", o.metricsPort, "port of /metrics, /healthz and /readyz")
	fs.StringVar(&o.auth, "azure-auth", o.auth, "credential of the pod: workload-identity|managed-identity|env")
	return cmd
}

// Complete defaults the controller's state to --state when that is a
// Kubernetes one.
func (o *installOptions) Complete(*cobra.Command, []string) error {
	if o.state == "" {
		if strings.HasPrefix(o.g.State, "kubernetes://") {
			o.state = o.g.State
		} else {
			o.state = "kubernetes://" + o.namespace + "/default"
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

func (o *installOptions) Run(context.Context) error { return o.print(o.streams.Out) }

func (o *installOptions) validate() error {
	if o.source == "" {
		return errors.New("--source is required: dir://PATH or configmap://NAMESPACE?selector=LABELS")
	}
	if !strings.HasPrefix(o.state, "kubernetes://") {
		return fmt.Errorf("--state-ref %q: in a cluster the state must be kubernetes://NAMESPACE/SET (a file would be lost with the pod)", o.state)
	}
	if err := reconcile.ValidatePolicy(o.policy); err != nil {
		return fmt.Errorf("--drift-policy: %w", err)
	}
	if _, err := reconcile.ParseBudget(o.readBudget); err != nil {
		return err
	}
	if o.replicas < 1 {
		return fmt.Errorf("--replicas must be at least 1, got %d", o.replicas)
	}
	return nil
}

// print writes the objects as one YAML stream. The Role grants what the
// controller touches: its leader Lease and the state's Lease and
// ConfigMaps, ConfigMaps it reads manifests from, Secrets referenced by
// secretKeyRef, and Events.
func (o *installOptions) print(w io.Writer) error {
	labels := fmt.Sprintf("app.kubernetes.io/name: kubectl-azure\n    app.kubernetes.io/component: controller\n    app.kubernetes.io/instance: %s", o.name)
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	args := []string{"controller", "--source=" + o.source, "--state=" + o.state, "--drift-policy=" + o.policy,
		"--read-budget=" + o.readBudget, "--leader-elect", fmt.Sprintf("--metrics-addr=:%d", o.metricsPort),
		"--status-file=/var/run/kubectl-azure/status.json", "--auth=" + o.auth}
	var argLines strings.Builder
	for _, a := range args {
		fmt.Fprintf(&argLines, "            - %s\n", q(a))
	}
	volumes, mounts := "", ""
	if strings.HasPrefix(o.source, "dir://") {
		mounts = "            - name: manifests\n              mountPath: " + q(strings.TrimPrefix(o.source, "dir://")) + "\n              readOnly: true\n"
		volumes = "        - name: manifests\n          emptyDir: {}  # replace: a git-sync sidecar's volume, or a ConfigMap\n"
	}
	_, err := fmt.Fprintf(w, `apiVersion: v1
kind: ServiceAccount
metadata:
  name: %[1]s
  namespace: %[2]s
  labels:
    %[3]s
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: %[1]s
  namespace: %[2]s
  labels:
    %[3]s
rules:
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
  - apiGroups: [""]
    resources: ["configmaps"]
    verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
  - apiGroups: [""]
    resources: ["secrets"]
    verbs: ["get"]
  - apiGroups: [""]
    resources: ["events"]
    verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: %[1]s
  namespace: %[2]s
  labels:
    %[3]s
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: %[1]s
subjects:
  - kind: ServiceAccount
    name: %[1]s
    namespace: %[2]s
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: %[2]s
  labels:
    %[3]s
spec:
  replicas: %[4]d
  selector:
    matchLabels:
      app.kubernetes.io/instance: %[1]s
  template:
    metadata:
      labels:
        %[8]s
    spec:
      serviceAccountName: %[1]s
      securityContext:
        runAsNonRoot: true
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: controller
          image: %[5]s
          args:
%[6]s          ports:
            - name: metrics
              containerPort: %[7]d
          readinessProbe:
            httpGet:
              path: /readyz
              port: metrics
          livenessProbe:
            httpGet:
              path: /healthz
              port: metrics
          resources:
            requests:
              cpu: 50m
              memory: 64Mi
            limits:
              memory: 256Mi
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: ["ALL"]
          volumeMounts:
            - name: run
              mountPath: /var/run/kubectl-azure
            - name: tmp
              mountPath: /tmp
%[9]s      volumes:
        - name: run
          emptyDir: {}
        - name: tmp
          emptyDir: {}
%[10]s---
apiVersion: v1
kind: Service
metadata:
  name: %[1]s
  namespace: %[2]s
  labels:
    %[3]s
spec:
  selector:
    app.kubernetes.io/instance: %[1]s
  ports:
    - name: metrics
      port: %[7]d
      targetPort: metrics
`, o.name, o.namespace, labels, o.replicas, q(o.image), argLines.String(), o.metricsPort,
		strings.ReplaceAll(labels, "\n    ", "\n        "), mounts, volumes)
	return err
}
