// Package importer adopts existing Azure resources: it reads them from ARM,
// turns each GET body into the manifest a person would have written (no
// readonly fields, no envelope, no schema defaults, no secrets, references
// instead of hard-coded IDs) and records them in state so that the first
// diff after an import is empty (see docs/import.md).
package importer

import (
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Options say what to import and how. DefaultOptions is the one place their
// defaults live; the CLI overwrites fields from flags.
type Options struct {
	// IDs are ARM resource IDs to import.
	IDs []string
	// ResourceGroup imports every resource ARM lists in this group.
	ResourceGroup string
	// Subscription is the subscription the manifests are written for: IDs
	// in it are emitted as spec.resourceGroup / ${subscriptionId} rather
	// than hard-coded. Empty: the subscription of the imported IDs when
	// they all agree.
	Subscription string
	// Children also imports the child collections listed in
	// ChildCollections (subnets, NSG rules, routes, ...) as resources of
	// their own, and leaves them out of their parent's body.
	Children bool
	// APIVersion pins the api-version of every imported resource.
	APIVersion string
	// APIVersions pins the api-version per resource type (keys compare
	// case-insensitively); it wins over APIVersion.
	APIVersions map[string]string
	// Concurrency bounds parallel reads; 0 takes the ARM client's default.
	Concurrency int
	// Set is the manifest set the records are filed under in state.
	Set string
	// Record writes the imported resources to state (L and B), so the
	// first diff is empty. Without it only manifests are produced.
	Record bool
	// KeepUnknown keeps properties the type's schema does not declare
	// (by default they are left out and listed in a comment).
	KeepUnknown bool
	// MaxVersionAttempts bounds how many api-versions are tried, newest
	// stable first, when ARM rejects one.
	MaxVersionAttempts int
	// RecordConcurrency bounds parallel state writes; concurrent writes
	// let the local backend group-commit them into one file write.
	RecordConcurrency int
}

// DefaultOptions returns the defaults.
func DefaultOptions() Options {
	return Options{
		Set:                state.DefaultSet,
		Record:             true,
		MaxVersionAttempts: 4,
		RecordConcurrency:  32,
	}
}

// ProviderAPIVersion is the Microsoft.Resources api-version used to ask ARM
// which api-versions a resource type the schema does not know supports.
const ProviderAPIVersion = arm.ListResourceGroupAPIVersion

// ResourceGroupAPIVersion reads resource groups (the schema index holds
// provider types only).
const ResourceGroupAPIVersion = arm.ListResourceGroupAPIVersion

// ParseAPIVersionFlag reads one --api-version value: "VERSION" pins every
// resource, "TYPE=VERSION" one type. It fills o.
func (o *Options) ParseAPIVersionFlag(v string) error {
	v = strings.TrimSpace(v)
	if typ, ver, ok := strings.Cut(v, "="); ok {
		typ, ver = strings.TrimSpace(typ), strings.TrimSpace(ver)
		if typ == "" || ver == "" || !strings.Contains(typ, "/") {
			return fmt.Errorf("--api-version %q: write VERSION or TYPE=VERSION, e.g. Microsoft.Network/virtualNetworks=2023-09-01", v)
		}
		if o.APIVersions == nil {
			o.APIVersions = map[string]string{}
		}
		o.APIVersions[strings.ToLower(typ)] = ver
		return nil
	}
	if v == "" {
		return fmt.Errorf("--api-version is empty: write VERSION or TYPE=VERSION")
	}
	if o.APIVersion != "" && o.APIVersion != v {
		return fmt.Errorf("--api-version given twice (%s, %s): pin one version for all, or use TYPE=VERSION per type", o.APIVersion, v)
	}
	o.APIVersion = v
	return nil
}

// pinned returns the api-version the user pinned for a type, or "".
// A version pinned for everything does not apply to resource groups:
// Microsoft.Resources versions are unrelated to the providers' ones.
func (o *Options) pinned(typ string) string {
	if v, ok := o.APIVersions[strings.ToLower(typ)]; ok {
		return v
	}
	if strings.EqualFold(typ, "Microsoft.Resources/resourceGroups") {
		return ""
	}
	return o.APIVersion
}
