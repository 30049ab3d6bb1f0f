package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
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
	// source is dir://PATH or configmap://NAMESPACE?selector=...; -f/-k
	// are the same as dir://.
	source string

	leaderElect   bool
	leaseName     string
	leaseNS       string
	leaseDuration time.Duration
	renewDeadline time.Duration
	retryPeriod   time.Duration
}

// newControllerCommand is `kubectl azure controller` (and its install
// subcommand): the loop of apply --watch, run in a cluster.
func newControllerCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := &controllerOptions{g: g, streams: s, watch: newWatchOptions(), manifests: newManifestFlags(), apply: apply.DefaultOptions(),
		leaseDuration: reconcile.DefaultLeaseDuration, renewDeadline: reconcile.DefaultRenewDeadline, retryPeriod: reconcile.DefaultRetryPeriod}
	cmd := &cobra.Command{
		Use:   "controller (-f DIR | --source dir://PATH | --source configmap://NAMESPACE?selector=...)",
		Short: "Keep Azure matching the manifests: observe on a read budget, report drift, correct it if asked",
		Long: `The controller loads the manifests, observes Azure on a fraction of ARM's
read bucket, and applies manifest changes as they arrive. Drift (a change
made in Azure outside this tool) is reported (--drift-policy detect, the
default) or written back once (correct); a path someone keeps changing is
contested and left alone. It is the loop of 'apply --watch', meant to run in
a cluster with leader election; 'controller install -o yaml' prints the
objects to run it.`,
		Example: `  kubectl azure controller -f infra/ --state kubernetes://azure/prod --status-file /tmp/status.json
  kubectl azure controller --source configmap://azure?selector=app=infra --leader-elect --metrics-addr :8080
  kubectl azure controller install --source dir:///manifests --state kubernetes://azure/prod -o yaml | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: runE(o),
	}
	fs := cmd.Flags()
	o.manifests.addFlags(fs)
	o.watch.addFlags(fs)
	fs.StringVar(&o.source, "source", "", "where the manifests come from: dir://PATH (e.g. kept by a git-sync sidecar) or configmap://NAMESPACE?selector=LABELS")
	addReadFlags(fs, &o.apply)
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "run only while holding a Kubernetes Lease, so one of several replicas writes")
	fs.StringVar(&o.leaseName, "leader-elect-name", "", "name of the leader Lease (default: kubectl-azure-controller-SET)")
	fs.StringVar(&o.leaseNS, "leader-elect-namespace", "", "namespace of the leader Lease (default: the state's, else the kubeconfig's)")
	fs.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", o.leaseDuration, "how long a leader's Lease lasts without renewal")
	fs.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", o.renewDeadline, "a leader that cannot renew within this stops writing")
	fs.DurationVar(&o.retryPeriod, "leader-elect-retry-period", o.retryPeriod, "how often candidates try to take the Lease")
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
	if o.source != "" && o.manifests.given() {
		return withCode(ExitValidation, errors.New("give either --source or -f/-k, not both"))
	}
	if o.source == "" {
		if !o.manifests.given() {
			return withCode(ExitValidation, errors.New("no manifests given: give -f DIR, -k DIR or --source (dir://PATH or configmap://NAMESPACE?selector=LABELS)"))
		}
		for _, f := range o.manifests.load.Filenames {
			if f == "-" {
				return withCode(ExitValidation, errors.New("the controller needs files or directories to watch, not standard input"))
			}
		}
		return nil
	}
	u, err := url.Parse(o.source)
	if err != nil {
		return withCode(ExitValidation, fmt.Errorf("--source %q: %w", o.source, err))
	}
	switch {
	case u.Scheme == "dir" && u.Host+u.Path == "":
		return withCode(ExitValidation, fmt.Errorf("--source %q names no directory: use dir://PATH", o.source))
	case u.Scheme == "configmap" && u.Host == "":
		return withCode(ExitValidation, fmt.Errorf("--source %q names no namespace: use configmap://NAMESPACE?selector=LABELS", o.source))
	case u.Scheme != "dir" && u.Scheme != "configmap":
		return withCode(ExitValidation, fmt.Errorf("--source %q: use dir://PATH or configmap://NAMESPACE?selector=LABELS", o.source))
	}
	return nil
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
	u, _ := url.Parse(o.source)
	if u.Scheme == "dir" {
		p := u.Host + u.Path
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
	cm := &reconcile.ConfigMapSource{Client: cs, Namespace: u.Host, Selector: u.Query().Get("selector"), Dir: dir,
		LoadDir: func(ctx context.Context, dir string) (*manifest.Set, error) {
			l := lo
			l.Filenames, l.Recursive = []string{dir}, true
			l.SecretValues = secret.NewRegistry() // the set's own (see watchOptions.runWith)
			return o.g.load(ctx, l, cleanWriter{o.streams.ErrOut, o.g.runSecrets()})
		}}
	if err := cm.Start(ctx); err != nil {
		return nil, withCode(ExitError, fmt.Errorf("--source %s: %w", o.source, err))
	}
	return cm, nil
}

func (o *controllerOptions) Run(ctx context.Context) error {
	src, err := o.sourceOf(ctx)
	if err != nil {
		return err
	}
	if cm, ok := src.(*reconcile.ConfigMapSource); ok {
		defer os.RemoveAll(cm.Dir)
	}
	var around func(context.Context, *reconcile.Controller) error
	if o.leaderElect {
		around = o.leaderElected
	}
	return o.watch.runWith(ctx, o.g, o.streams, src, o.manifests.load, o.apply, false, around)
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
		name = "kubectl-azure-controller-" + o.g.setName()
	}
	host, _ := os.Hostname()
	return ctl.RunElected(ctx, reconcile.Election{Client: cs, Namespace: ns, Name: name, Identity: fmt.Sprintf("%s-%d", host, os.Getpid()),
		LeaseDuration: o.leaseDuration, RenewDeadline: o.renewDeadline, RetryPeriod: o.retryPeriod, ReleaseOnCancel: true})
}
