package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Environment variables the CLI reads. Flags win over them.
const (
	EnvEndpoint     = "KUBECTL_AZURE_ENDPOINT"
	EnvSubscription = "AZURE_SUBSCRIPTION_ID"
)

// GlobalOptions are the flags every subcommand takes, in groups commands
// compose: the ARM connection, where state lives, and the output.
// DefaultGlobalOptions is the one place their defaults live; flags only
// overwrite fields.
type GlobalOptions struct {
	ARMFlags
	StateFlags
	// Output is -o; each command's printFlags say which values it takes.
	Output string
	// Annotations is auto (GitHub workflow commands under GitHub Actions),
	// github or none.
	Annotations string
	SchemaDir   string

	// KubeFlags are the standard kubeconfig flags; the Kubernetes state
	// backend and Kubernetes Secret references use them.
	KubeFlags *genericclioptions.ConfigFlags

	// waits reports waits for ARM's budget (see waits.go).
	waits waitNotices
	// outputs are the commands' -o (printFlags): what each accepts.
	outputs map[*cobra.Command]*printer.PrintFlags
	// secrets is the registry of the command's run, made fresh as each
	// command starts (root's PersistentPreRunE): the loader registers
	// into it, and the ARM client, the state store, the engine, the
	// printers and the final error report scrub with it.
	secrets *secret.Registry
}

// runSecrets is the run's registry (see secrets), made on first use when
// the command did not start through the root command.
func (g *GlobalOptions) runSecrets() *secret.Registry {
	if g.secrets == nil {
		g.secrets = secret.NewRegistry()
	}
	return g.secrets
}

// ARMFlags are the ARM connection: which subscription, where requests go,
// as whom, and how hard to push.
type ARMFlags struct {
	Subscription string
	Endpoint     string
	Auth         string
	Cloud        string
	// AuthorityHost overrides the cloud's Entra authority (sovereign or
	// test setups); azidentity's AZURE_AUTHORITY_HOST is the default.
	AuthorityHost string
	Verbosity     int
	Concurrency   int
	// ConcurrencySet records that --concurrency was given, so it also bounds
	// resources in progress (otherwise the engine's own default applies).
	ConcurrencySet bool
	// Timeout bounds one ARM operation including retries and LRO polling.
	Timeout time.Duration
}

// StateFlags say where state lives, which set a command works within, and
// how long to wait for its lock.
type StateFlags struct {
	State string
	// Set names this manifest set in state; --prune only deletes records
	// of the same set, so two directories can share one state file.
	Set         string
	LockTimeout time.Duration
	// LeaseDuration is how long a Kubernetes state lock outlives a killed
	// holder; hidden, for tests and for teams that want faster takeover.
	LeaseDuration time.Duration
}

// DefaultGlobalOptions returns the defaults, with environment fallbacks applied.
func DefaultGlobalOptions() *GlobalOptions {
	return &GlobalOptions{
		ARMFlags: ARMFlags{
			Endpoint:      os.Getenv(EnvEndpoint),
			Auth:          "default",
			AuthorityHost: os.Getenv("AZURE_AUTHORITY_HOST"),
			Cloud:         "public",
			Concurrency:   arm.DefaultConcurrency,
			Timeout:       arm.DefaultOptions().Timeout,
		},
		StateFlags: StateFlags{
			State:       ".kubectl-azure/state.json",
			LockTimeout: 60 * time.Second,
		},
		Output:      printer.OutputText,
		Annotations: "auto",
		KubeFlags:   genericclioptions.NewConfigFlags(true),
	}
}

// AddFlags binds the global flags.
func (o *GlobalOptions) AddFlags(fs *pflag.FlagSet) {
	o.ARMFlags.addFlags(fs)
	o.StateFlags.addFlags(fs)
	// -o is global so it may come before the command's name; each command
	// accepts some of these formats (printFlags), checked before it runs.
	printer.NewPrintFlags(printer.OutputText, printer.OutputJSON, printer.OutputYAML, printer.OutputMarkdown, printer.OutputName, printer.OutputWide).
		WithTemplates(printer.OutputJSONPath).WithOutput(&o.Output).AddFlags(fs)
	fs.StringVar(&o.Annotations, "annotations", o.Annotations, "CI annotations for invalid manifests and failed resources: auto (github under GitHub Actions)|github|none")
	fs.StringVar(&o.SchemaDir, "schema-dir", o.SchemaDir, "read resource schemas from this azure-rest-api-specs checkout instead of the embedded ones")
	o.addKubeFlags(fs)
}

func (o *ARMFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Subscription, "subscription", o.Subscription, "Azure subscription ID (default: $AZURE_SUBSCRIPTION_ID, then the Azure CLI's default subscription)")
	fs.StringVar(&o.Endpoint, "endpoint", o.Endpoint, "ARM endpoint URL (default: the cloud's; $"+EnvEndpoint+"). Plain HTTP is allowed only on loopback, e.g. the bundled arm-emulator")
	fs.StringVar(&o.Auth, "auth", o.Auth, "credential: default|cli|env|workload-identity|managed-identity|client-secret")
	fs.StringVar(&o.Cloud, "cloud", o.Cloud, "Azure cloud: public|china|usgov")
	fs.StringVar(&o.AuthorityHost, "authority-host", o.AuthorityHost, "Entra authority URL (default: the cloud's; $AZURE_AUTHORITY_HOST)")
	fs.IntVarP(&o.Verbosity, "v", "v", o.Verbosity, "log verbosity: 4 requests, 6 headers, 8 bodies (secrets redacted)")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "give up on one ARM operation (request, retries and long-running operation) after this long")
	fs.IntVar(&o.Concurrency, "concurrency", o.Concurrency, "ARM requests in flight at once; when given, also the resources in progress at once (when not given, up to 256 resources are in progress)")
}

func (o *StateFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.State, "state", o.State, "state backend: a file path, or kubernetes://NAMESPACE/SETNAME")
	fs.StringVar(&o.Set, "set", o.Set, "name of this manifest set in state: --prune deletes only what this set recorded (default: the Kubernetes state's SETNAME, else \"default\")")
	fs.DurationVar(&o.LockTimeout, "lock-timeout", o.LockTimeout, "how long to wait for the state lock held by another run")
	fs.DurationVar(&o.LeaseDuration, "lease-duration", o.LeaseDuration, "Kubernetes state: how long a lock held by a killed run blocks others (0: the backend's default)")
	_ = fs.MarkHidden("lease-duration")
}

// kubeFlagAnnotation marks the kubeconfig flags: they matter only for the
// Kubernetes state backend and Secret references, so help lists them under
// `kubectl azure options` instead of burying every command's own flags.
const kubeFlagAnnotation = "kubectl-azure/kube"

func (o *GlobalOptions) addKubeFlags(fs *pflag.FlagSet) {
	kfs := pflag.NewFlagSet("kube", pflag.ContinueOnError)
	o.KubeFlags.AddFlags(kfs)
	kfs.VisitAll(func(f *pflag.Flag) {
		_ = kfs.SetAnnotation(f.Name, kubeFlagAnnotation, []string{"true"})
		f.Hidden = true
	})
	fs.AddFlagSet(kfs)
}

// annotations resolves --annotations auto from the environment.
func (o *GlobalOptions) annotations() string {
	if o.Annotations == "auto" {
		if os.Getenv("GITHUB_ACTIONS") == "true" {
			return printer.AnnotationsGitHub
		}
		return printer.AnnotationsNone
	}
	return o.Annotations
}

// authModes are the --auth values, in the order help lists them.
var authModes = []string{arm.AuthDefault, arm.AuthCLI, arm.AuthEnv, arm.AuthWorkloadIdentity, arm.AuthManagedIdentity, arm.AuthClientSecret}

// validateValues rejects global flag values that cannot be honoured, for
// every command and before anything is read or sent: a value that would
// otherwise be silently replaced by a default (a negative timeout, zero
// concurrency) or fail only at the first request is bad input (exit 2).
func (o *GlobalOptions) validateValues() error {
	if err := o.ARMFlags.validate(); err != nil {
		return err
	}
	return o.StateFlags.validate()
}

func (o *StateFlags) validate() error {
	if o.LockTimeout < 0 {
		return fmt.Errorf("--lock-timeout %s: must not be negative, e.g. 2m", o.LockTimeout)
	}
	if o.LeaseDuration < 0 {
		return fmt.Errorf("--lease-duration %s: must not be negative", o.LeaseDuration)
	}
	return nil
}

func (o *ARMFlags) validate() error {
	if !slices.Contains(authModes, strings.ToLower(o.Auth)) {
		return fmt.Errorf("unknown --auth %q: use %s", o.Auth, strings.Join(authModes, ", "))
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout %s: must be a positive duration, e.g. 30m", o.Timeout)
	}
	if o.Concurrency < 1 {
		return fmt.Errorf("--concurrency %d: must be at least 1", o.Concurrency)
	}
	if o.Verbosity < 0 {
		return fmt.Errorf("-v %d: must be 0 or more (4 requests, 6 headers, 8 bodies)", o.Verbosity)
	}
	if o.AuthorityHost != "" {
		u, err := url.Parse(o.AuthorityHost)
		if err != nil || !strings.EqualFold(u.Scheme, "https") || u.Host == "" {
			return fmt.Errorf("--authority-host %q: must be an https URL, e.g. https://login.microsoftonline.com/", o.AuthorityHost)
		}
	}
	// The ARM client's own rules decide the cloud and the endpoint (https,
	// or plain HTTP to loopback only); building one sends nothing, and the
	// stand-in credential keeps it from reading any real one.
	ao := arm.DefaultOptions()
	ao.Cloud, ao.Endpoint, ao.Credential = o.Cloud, o.Endpoint, noCredential{}
	if _, err := arm.New(ao); err != nil {
		return err
	}
	return nil
}

// noCredential stands in for the real credential while flags are checked.
type noCredential struct{}

func (noCredential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{}, errors.New("no credential while validating flags")
}
