package manifest

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

var (
	typeRE       = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z0-9]+)+(/[A-Za-z][A-Za-z0-9_-]*)+$`)
	apiVersionRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(-[A-Za-z][A-Za-z0-9.]*)?$`)
)

var specFields = map[string]bool{"type": true, "name": true, "id": true, "resourceGroup": true, "parent": true, "scope": true, "body": true}

// envelope checks apiVersion, kind, metadata and spec.type of one document.
func (l *loader) envelope(d document) *entry {
	o := d.origin
	ok := true
	bad := func(path, format string, args ...any) {
		l.ps.add(o, path, format, args...)
		ok = false
	}
	if av, _ := d.obj["apiVersion"].(string); strings.HasPrefix(av, "kustomize.config.k8s.io/") {
		bad("", "this is a kustomization file, not a Resource; load its directory with -k")
		return nil
	}
	switch av, _ := d.obj["apiVersion"].(string); {
	case d.obj["apiVersion"] == nil:
		bad("apiVersion", "missing; set apiVersion: %s", APIVersion)
	case av != APIVersion:
		bad("apiVersion", "%s is not supported; use %s", quote(d.obj["apiVersion"]), APIVersion)
	}
	switch k, _ := d.obj["kind"].(string); {
	case d.obj["kind"] == nil:
		bad("kind", "missing; set kind: %s", Kind)
	case k != Kind:
		bad("kind", "%s is not supported; use %s", quote(d.obj["kind"]), Kind)
	}
	for k := range d.obj {
		switch k {
		case "apiVersion", "kind", "metadata", "spec":
		default:
			bad(k, "unknown field; a Resource has apiVersion, kind, metadata and spec")
		}
	}
	res := &Resource{Origin: o}
	meta, isMap := d.obj["metadata"].(map[string]any)
	if !isMap {
		if d.obj["metadata"] == nil {
			bad("metadata.name", "missing; set metadata.name to the ARM resource name")
		} else {
			bad("metadata", "must be a mapping with name (and optionally labels)")
		}
	} else {
		n, isStr := meta["name"].(string)
		res.Symbol = n
		switch {
		case meta["name"] == nil || (isStr && strings.TrimSpace(n) == ""):
			bad("metadata.name", "missing; set metadata.name to the ARM resource name")
		case !isStr:
			bad("metadata.name", "must be a string, got %s", jsonKind(meta["name"]))
		case strings.Contains(n, "${"):
			res.Name = n // an expression: resolved with the ID
		default:
			if err := validName(n); err != nil {
				bad("metadata.name", "%q is not a valid ARM resource name: %v; a child resource's name is its last segment only, with spec.parent naming the parent", n, err)
			}
			res.Name = n
		}
		if lv := meta["labels"]; lv != nil {
			res.Labels = l.share(stringMap(lv, "metadata.labels", "label values must be strings; quote it", nil, bad))
		}
		if av := meta["annotations"]; av != nil {
			res.Annotations = l.share(stringMap(av, "metadata.annotations", "annotation values must be strings; quote it (e.g. \"true\")", checkAnnotation, bad))
		}
	}
	e := &entry{res: res}
	spec, isMap := d.obj["spec"].(map[string]any)
	if !isMap {
		if d.obj["spec"] == nil {
			bad("spec.type", "missing; set spec.type to TYPE@API-VERSION, e.g. Microsoft.Storage/storageAccounts@2023-05-01")
		} else {
			bad("spec", "must be a mapping with type, body and a placement (resourceGroup, parent, scope or id)")
		}
		return nil
	}
	str := func(k string) string { s, _ := spec[k].(string); return s }
	ok0 := ok // the envelope so far is sound
	e.symbol = res.Name
	e.namePath = "metadata.name"
	e.sourceName = d.sourceName
	if v, present := spec["name"]; present {
		// spec.name is the ARM name; metadata.name is then only the
		// symbolic name references use, which kustomize may rename freely.
		n, isStr := v.(string)
		switch {
		case !isStr:
			bad("spec.name", "must be a string (the ARM name), got %s", jsonKind(v))
		case strings.TrimSpace(n) == "":
			bad("spec.name", "is empty; give the ARM name, or remove spec.name to use metadata.name")
		case strings.Contains(res.Name, "${"):
			bad("metadata.name", "is the symbolic name when spec.name is set: write a plain name here (e.g. app-reader) and the placeholders in spec.name")
		case !strings.Contains(n, "${"):
			if err := validName(n); err != nil {
				bad("spec.name", "%q is not a valid ARM resource name: %v", n, err)
			}
			fallthrough
		default:
			res.Name = n
			e.namePath = "spec.name"
		}
	}
	e.spec = specStrings{typ: str("type"), id: str("id"), resourceGroup: str("resourceGroup"), parent: str("parent"), scope: str("scope")}
	keys := slices.Sorted(maps.Keys(spec))
	for _, k := range keys {
		if !specFields[k] {
			// The golden messages in testdata/bad name the fields without
			// spec.name (optional, rarely the one misspelt).
			bad("spec."+k, "unknown field; spec has type, id, resourceGroup, parent, scope and body")
		}
	}
	for _, k := range []string{"id", "resourceGroup", "parent", "scope"} {
		if v, present := spec[k]; present && v != nil {
			if _, isStr := v.(string); !isStr {
				bad("spec."+k, "must be a string, got %s", jsonKind(v))
			}
		}
	}
	t, tok := l.parseType(o, spec["type"])
	if !tok {
		ok = false
		if t != nil && ok0 && res.Name != "" {
			// Only the api-version is wrong: keep the entry (failed) so
			// references to it are not reported as missing too.
			res.Type = t.full
			e.typ = t
			e.state = idFailed
			return e
		}
	}
	e.typ = t
	switch b := spec["body"].(type) {
	case nil:
		e.body = map[string]any{}
	case map[string]any:
		e.body = b
	default:
		bad("spec.body", "must be a mapping (the ARM request body), got %s", jsonKind(b))
	}
	if e.existing = res.Annotations[AnnotationExisting] == "true"; e.existing {
		for _, k := range existingRefuses {
			if res.Annotations[k] != "" {
				bad("metadata.annotations."+k, "means nothing on a resource annotated %s: true, which this set only reads; remove one of the two", AnnotationExisting)
			}
		}
		if len(e.body) > 0 {
			bad("spec.body", "a resource annotated %s: true is only read, never written: remove spec.body, or remove the annotation to manage the resource", AnnotationExisting)
		}
	}
	if !ok {
		return nil
	}
	res.Type = t.full
	return e
}

// parseType parses spec.type; resources of one spec.type share the result.
func (l *loader) parseType(o Origin, v any) (*typeName, bool) {
	var t *typeName
	s, isStr := v.(string)
	switch {
	case v == nil || (isStr && strings.TrimSpace(s) == ""):
		l.ps.add(o, "spec.type", "missing; set spec.type to TYPE@API-VERSION, e.g. Microsoft.Storage/storageAccounts@2023-05-01")
		return t, false
	case !isStr:
		l.ps.add(o, "spec.type", "must be a string TYPE@API-VERSION, got %s", jsonKind(v))
		return t, false
	}
	if t, ok := l.types[s]; ok {
		return t, true
	}
	typ, ver, found := strings.Cut(s, "@")
	if !found || ver == "" {
		l.ps.add(o, "spec.type", "%q has no api-version; write %s@API-VERSION (`kubectl azure explain %s` lists the known versions)", s, typ, typ)
		return t, false
	}
	ok := true
	if !typeRE.MatchString(typ) {
		l.ps.add(o, "spec.type", "%q is not a resource type; write Namespace/type[/childType...], e.g. Microsoft.Network/virtualNetworks/subnets", typ)
		return nil, false
	}
	parts := strings.Split(typ, "/")
	t = &typeName{full: typ, namespace: parts[0], types: parts[1:]}
	if !apiVersionRE.MatchString(ver) || !validDate(ver) {
		msg := fmt.Sprintf("api-version %q is malformed; use YYYY-MM-DD or YYYY-MM-DD-preview", ver)
		if s := schema.SuggestVersions(l.opts.Versions(typ), ver, 1); len(s) > 0 {
			msg += "; did you mean " + s[0] + "?"
		}
		l.ps.add(o, "spec.type", "%s", msg)
		// The type is still known: references to the resource are not
		// reported as missing on top of this one problem.
		return t, false
	}
	// Sets repeat a few types many times: parse each once.
	if l.types == nil {
		l.types = map[string]*typeName{}
	}
	l.types[s] = t
	return t, ok
}

// validDate reports whether an api-version starts with a real date
// (2023-13-01 is no version of anything).
func validDate(v string) bool {
	_, err := time.Parse("2006-01-02", v[:10])
	return err == nil
}

// validName applies ARM's segment rules (armid.ValidateName) and refuses
// leading spaces, which ARM keeps but no one means.
func validName(n string) error {
	if strings.HasPrefix(n, " ") {
		return fmt.Errorf("starts with a space")
	}
	return armid.ValidateName(n)
}

// Annotations the tool acts on.
const (
	// AnnotationPreventDestroy "true" refuses any plan that deletes or
	// replaces the resource.
	AnnotationPreventDestroy = "azure.kubectl.io/prevent-destroy"
	// AnnotationIgnoreChanges lists body paths (comma-separated, globs
	// with * allowed) that are never compared, written or drift.
	AnnotationIgnoreChanges = "azure.kubectl.io/ignore-changes"
	// AnnotationDependsOn lists resources (NAME or TYPE/NAME, as ${ref:...}
	// names them, comma-separated) that must be written before this one
	// and deleted after it although no field of the body names them: a
	// template's dependsOn for an ordering only the service knows.
	AnnotationDependsOn = "azure.kubectl.io/depends-on"
	// AnnotationDriftPolicy "detect" or "correct" overrides the
	// controller's --drift-policy for the resource (pkg/reconcile).
	AnnotationDriftPolicy = "azure.kubectl.io/drift-policy"
	// AnnotationDeletionPolicy "orphan" or "delete" says what deleting
	// the controller's Resource object does to the resource; a manifest
	// file removed from a set never deletes anything, whatever it says.
	AnnotationDeletionPolicy = "azure.kubectl.io/deletion-policy"
	// AnnotationExisting "true" declares a resource this set reads but does
	// not manage (Bicep's `existing`): its live values and actions feed
	// other resources; it is never written, deleted or recorded, and it
	// must exist in Azure.
	AnnotationExisting = "azure.kubectl.io/existing"
)

// existingRefuses are the annotations that act on writes and deletes, which
// an existing resource never has.
var existingRefuses = []string{AnnotationPreventDestroy, AnnotationIgnoreChanges, AnnotationDependsOn, AnnotationDriftPolicy, AnnotationDeletionPolicy}

// annotationPrefix is the prefix of the tool's own annotation keys.
const annotationPrefix = "azure.kubectl.io/"

var knownAnnotations = []string{AnnotationPreventDestroy, AnnotationIgnoreChanges, AnnotationDependsOn, AnnotationDriftPolicy, AnnotationDeletionPolicy, AnnotationExisting}

// stringMap reads metadata.labels or metadata.annotations at path: a
// mapping whose values are strings (notString says how to fix one that is
// not) and pass check, when given. Entries that fail are reported with bad
// and left out; the result is nil when v is not a mapping.
func stringMap(v any, path, notString string, check func(k, v string) string, bad func(path, format string, args ...any)) map[string]string {
	m, isMap := v.(map[string]any)
	if !isMap {
		bad(path, "must be a mapping of strings")
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, isStr := v.(string)
		if !isStr {
			bad(path+"."+k, "%s", notString)
			continue
		}
		if check != nil {
			if msg := check(k, s); msg != "" {
				bad(path+"."+k, "%s", msg)
				continue
			}
		}
		out[k] = s
	}
	return out
}

// share returns the map this load already holds with the same entries as
// m, else m: a large set repeats a few label sets, and a small map costs
// as much as the rest of a small resource.
func (l *loader) share(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%d:%s%d:%s", len(k), k, len(m[k]), m[k])
	}
	key := b.String()
	if shared, ok := l.stringMaps[key]; ok {
		return shared
	}
	if l.stringMaps == nil {
		l.stringMaps = map[string]map[string]string{}
	}
	l.stringMaps[key] = m
	return m
}

// checkAnnotation validates the tool's own annotations, so a typo cannot
// silently switch a protection off: keys are matched exactly (Kubernetes
// keys are case-sensitive), and a key that looks meant for this tool but is
// not one of its keys, in any casing or with a misspelt prefix, is an
// error naming the key to write.
func checkAnnotation(k, v string) string {
	switch k {
	case AnnotationPreventDestroy, AnnotationExisting:
		if v != "true" && v != "false" {
			return fmt.Sprintf("must be \"true\" or \"false\", got %q", v)
		}
		return ""
	case AnnotationIgnoreChanges:
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				return "has an empty path; list body paths separated by commas, e.g. tags.costCenter,properties.subnets"
			}
			if _, err := bodypath.ParsePattern(p); err != nil {
				return fmt.Sprintf("path %q: %v", p, err)
			}
		}
		return ""
	case AnnotationDriftPolicy:
		if v != "detect" && v != "correct" {
			return fmt.Sprintf("must be \"detect\" or \"correct\", got %q", v)
		}
		return ""
	case AnnotationDeletionPolicy:
		if v != "orphan" && v != "delete" {
			return fmt.Sprintf("must be \"orphan\" or \"delete\", got %q", v)
		}
		return ""
	case AnnotationDependsOn:
		for _, n := range strings.Split(v, ",") {
			if strings.TrimSpace(n) == "" {
				return "has an empty entry; list resources as NAME or TYPE/NAME separated by commas, e.g. origin-a,Microsoft.Cdn/profiles/originGroups/og-a"
			}
		}
		return ""
	}
	prefix, _, hasSlash := strings.Cut(k, "/")
	ours := strings.EqualFold(prefix+"/", annotationPrefix)
	if !ours && hasSlash && len(prefix) >= len(annotationPrefix)-3 {
		ours = len(schema.Suggest(prefix, []string{strings.TrimSuffix(annotationPrefix, "/")})) > 0
	}
	if !ours {
		return ""
	}
	for _, known := range knownAnnotations {
		if strings.EqualFold(k, known) {
			return fmt.Sprintf("annotation keys are case-sensitive and this one would be ignored; write %s", known)
		}
	}
	msg := "unknown annotation of this tool"
	if s := schema.Suggest(annotationPrefix+strings.TrimPrefix(k, prefix+"/"), knownAnnotations); len(s) > 0 {
		msg += "; did you mean " + s[0] + "?"
	}
	return msg + " (known: " + strings.Join(knownAnnotations, ", ") + ")"
}
