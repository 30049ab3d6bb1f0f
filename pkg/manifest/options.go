package manifest

import (
	"context"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// LoadOptions says what to load and how to resolve it. Flags fill it (see
// AddFlags); NewLoadOptions holds every default, and Load applies the same
// defaults to fields left zero, so a literal LoadOptions{} works too.
type LoadOptions struct {
	// Filenames are files, directories, glob patterns or "-" (Stdin), as kubectl -f.
	Filenames []string
	// Recursive walks directories in Filenames recursively (-R).
	Recursive bool
	// Kustomize is a kustomization directory to build (-k); excludes Filenames.
	Kustomize string
	// AllowRemoteKustomize lets -k fetch remote resources, bases and
	// components (https or ssh only); off, a kustomization naming one is
	// refused before anything is fetched.
	AllowRemoteKustomize bool
	// Skip names files a directory walk leaves out: the tool's own state
	// file when it lives among the manifests. A file given by name is
	// still read.
	Skip []string
	// Selector is a label selector (-l) choosing which resources are returned.
	// References to resources it leaves out still resolve.
	Selector string
	// Stdin is read for the filename "-". Default os.Stdin.
	Stdin io.Reader

	// Subscription is the subscription ID. When empty: $AZURE_SUBSCRIPTION_ID,
	// then the Azure CLI's default subscription ($AZURE_CONFIG_DIR or
	// ~/.azure, file azureProfile.json).
	Subscription string
	// Tenant is the tenant ID substituted for ${tenantId}. When empty:
	// $AZURE_TENANT_ID, then the tenant of the subscription in the Azure CLI profile.
	Tenant string

	// Strict turns schema warnings and ignored readonly properties into
	// errors (--strict).
	Strict bool

	// Secrets resolves valueFrom.secretKeyRef. Nil means no cluster was
	// configured; a manifest using secretKeyRef then fails validation.
	Secrets SecretResolver
	// SecretValues is the run's registry: every secret value Load resolves
	// is registered there, and problems are scrubbed with it. Nil makes a
	// fresh one for this load (Set.Secrets returns it), so a load never
	// goes without and never shares one with another run by accident.
	SecretValues *secret.Registry
	// Schema validates bodies. Nil uses DefaultSchemaValidator.
	Schema SchemaValidator
	// Versions lists the api-versions the schema index knows for a type
	// (ascending; nil for a type it does not know): a version outside it
	// is checked with ServedVersions, and did-you-mean picks from it. Nil
	// uses the built-in index; set it with Schema when --schema-dir
	// replaces the index.
	Versions func(typ string) []string
	// ServedVersions, when set, asks ARM which api-versions the types of
	// a provider namespace serve in a subscription (keys: lowered type
	// names); (*arm.Client).ProviderAPIVersions fits. Load calls it once
	// per namespace, only for api-versions the index lacks: one ARM serves
	// is a warning (ARM alone checks the body), one it does not serve an
	// error on spec.type naming the nearest served versions. Without it
	// such a version is a warning.
	ServedVersions func(ctx context.Context, subscription, namespace string) (map[string][]string, error)
	// EnvAllowed, when set, may refuse a valueFrom.env variable by name
	// (the controller allows only those it is given); the tool's own
	// credential variables are refused whatever it says (CredentialEnv).
	EnvAllowed func(name string) error
	// LookupEnv reads environment variables (valueFrom.env and the
	// AZURE_* defaults above). Default os.LookupEnv; tests replace it.
	LookupEnv func(string) (string, bool)
}

// NewLoadOptions returns options with every default filled in.
func NewLoadOptions() LoadOptions {
	var o LoadOptions
	o.defaults()
	return o
}

// defaults fills zero fields; the single place defaults live.
func (o *LoadOptions) defaults() {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.Schema == nil {
		o.Schema = DefaultSchemaValidator
	}
	if o.Versions == nil {
		o.Versions = schema.Default().Versions
	}
}

// AddFlags binds the loading flags kubectl users know: -f, -R, -k, -l.
// --subscription and --strict are bound by the CLI (they are global or
// command-specific) and copied into Subscription and Strict.
func (o *LoadOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringSliceVarP(&o.Filenames, "filename", "f", o.Filenames,
		"manifest files, directories or glob patterns; - reads standard input")
	fs.BoolVarP(&o.Recursive, "recursive", "R", o.Recursive,
		"process the directories given with -f recursively")
	fs.StringVarP(&o.Kustomize, "kustomize", "k", o.Kustomize,
		"build this kustomization directory and load its output (excludes -f)")
	fs.BoolVar(&o.AllowRemoteKustomize, "allow-remote-kustomize", o.AllowRemoteKustomize,
		"let -k fetch remote resources, bases and components (https or ssh only; never plain http)")
	fs.StringVarP(&o.Selector, "selector", "l", o.Selector,
		"label selector, e.g. -l app=demo,tier!=test (=, ==, !=, in, notin, exists)")
}
