package emulator

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// The checks here run on PUT and PATCH before anything is stored, with
// ARM's error codes. Each refuses only what ARM refuses: unknown
// properties (outside Microsoft.Network, unknownmembers.go) and
// api-versions newer than the schema index are accepted, and quoted
// numbers and booleans are converted (coerce.go).

// armFirstVersion is the date of ARM's first api-versions (2014); nothing
// dated before it was ever served.
const armFirstVersion = "2014-01-01"

var apiVersionRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(-[A-Za-z0-9.]+)?$`)

// versionChecker is implemented by schema registries that know every
// api-version a type has.
type versionChecker interface {
	HasVersion(typ, version string) bool
}

// checkTypeAndVersion refuses malformed api-versions, types unknown in a
// namespace the index knows, and versions older than any the index knows
// or dated in the future.
func (s *Server) checkTypeAndVersion(p armid.Path, apiVersion string) *armError {
	if !apiVersionRE.MatchString(apiVersion) {
		return newError(http.StatusBadRequest, "InvalidApiVersionParameter",
			"The api-version '%s' is invalid. The supported versions are 'yyyy-mm-dd' dates, optionally with a suffix such as '-preview'.", apiVersion)
	}
	typ := p.Type()
	tl, ok := s.opts.Schema.(typeLister)
	if !ok || tl == nil || p.Kind == armid.PathResourceGroup {
		return nil
	}
	if vc, ok := s.opts.Schema.(versionChecker); ok && vc.HasVersion(typ, apiVersion) {
		return nil // the common case, without copying the version list
	}
	versions := tl.Versions(typ)
	if len(versions) == 0 {
		if s.knownNamespace(p.Provider) {
			return newError(http.StatusBadRequest, "InvalidResourceType",
				"The resource type '%s' could not be found in the namespace '%s' for api version '%s'. Check the type's spelling (GET /subscriptions/{id}/providers/%s lists the types).",
				strings.Join(p.Types, "/"), p.Provider, apiVersion, p.Provider)
		}
		return nil
	}
	sorted := append([]string(nil), versions...)
	sort.Strings(sorted)
	date := apiVersion[:10]
	today := s.now().UTC().Format(time.DateOnly)
	for _, v := range sorted {
		if strings.EqualFold(v, apiVersion) {
			return nil
		}
	}
	if date >= armFirstVersion && date <= today {
		// Neither the specs nor the recordings know every version ARM
		// serves: specs drop retired previews (real traffic used
		// Microsoft.NetworkCloud@2023-10-01-preview, HybridCompute
		// machines@2023-04-25-preview), a type's spec can lack a version
		// its namespace serves (a template's backupstorageconfig@2020-02-02,
		// the SFTP quickstart's localUsers@2021-04-01), and the index may
		// predate a new one. For a known type a well-formed version dated
		// between ARM's first release and today is accepted rather than
		// refused; only versions from the future are refused here
		// (TestRecordedVersionsAreServed measures this on the corpus).
		return nil
	}
	newest := append([]string(nil), sorted...)
	sort.Sort(sort.Reverse(sort.StringSlice(newest)))
	return newError(http.StatusBadRequest, "NoRegisteredProviderFound",
		"No registered resource provider found for location 'global' and API version '%s' for type '%s'. The supported api-versions are '%s'.",
		apiVersion, strings.Join(p.Types, "/"), strings.Join(newest, ", "))
}

func (s *Server) knownNamespace(ns string) bool {
	s.nsOnce.Do(func() {
		s.namespaces = map[string]bool{}
		if tl, ok := s.opts.Schema.(typeLister); ok && tl != nil {
			for _, t := range tl.Types() {
				if n, _, ok := strings.Cut(t, "/"); ok {
					s.namespaces[strings.ToLower(n)] = true
				}
			}
		}
	})
	return s.namespaces[strings.ToLower(ns)]
}

// Name rules per type, as the RPs enforce them; other types get ARM's
// generic rule.
var nameRules = map[string]struct {
	re   *regexp.Regexp
	rule string
}{
	"microsoft.storage/storageaccounts":                     {regexp.MustCompile(`^[a-z0-9]{3,24}$`), "3-24 characters, lower-case letters and digits only"},
	"microsoft.keyvault/vaults":                             {regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]{1,22}[A-Za-z0-9]$`), "3-24 characters, letters, digits and hyphens, starting with a letter and ending with a letter or digit"},
	"microsoft.resources/resourcegroups":                    {regexp.MustCompile(`^[-\w._()]{0,89}[-\w_()]$`), "1-90 characters: letters, digits, underscores, hyphens, periods and parentheses, not ending in a period"},
	"microsoft.containerregistry/registries":                {regexp.MustCompile(`^[A-Za-z0-9]{5,50}$`), "5-50 letters and digits"},
	"microsoft.managedidentity/userassignedidentities":      {regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{2,127}$`), "3-128 characters: letters, digits, hyphens and underscores, starting with a letter or digit"},
	"microsoft.containerservice/managedclusters":            {regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$`), "1-63 characters: letters, digits, underscores and hyphens, starting and ending with a letter or digit"},
	"microsoft.containerservice/managedclusters/agentpools": {regexp.MustCompile(`^[a-z][a-z0-9]{0,11}$`), "1-12 lower-case letters and digits, starting with a letter"},
}

var guidRE = regexp.MustCompile(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)

// validateName applies the type's name rule; nil when the name is fine.
func validateName(typ, name string) *armError {
	if err := armid.ValidateName(name); err != nil {
		return newError(http.StatusBadRequest, "InvalidResourceName", "The resource name '%s' is invalid: %v.", armid.Printable(name), err)
	}
	lt := strings.ToLower(typ)
	if r, ok := nameRules[lt]; ok && !r.re.MatchString(name) {
		code := "InvalidResourceName"
		switch lt {
		case "microsoft.storage/storageaccounts":
			code = "AccountNameInvalid"
		case "microsoft.keyvault/vaults":
			code = "VaultNameNotValid"
		case "microsoft.resources/resourcegroups":
			code = "InvalidResourceGroupName"
		}
		return newError(http.StatusBadRequest, code, "'%s' is not a valid name for %s: %s.", name, typ, r.rule)
	}
	if lt == "microsoft.authorization/roleassignments" && !guidRE.MatchString(name) {
		return newError(http.StatusBadRequest, "InvalidRoleAssignmentId",
			"The role assignment ID '%s' is not valid. The role assignment ID must be a GUID.", name)
	}
	if len(name) > 260 || strings.ContainsAny(name, `<>%&:\?/*#`) || strings.HasSuffix(name, ".") {
		return newError(http.StatusBadRequest, "InvalidResourceName",
			"The resource name '%s' is invalid: names may not contain <>%%&:\\?/*# nor end in a period.", name)
	}
	return nil
}

// checkFixedName refuses a create under another name than the type's
// fixed ones (schema's FixedNames, the list the CLI checks metadata.name
// against). The Storage RP answers 404 HttpResourceNotFound "The request
// url … is not found." (pulumi/pulumi-azure-native issue 4022 for
// blobServices/blob-service-properties, Azure/bicep issue 17199 for
// managementPolicies). What other RPs answer is not public: 400
// InvalidResourceName, the code ARM uses for names a type refuses.
func checkFixedName(p armid.Path, apiVersion string, t *schema.Type) *armError {
	if t == nil || p.Kind != armid.PathResource {
		return nil
	}
	names := t.FixedNames()
	if len(names) == 0 {
		return nil
	}
	for _, n := range names {
		if strings.EqualFold(n, p.Name()) {
			return nil
		}
	}
	if strings.EqualFold(p.Provider, "Microsoft.Storage") {
		return newError(http.StatusNotFound, "HttpResourceNotFound",
			"The request url %s?api-version=%s is not found. A %s is always named '%s'.", p.Raw, apiVersion, p.Type(), strings.Join(names, "', '"))
	}
	return newError(http.StatusBadRequest, "InvalidResourceName",
		"The resource name '%s' is invalid: a %s must be named '%s'.", p.Name(), p.Type(), strings.Join(names, "' or '"))
}

// checkLocation requires a location on tracked resources and a real region.
func checkLocation(p armid.Path, f typeFacts, body map[string]any) *armError {
	raw, present := body["location"]
	loc, isStr := raw.(string)
	if !present || raw == nil || (isStr && loc == "") {
		if tracked(p, f) {
			return newError(http.StatusBadRequest, "LocationRequired",
				"The location property is required for this definition. Set body.location to a region such as 'westeurope'.")
		}
		return nil
	}
	if !isStr {
		return errInvalidContent("location", schema.TypeString, raw)
	}
	if knownLocation(loc) {
		return nil
	}
	if p.Kind == armid.PathResourceGroup {
		return newError(http.StatusBadRequest, "LocationNotAvailableForResourceGroup",
			"The provided location '%s' is not available for resource group. List of available regions is '%s'.", loc, strings.Join(sortedRegionKeys(), ","))
	}
	return newError(http.StatusBadRequest, "LocationNotAvailableForResourceType",
		"The provided location '%s' is not available for resource type '%s'. List of available regions for the resource type is '%s'.",
		loc, p.Type(), strings.Join(sortedRegionKeys(), ","))
}

func sortedRegionKeys() []string {
	out := make([]string, 0, len(regions))
	for k := range regions {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// tracked reports whether a type needs a location: resource groups, and
// top-level resources whose spec requires one.
func tracked(p armid.Path, f typeFacts) bool {
	if p.Kind == armid.PathResourceGroup {
		return true
	}
	// Only resources directly in a resource group: subscription-level and
	// extension resources (policy, role and diagnostic settings) mostly
	// take no location or an optional one.
	if f.schema == nil || len(p.Names) != 1 || p.ResourceGroup == "" || !strings.EqualFold(p.Scope, groupID(p)) {
		return false
	}
	switch strings.ToLower(p.Provider) {
	case "microsoft.authorization", "microsoft.resources", "microsoft.insights", "microsoft.security", "microsoft.management":
		return false
	}
	return requiredProp(f.schema, "location")
}

// errInvalidContent is ARM's answer to a value its JSON reader cannot
// convert: 400 InvalidRequestContent, "The request content was invalid and
// could not be deserialized: 'Error converting value … to type '…'. Path
// '…'…'." (ARM's wording and code in Azure/azure-sdk-for-net issue 3487,
// and in the deployment errors "Error converting value \"…\" to type '…'.
// Path 'properties.parameters.…'" quoted in public docs). The .NET type
// names stand for the spec's JSON types; each RP's model type names are
// not public.
func errInvalidContent(path string, want schema.JSONType, got any) *armError {
	b, _ := json.Marshal(got)
	return newError(http.StatusBadRequest, "InvalidRequestContent",
		"The request content was invalid and could not be deserialized: 'Error converting value %s to type '%s'. Path '%s'.'. Send %s there.", truncate(string(b), 60), dotnetType(want), path, withArticle(want))
}

func withArticle(t schema.JSONType) string {
	switch t {
	case schema.TypeInteger, schema.TypeObject, schema.TypeArray:
		return "an " + string(t)
	}
	return "a " + string(t)
}

// dotnetType names a spec JSON type as ARM's deserialiser does in its
// conversion errors.
func dotnetType(want schema.JSONType) string {
	switch want {
	case "string":
		return "System.String"
	case "integer":
		return "System.Int32"
	case "number":
		return "System.Double"
	case "boolean":
		return "System.Boolean"
	case "array":
		return "System.Object[]"
	case "object":
		return "System.Object"
	}
	return string(want)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// checkJSONTypes refuses values whose JSON type cannot be converted to the
// spec's: an object where a string is declared, a string where an object
// or array is. Strings holding numbers or booleans convert, as in ARM.
func checkJSONTypes(t *schema.Type, body map[string]any) *armError {
	if t == nil {
		return nil
	}
	return walkBody(body, nil, func(v any, concrete []string) *armError {
		if len(concrete) == 0 {
			return nil
		}
		if _, prop := t.Resolve(concrete); prop != nil && !prop.ReadOnly && !convertible(v, prop.Type) {
			return errInvalidContent(schema.JoinPath(concrete), prop.Type, v)
		}
		return nil
	})
}

// walkBody calls visit on v and then on every value under it, depth
// first, with its concrete path (member names, "[i]" for array items).
// The first error visit returns stops the walk.
func walkBody(v any, concrete []string, visit func(v any, concrete []string) *armError) *armError {
	if err := visit(v, concrete); err != nil {
		return err
	}
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if err := walkBody(c, append(slices.Clip(concrete), k), visit); err != nil {
				return err
			}
		}
	case []any:
		for i, c := range x {
			if err := walkBody(c, append(slices.Clip(concrete), "["+itoa(i)+"]"), visit); err != nil {
				return err
			}
		}
	}
	return nil
}

func itoa(i int) string { return strconv.Itoa(i) }

// convertible reports whether ARM's deserializer accepts v for a property
// of JSON type want.
func convertible(v any, want schema.JSONType) bool {
	if v == nil || want == "" {
		return true
	}
	switch want {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		switch v.(type) {
		case map[string]any, []any:
			return false
		}
		return true
	case "integer", "number":
		switch x := v.(type) {
		case json.Number, float64, int, int64:
			return true
		case string:
			// An empty string is no value to the services' JSON readers
			// (a public template that deploys writes a PostgreSQL sku
			// capacity "").
			_, ok := parseNumber(x)
			return ok || x == ""
		}
		return false
	case "boolean":
		switch x := v.(type) {
		case bool:
			return true
		case string:
			l := strings.ToLower(x)
			return l == "true" || l == "false"
		}
		return false
	}
	return true
}

// requiredProp reports whether the spec requires the top-level property.
// Specs without required markers (Swagger-only types) count a writable
// location as required, which holds for tracked ARM resources.
func requiredProp(t *schema.Type, name string) bool {
	p := t.Prop(name)
	if p == nil || p.ReadOnly {
		return false
	}
	if t.Detailed {
		return p.Required
	}
	return true
}

// checkBody runs the schema's validation and refuses what it is certain
// of: values ARM cannot convert, and on create the top-level properties
// the spec requires. Everything else (unknown properties, open enums,
// limits) ARM leaves to the service, and so does the emulator; the one
// service known to refuse unknown properties is checked apart
// (checkUnknownMembers).
func checkBody(t *schema.Type, name string, body map[string]any, create bool) *armError {
	if t == nil {
		return nil
	}
	for _, is := range t.ValidateWith(body, schema.ValidateOptions{Name: name, Create: create}) {
		if is.Severity != schema.Error {
			continue
		}
		switch is.Kind {
		case schema.KindType:
			return newError(http.StatusBadRequest, "InvalidRequestContent",
				"The request content was invalid and could not be deserialized: %s. Fix the value at '%s'.", is.Message, is.Path)
		case schema.KindRequired:
			if strings.EqualFold(is.Path, "location") {
				continue // checkLocation answers with ARM's own code
			}
			return newError(http.StatusBadRequest, "InvalidRequestContent",
				"The request content was invalid and could not be deserialized: required property '%s' not found in JSON. Add it to the body.", is.Path)
		}
	}
	return nil
}
