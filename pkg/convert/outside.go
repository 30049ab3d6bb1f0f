package convert

import (
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// annotationExisting marks a manifest the set reads but never writes
// (manifest.AnnotationExisting), as Bicep's `existing` does.
const annotationExisting = "azure.kubectl.io/existing"

// outside is a resource the template reads (reference(), list*()) but
// does not create: it becomes an existing manifest, placed by its ID.
type outside struct {
	doc *doc
	id  string // as written, with ${subscriptionId}
}

// outsideDoc is the existing manifest for a reference() or list*() of a
// resource the template does not create, made on first use: nil unless its
// ID is known when converting and the call named an api-version (ARM
// requires one for a resource outside the template).
func (rd *renderer) outsideDoc(target any, apiVersion string) *doc {
	if apiVersion == "" {
		return nil
	}
	id, ok := rd.outsideID(target)
	if !ok {
		return nil
	}
	key := armid.Key(id)
	if o, ok := rd.outside[key]; ok {
		return o.doc
	}
	parsed, err := armid.Parse(id)
	if err != nil || parsed.Type() == "" || parsed.Name() == "" {
		return nil
	}
	typ, leaf := parsed.Type(), parsed.Name()
	d := &doc{typ: typ, apiVersion: apiVersion, name: leaf, segs: []any{leaf}, existing: true, group: parsed.ResourceGroup}
	d.meta, d.refKey = rd.outsideNames(typ, leaf)
	if rd.outside == nil {
		rd.outside = map[string]*outside{}
	}
	rd.outside[key] = &outside{doc: d, id: id}
	rd.outsideOrder = append(rd.outsideOrder, key)
	return d
}

// outsideID is the target's ID in the template's own casing when every
// part of it is known: a template's literal ID, or one its ID functions
// built.
func (rd *renderer) outsideID(target any) (string, bool) {
	switch x := target.(type) {
	case *idRef:
	case string:
		if !strings.HasPrefix(x, "/") {
			return "", false
		}
	default:
		_ = x
		return "", false
	}
	saved, savedEdges := rd.literal, rd.edges
	rd.literal, rd.edges = true, map[*doc]bool{}
	text, err := rd.text(target, "")
	rd.literal, rd.edges = saved, savedEdges
	text = strings.TrimSuffix(text, "/")
	if err != nil || !strings.HasPrefix(text, "/") || strings.Contains(strings.ReplaceAll(text, "${subscriptionId}", ""), "${") {
		return "", false
	}
	return text, true
}

// outsideNames gives an existing manifest a metadata.name no converted
// resource uses, referenced by TYPE/NAME when its name is another's.
func (rd *renderer) outsideNames(typ, leaf string) (meta, refKey string) {
	taken := map[string]bool{}
	for _, d := range rd.docs {
		taken[strings.ToLower(d.meta)] = true
		if s, ok := d.segs[len(d.segs)-1].(string); ok {
			taken[strings.ToLower(s)] = true
		}
	}
	for _, o := range rd.outside {
		taken[strings.ToLower(o.doc.meta)] = true
	}
	meta = leaf
	if !plainName(leaf) {
		meta = strings.ToLower(typ[strings.LastIndex(typ, "/")+1:])
	}
	for n := 2; taken[strings.ToLower(meta)]; n++ {
		meta = fmt.Sprintf("%s-existing-%d", leaf, n)
		if !plainName(leaf) {
			meta = fmt.Sprintf("%s-existing-%d", strings.ToLower(typ[strings.LastIndex(typ, "/")+1:]), n)
		}
	}
	return meta, meta
}

// outsideManifests renders the existing manifests the docs referred to.
func (rd *renderer) outsideManifests() []Manifest {
	var out []Manifest
	for _, key := range rd.outsideOrder {
		o := rd.outside[key]
		d := o.doc
		spec := Ordered{}
		spec.set("type", d.typ+"@"+d.apiVersion)
		if leaf, _ := d.segs[0].(string); leaf != d.meta {
			spec.set("name", leaf)
		}
		spec.set("id", o.id)
		meta := Ordered{}
		meta.set("name", d.meta)
		meta.set("annotations", map[string]any{annotationExisting: "true"})
		m := Ordered{}
		m.set("apiVersion", "azure.kubectl.io/v1alpha1")
		m.set("kind", "Resource")
		m.set("metadata", meta)
		m.set("spec", spec)
		out = append(out, Manifest{Name: d.meta, File: rd.fileOf(d), Doc: m})
	}
	return out
}
