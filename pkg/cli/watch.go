package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/apply/armclient"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/plugins"
)

// watchOptions are the flags `apply --watch` and `controller` share: one
// loop (pkg/reconcile), two front ends.
type watchOptions struct {
	// watch is apply's --watch.
	watch         bool
	readBudget    string
	initialBudget string
	metricsAddr   string
	loop          reconcile.Options

	// Filled by complete.
	budget float64
}

func newWatchOptions() *watchOptions {
	return &watchOptions{readBudget: "5%", initialBudget: "50%", loop: reconcile.DefaultOptions()}
}

// addFlags binds the loop's flags.
func (w *watchOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&w.readBudget, "read-budget", w.readBudget, "share of ARM's measured read bucket the observer may spend, e.g. 5%")
	fs.StringVar(&w.initialBudget, "initial-read-budget", w.initialBudget, "share of ARM's measured read bucket the observer may spend until the loop is first in sync (its first sweep of every resource, again after a restart or a change of leader); never below --read-budget")
	fs.StringVar(&w.loop.DriftPolicy, "drift-policy", w.loop.DriftPolicy, "detect (report drift) or correct (write the manifest's values back); a resource's azure.kubectl.io/drift-policy annotation wins")
	fs.StringVar(&w.loop.StatusFile, "status-file", w.loop.StatusFile, "keep a JSON status of every resource in this file (replaced atomically)")
	fs.StringVar(&w.loop.PlanFile, "plan-file", w.loop.PlanFile, "while anything drifted, keep the plan of the last sweep here, for kubectl azure apply PATH (applied only if Azure has not moved since)")
	fs.StringVar(&w.metricsAddr, "metrics-addr", w.metricsAddr, "serve Prometheus metrics (/metrics) and health (/healthz, /readyz) on this address, e.g. :8080")
	fs.DurationVar(&w.loop.MinSweepInterval, "sweep-interval", w.loop.MinSweepInterval, "least time between two observation sweeps (the read budget may space them further)")
	fs.DurationVar(&w.loop.SourceInterval, "source-interval", w.loop.SourceInterval, "how often the manifests are checked for changes")
	fs.IntVar(&w.loop.Workers, "workers", w.loop.Workers, "resources written at once")
	fs.Float64Var(&w.loop.WriteBudget, "write-budget", w.loop.WriteBudget, "writes per second the loop may send")
	fs.DurationVar(&w.loop.ContestWindow, "contest-window", w.loop.ContestWindow, "a path drifting again this soon after corrections is contested")
	fs.IntVar(&w.loop.ContestLimit, "contest-limit", w.loop.ContestLimit, "corrections of one path within --contest-window before it is contested and left alone")
	fs.DurationVar(&w.loop.ContestBackoff, "contest-backoff", w.loop.ContestBackoff, "how long a contested resource is left alone (doubles each time)")
	fs.DurationVar(&w.loop.RetryBase, "retry-base", w.loop.RetryBase, "first backoff after a failed write (doubles per failure of the same resource)")
	for _, name := range []string{"sweep-interval", "source-interval", "workers", "write-budget", "contest-window", "contest-limit", "contest-backoff", "retry-base"} {
		_ = fs.SetAnnotation(name, watchFlagAnnotation, []string{"true"})
	}
	_ = fs.MarkHidden("retry-base")
}

// watchFlagAnnotation marks the loop's tuning flags.
const watchFlagAnnotation = "kubectl-azure/watch"

// addWatchFlags adds --watch and the loop's flags to apply.
func addWatchFlags(cmd *cobra.Command) *watchOptions {
	w := newWatchOptions()
	cmd.Flags().BoolVar(&w.watch, "watch", false, "keep applying: watch the manifests and Azure, report drift (and correct it with --drift-policy correct) until interrupted")
	w.addFlags(cmd.Flags())
	return w
}

// complete parses and checks the loop's flags.
func (w *watchOptions) complete() error {
	b, err := reconcile.ParseBudget(w.readBudget)
	if err != nil {
		return withCode(ExitValidation, err)
	}
	w.budget = b
	w.loop.ReadBudget = b
	ib, err := reconcile.ParseShare("--initial-read-budget", w.initialBudget)
	if err != nil {
		return withCode(ExitValidation, err)
	}
	w.loop.InitialReadBudget = ib
	if err := w.loop.Validate(); err != nil {
		return withCode(ExitValidation, err)
	}
	return nil
}

// runApply is `apply -f DIR --watch`: the loop on a workstation or CI
// runner, with the local state and its lock. applyOptions.Validate has
// checked the flags and completed w.
func (w *watchOptions) runApply(ctx context.Context, o *planCore) error {
	paths := append([]string{}, o.manifests.load.Filenames...)
	if o.manifests.load.Kustomize != "" {
		paths = append(paths, o.manifests.load.Kustomize)
	}
	src := &reconcile.DirSource{Paths: paths, Skip: []string{o.g.State, w.loop.StatusFile, w.loop.PlanFile}}
	return w.run(ctx, o.g, o.streams, src, o.manifests.load, o.apply, true)
}

// run wires the loop to the CLI's clients, state and loader and runs it
// until ctx ends (SIGINT/SIGTERM): then it returns nil, exit 0.
// failFast makes an invalid first manifest set exit 2 (apply --watch); in
// cluster the loop waits for a good set instead.
func (w *watchOptions) run(ctx context.Context, g *GlobalOptions, streams genericiooptions.IOStreams, src reconcile.Source, load manifest.LoadOptions, base apply.Options, failFast bool) error {
	return w.runWith(ctx, g, streams, src, load, base, failFast, nil)
}

// sourceName names where the loop reads manifests for people: each -f/-k
// path as file:// or dir:// by what it is (a file is not a directory, and
// the source's own name says dir:// for both).
func sourceName(src reconcile.Source) string {
	ds, ok := src.(*reconcile.DirSource)
	if !ok {
		return fmt.Sprint(src)
	}
	names := make([]string, len(ds.Paths))
	for i, p := range ds.Paths {
		scheme := "dir://"
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			scheme = "file://"
		}
		names[i] = scheme + p
	}
	return strings.Join(names, ", ")
}

// runWith is run; around, when set, runs the loop (leader election).
func (w *watchOptions) runWith(ctx context.Context, g *GlobalOptions, streams genericiooptions.IOStreams, src reconcile.Source, load manifest.LoadOptions, base apply.Options, failFast bool,
	around func(ctx context.Context, ctl *reconcile.Controller) error) error {
	// The loop runs for days: its ARM clients, state store and log scrub
	// with the run's registry, which holds nothing itself; every load gets
	// a registry of its own (the set's), and every plan or batch one over
	// it, included in the run's while it runs (reconcile.Controller.Secrets).
	run := g.runSecrets()
	log := cleanWriter{streams.ErrOut, run}
	if ds, ok := src.(*reconcile.DirSource); ok && ds.LoadFunc == nil {
		load.Skip = append(load.Skip, w.loop.StatusFile, w.loop.PlanFile)
		ds.LoadFunc = func(ctx context.Context) (*manifest.Set, error) {
			l := load
			l.SecretValues = secret.NewRegistry()
			return g.load(ctx, l, log)
		}
	}
	refl := reconcile.NewReflector(src)
	if _, err := refl.Sync(ctx); err != nil {
		if failFast {
			if errors.Is(err, reconcile.ErrEmptySet) {
				return withCode(ExitValidation, fmt.Errorf("no resources loaded from %s: check the paths, -R for subdirectories, and the -l selector", sourceName(src)))
			}
			var ve *manifest.ValidationError
			if errors.As(err, &ve) {
				return withCode(ExitValidation, err)
			}
			return withCode(ExitError, err)
		}
		fmt.Fprintf(log, "warning: %s: %v; waiting for a valid set\n", sourceName(src), err)
	}

	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 32
	reg, err := g.schemas()
	if err != nil {
		return err
	}
	paths := setSecretPaths(refl, reg)
	st, err := g.openState(ctx)
	if err != nil {
		return err
	}
	defer st.Close()

	eo := base
	eo.Set = g.setName()
	eo.Concurrency = g.engineConcurrency()
	eo.LockTimeout = g.LockTimeout
	if eo.Subscription == "" {
		eo.Subscription = manifest.Subscription(g.Subscription)
	}
	loop := w.loop
	loop.LockTimeout = g.LockTimeout
	ctl, err := reconcile.New(reconcile.Config{Options: loop, Reflector: refl, Store: st, Transport: transport,
		ARM: func(rt http.RoundTripper, concurrency int) (apply.Client, error) {
			c, err := g.loopARMClient(streams.ErrOut, rt, concurrency, paths)
			if err != nil {
				return nil, err
			}
			return armclient.New(c), nil
		},
		Schemas: reg, Plugins: plugins.For, Engine: eo, Log: log, Secrets: run,
		PlanSource: apply.Source{Filenames: load.Filenames, Recursive: load.Recursive, Kustomize: load.Kustomize,
			Selector: load.Selector, Subscription: g.Subscription, State: g.State}})
	if err != nil {
		return err
	}
	metrics := ctl.Metrics
	if ns, set, err := state.ParseKubernetesRef(g.State); err == nil && strings.HasPrefix(g.State, "kubernetes://") {
		// With the Kubernetes state, what happens to a resource is also
		// an Event on its state ConfigMap.
		if cfg, err := g.KubeFlags.ToRESTConfig(); err == nil {
			if cs, err := kubernetes.NewForConfig(cfg); err == nil {
				host, _ := os.Hostname()
				ctl.Events = reconcile.KubeEvents(cs, ns, set, host, func(err error) {
					fmt.Fprintf(log, "warning: posting an Event: %v\n", err)
				})
			}
		}
	}
	if w.metricsAddr != "" {
		addr, err := reconcile.Serve(ctx, w.metricsAddr, metrics, ctl)
		if err != nil {
			return withCode(ExitError, fmt.Errorf("--metrics-addr %s: %w", w.metricsAddr, err))
		}
		fmt.Fprintf(log, "Serving metrics on http://%s/metrics (health: /healthz, /readyz).\n", addr)
		fmt.Fprint(log, allInterfaces(w.metricsAddr)) // "" on loopback
	}
	fmt.Fprintf(log, "Watching %s: read budget %s of ARM's read bucket (%s until first in sync), drift policy %s, state %s (locked per write). Ctrl-C stops.\n",
		sourceName(src), strings.TrimSpace(w.readBudget), strings.TrimSpace(w.initialBudget), w.loop.DriftPolicy, g.State)
	if around != nil {
		err = around(ctx, ctl)
	} else {
		err = ctl.Run(ctx)
	}
	if err != nil && ctx.Err() == nil {
		return withCode(ExitError, err)
	}
	fmt.Fprintln(log, "Stopped.")
	return nil
}

// loopARMClient builds an ARM client as armClient does, on a transport of
// the loop's (read budget, request counting). concurrency 0 keeps the
// global --concurrency. Its User-Agent names the loop, so Azure's activity
// log tells its writes from a person's.
func (g *GlobalOptions) loopARMClient(log io.Writer, rt http.RoundTripper, concurrency int, paths func(typ, apiVersion string) []string) (*arm.Client, error) {
	o := g.armOptions(log)
	o.SensitivePaths = paths
	o.Version += " reconcile"
	o.OnWait = nil // the loop paces itself below ARM's budget and reports in its status
	if concurrency > 0 && concurrency < o.Concurrency {
		o.Concurrency = concurrency
	}
	o.HTTPClient = &http.Client{Transport: rt, Timeout: 0}
	c, err := arm.New(o)
	if err != nil {
		return nil, withCode(ExitError, err)
	}
	return c, nil
}

// setSecretPaths answers the ARM clients' SensitivePaths from the set the
// loop observes, as one-shot commands do (runSecretPaths): per type, the
// body paths its manifests fill from valueFrom (or from a secret
// elsewhere), and the schema's secret and write-only paths. A value Azure
// holds there now (a key rotated in Azure, a tag changed by hand) was
// never registered as secret, so only its path can hide it in a -v 8 body
// log. Paths of every resource of a type count for all of them: a log
// errs on the side of hiding.
func setSecretPaths(refl *reconcile.Reflector, reg *schema.Registry) func(typ, apiVersion string) []string {
	var mu sync.Mutex
	var seen *manifest.Set
	var paths func(typ, apiVersion string) []string
	return func(typ, apiVersion string) []string {
		set, _, _ := refl.Current()
		mu.Lock()
		if paths == nil || set != seen {
			seen, paths = set, runSecretPaths(reg, set)
		}
		p := paths
		mu.Unlock()
		return p(typ, apiVersion)
	}
}
