package emulatortest

import "strings"

// Doc is one Resource document of a test's manifests. YAML writes it in
// the block layout people write by hand, so a test that edits the text
// (to break a line, say) edits what a user would.
type Doc struct {
	Name string
	// Labels is a flow map such as "{suite: a}"; empty for none.
	Labels string
	// Type is type@apiVersion.
	Type string
	// Place is the spec line that places the resource ("resourceGroup:
	// rg-a", "parent: …", "scope: …"); empty for a resource group.
	Place string
	// Body holds the body's lines as they stand under body:.
	Body []string
}

// YAML renders the document.
func (d Doc) YAML() string {
	var b strings.Builder
	b.WriteString("apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: " + d.Name + "\n")
	if d.Labels != "" {
		b.WriteString("  labels: " + d.Labels + "\n")
	}
	b.WriteString("spec:\n  type: " + d.Type + "\n")
	if d.Place != "" {
		b.WriteString("  " + d.Place + "\n")
	}
	b.WriteString("  body:\n")
	for _, l := range d.Body {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// Manifests joins documents into one multi-document file.
func Manifests(docs ...Doc) string {
	parts := make([]string, len(docs))
	for i, d := range docs {
		parts[i] = d.YAML()
	}
	return strings.Join(parts, "---\n")
}

// Group is a managed resource group in westeurope; more are further body
// lines (tags, say).
func Group(name string, more ...string) Doc {
	return Doc{Name: name, Type: "Microsoft.Resources/resourceGroups@2021-04-01",
		Body: append([]string{"location: westeurope"}, more...)}
}

// Identity is a user-assigned identity in group, in westeurope; more are
// further body lines.
func Identity(name, group string, more ...string) Doc {
	return Doc{Name: name, Type: "Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31", Place: "resourceGroup: " + group,
		Body: append([]string{"location: westeurope"}, more...)}
}

// VNet is a virtual network in group, in westeurope, with one address
// prefix; more are further body lines before its properties.
func VNet(name, group, prefix string, more ...string) Doc {
	body := append([]string{"location: westeurope"}, more...)
	return Doc{Name: name, Type: "Microsoft.Network/virtualNetworks@2024-01-01", Place: "resourceGroup: " + group,
		Body: append(body, "properties:", `  addressSpace: {addressPrefixes: ["`+prefix+`"]}`)}
}
