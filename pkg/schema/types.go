// Package schema holds what Azure's API descriptions say about each
// resource type and api-version: which properties are required, readonly,
// create-only, write-only, secret, defaulted, enumerated, ARM IDs, their
// limits and descriptions, how array items are identified, and how
// polymorphic bodies are selected.
//
// Property paths are dotted from the body root ("properties.networkAcls.bypass").
// An array item is the segment "[]" and a map value (additionalProperties)
// is the segment "*", e.g. "properties.subnets[].properties.addressPrefix",
// "tags.*". A schema path is a Path, built only by its methods (Member,
// Item, MapValue, Child) and PathOf. Concrete paths into a body
// ("properties.subnets[2].name") map to schema paths with PathOf or
// SchemaPath, or with Type.Resolve when map keys may occur ("tags.env" ->
// "tags.*").
//
// Entry points:
//   - Default() is the index embedded in the binary, generated from the
//     Bicep type index (every api-version, preview included) merged with
//     the ARM Swagger (make schema; docs/schema.md). Nothing is decoded at
//     import or by Default(); the type list is read on first use, each
//     type on its first Lookup, descriptions only when asked for.
//   - Open(dir) generates an index from a user's azure-rest-api-specs
//     checkout (--schema-dir) with the same generator, cached on disk.
//   - Registry.Lookup(type, apiVersion) returns a *Type, falling back to
//     the nearest api-version with a warning; nil for unknown types.
//     HasVersion, Providers, TypesOf, ImportVersion answer the rest.
//   - Type.ValidateWith checks a request body (pkg/manifest), Type.ArrayKeys
//     says how to match array items (pkg/diff), Explain renders
//     `kubectl azure explain`.
//
// The generator lives in internal/specgen (run by internal/gen), the
// index encoding in internal/format.
package schema

// JSONType is the JSON type of a property value as the spec declares it.
type JSONType string

const (
	TypeUnknown JSONType = ""
	TypeString  JSONType = "string"
	TypeInteger JSONType = "integer"
	TypeNumber  JSONType = "number"
	TypeBoolean JSONType = "boolean"
	TypeObject  JSONType = "object"
	TypeArray   JSONType = "array"
)

// Property is what the spec says about one property path.
type Property struct {
	Type       JSONType `json:"t,omitempty"`
	ReadOnly   bool     `json:"ro,omitempty"`
	CreateOnly bool     `json:"co,omitempty"` // x-ms-mutability without "update"
	Secret     bool     `json:"s,omitempty"`  // x-ms-secret or format: password
	WriteOnly  bool     `json:"wo,omitempty"` // in the PUT model, absent from the GET model
	Default    any      `json:"d,omitempty"`
	Enum       []string `json:"e,omitempty"`
	EnumClosed bool     `json:"ec,omitempty"` // x-ms-enum.modelAsString == false
	ARMID      bool     `json:"id,omitempty"` // format: arm-id
	// Identifiers names the keys that identify items of an array of objects
	// (x-ms-identifiers). Nil means the spec does not say; an empty non-nil
	// slice means items are positional.
	Identifiers []string `json:"k,omitempty"`
	// Positional is true when the spec says x-ms-identifiers: [] (order matters).
	Positional bool `json:"p,omitempty"`
	// Required: the body must carry the property when the resource is
	// created (Bicep's Required flag).
	Required bool `json:"rq,omitempty"`
	// Secret above also covers Bicep's "sensitive" marker: one flag says
	// "never print or store this value".
	//
	// Limits from the spec; nil when it states none.
	MinLength *int64 `json:"minLen,omitempty"`
	MaxLength *int64 `json:"maxLen,omitempty"`
	MinValue  *int64 `json:"min,omitempty"`
	MaxValue  *int64 `json:"max,omitempty"`
	Pattern   string `json:"pat,omitempty"`
	// Discriminator names the member whose value selects the body of
	// this polymorphic object ("kind"); Variants lists the discriminator
	// values whose body declares this path (nil: every body has it).
	Discriminator string   `json:"disc,omitempty"`
	Variants      []string `json:"var,omitempty"`
	// FromNearestSwagger: identifiers, create-only, default or arm-id
	// came from a Swagger of another api-version (Type.FactsFrom).
	FromNearestSwagger bool `json:"nsw,omitempty"`
	// Description is not filled in by Lookup, to keep it fast; use
	// Type.Description.
	Description string `json:"-"`
}

// Type is what the spec says about one (resource type, api-version).
type Type struct {
	Name       string               `json:"n"` // e.g. Microsoft.Storage/storageAccounts
	APIVersion string               `json:"v"`
	Properties map[string]*Property `json:"p"`
	// PatchSupported is true when the resource path has a PATCH operation.
	PatchSupported bool `json:"pa,omitempty"`
	// PatchPaths lists the property paths the PATCH body model accepts
	// (same path syntax as Properties). Empty with PatchSupported means
	// the model is unknown and any path is assumed accepted.
	PatchPaths []string `json:"pp,omitempty"`
	HasEtag    bool     `json:"et,omitempty"`
	PutLRO     bool     `json:"pl,omitempty"`
	DeleteLRO  bool     `json:"dl,omitempty"`
	// PutStatus and DeleteStatus are the HTTP codes the spec's PUT and
	// DELETE declare (storage accounts: 200, 202); nil when unknown.
	PutStatus    []int `json:"ps,omitempty"`
	DeleteStatus []int `json:"ds,omitempty"`
	// Discriminator of the body root: a member name ("kind"), or "name"
	// when the resource name selects the body (Microsoft.Web/sites/config:
	// appsettings, connectionstrings, web...). Empty for most types.
	Discriminator string `json:"disc,omitempty"`
	// FactsFrom is the Swagger api-version that supplied PATCH support,
	// identifiers, create-only and defaults: APIVersion itself, a
	// neighbour (explain says so), or "" when no Swagger has the type.
	FactsFrom string `json:"ff,omitempty"`
	// Detailed: the version comes from the Bicep type index, so required,
	// write-only and sensitive markers and descriptions are known.
	Detailed bool `json:"bt,omitempty"`

	// fallback: returned by Lookup for another api-version than asked;
	// validation then never reports errors.
	fallback bool
	x        *typeExtra
}

// Fallback reports whether Lookup answered with another api-version than
// the one asked for.
func (t *Type) Fallback() bool { return t != nil && t.fallback }

// Prop returns the facts for a schema path ("properties.subnets[].name"),
// or nil when the spec does not describe it. It takes a string, as
// Properties is keyed (the index's encoding); pass a Path as string(p).
func (t *Type) Prop(path string) *Property {
	if t == nil {
		return nil
	}
	return t.Properties[path]
}

// Resolution says how a lookup was satisfied.
type Resolution struct {
	Found      bool   `json:"found"`                // a schema was returned
	APIVersion string `json:"apiVersion,omitempty"` // the api-version of the returned schema
	Nearest    bool   `json:"nearest,omitempty"`    // the requested api-version was missing; a neighbour was used
	Warning    string `json:"warning,omitempty"`    // human-readable note for Nearest or not found
}
