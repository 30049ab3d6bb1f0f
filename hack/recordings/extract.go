package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// pair is one output record; the field names match the other round-trip
// files of testdata/corpus.
type pair struct {
	Source               string         `json:"source"`
	File                 string         `json:"file"`
	PutIndex             int            `json:"putIndex"`
	GetIndex             int            `json:"getIndex"`
	ResourceType         string         `json:"resourceType"`
	Provider             string         `json:"provider"`
	APIVersion           string         `json:"apiVersion"`
	GetAPIVersion        string         `json:"getApiVersion"`
	ID                   string         `json:"id"`
	PutStatus            int            `json:"putStatus"`
	PutBody              map[string]any `json:"putBody"`
	GetBody              map[string]any `json:"getBody"`
	GetProvisioningState string         `json:"getProvisioningState,omitempty"`
	// GetFrom is "list" when the live body is the resource's item in a
	// collection GET (opt-in, -from-list); empty for a GET of the resource.
	GetFrom string `json:"getFrom,omitempty"`
}

// transient provisioning states: a GET in one of them shows a resource
// still being built, not what the PUT settled on.
var transient = map[string]bool{
	"creating": true, "updating": true, "accepted": true, "inprogress": true, "provisioning": true,
}

// resourceURI is a request URI reduced to what pairing needs.
type resourceURI struct {
	ID, Key, Type, Provider, APIVersion string
	// CollectionKey is the key of the URI listing the resource with its
	// siblings (the ID without its last name).
	CollectionKey string
}

// parseResourceURI accepts the URI of an ARM resource (api-version in the
// query) and rejects deployments, asynchronous-operation URIs and anything
// that is not a resource ID.
func parseResourceURI(raw string) (resourceURI, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return resourceURI{}, false
	}
	ver := u.Query().Get("api-version")
	if ver == "" {
		return resourceURI{}, false
	}
	// Some recorders double the slash after the host.
	p := "/" + strings.TrimLeft(u.Path, "/")
	id, err := armid.Parse(p)
	if err != nil {
		return resourceURI{}, false
	}
	typ := id.Type()
	if strings.EqualFold(typ, "Microsoft.Resources/deployments") {
		return resourceURI{}, false
	}
	for _, t := range id.Types {
		if strings.HasPrefix(strings.ToLower(t), "operation") {
			return resourceURI{}, false
		}
	}
	trimmed := strings.TrimSuffix(p, "/")
	coll := ""
	if i := strings.LastIndexByte(trimmed, '/'); i > 0 {
		coll = strings.ToLower(trimmed[:i])
	}
	return resourceURI{ID: trimmed, Key: id.Key(), Type: typ, Provider: id.Provider, APIVersion: ver, CollectionKey: coll}, true
}

// collectionKey returns the lower-cased path of a collection GET URI (api-version
// in the query), or "".
func collectionKey(raw string) (key, ver string) {
	u, err := url.Parse(raw)
	if err != nil || u.Query().Get("api-version") == "" {
		return "", ""
	}
	return strings.ToLower(strings.TrimSuffix("/"+strings.TrimLeft(u.Path, "/"), "/")), u.Query().Get("api-version")
}

// extract pairs every successful PUT with the next settled GET of the same
// resource. A later write to the resource before any such GET ends the
// search: the GET would then show that write, not this one. With fromList,
// a PUT that no GET of the resource follows (before the next write to it)
// is paired with its item in the first later GET of its collection.
func extract(entries []entry, fromList bool) []pair {
	var out []pair
	for i, put := range entries {
		if !strings.EqualFold(put.Method, "PUT") || (put.Status != 200 && put.Status != 201) {
			continue
		}
		ru, ok := parseResourceURI(put.URI)
		if !ok {
			continue
		}
		body, ok := object(put.ReqBody)
		if !ok {
			continue
		}
		if p, ok := nextGet(entries, i, ru, fromList); ok {
			p.PutBody, p.PutStatus = body, put.Status
			out = append(out, p)
		}
	}
	return out
}

func nextGet(entries []entry, i int, ru resourceURI, fromList bool) (pair, bool) {
	var fallback *pair // first settled list item, used when no GET of the resource comes
	for j := i + 1; j < len(entries); j++ {
		e := entries[j]
		r, ok := parseResourceURI(e.URI)
		if !ok || r.Key != ru.Key {
			if fromList && fallback == nil {
				fallback = listCandidate(e, i, j, ru)
			}
			continue
		}
		switch strings.ToUpper(e.Method) {
		case "PUT", "PATCH", "DELETE":
			return orNone(fallback)
		case "GET":
		default:
			continue
		}
		if e.Status != 200 {
			continue
		}
		body, ok := object(e.RespBody)
		if !ok {
			continue
		}
		state := provisioningState(body)
		if transient[strings.ToLower(state)] {
			continue
		}
		return pair{
			PutIndex: i, GetIndex: j,
			ResourceType: ru.Type, Provider: ru.Provider,
			APIVersion: ru.APIVersion, GetAPIVersion: r.APIVersion,
			ID: ru.ID, GetBody: body, GetProvisioningState: state,
		}, true
	}
	return orNone(fallback)
}

func orNone(p *pair) (pair, bool) {
	if p == nil {
		return pair{}, false
	}
	return *p, true
}

// listCandidate returns the resource's settled item in e when e is a
// successful GET of the resource's collection.
func listCandidate(e entry, i, j int, ru resourceURI) *pair {
	if !strings.EqualFold(e.Method, "GET") || e.Status != 200 {
		return nil
	}
	ck, ver := collectionKey(e.URI)
	if ck == "" || ck != ru.CollectionKey {
		return nil
	}
	body, ok := listItem(e.RespBody, ru.Key)
	if !ok || transient[strings.ToLower(provisioningState(body))] {
		return nil
	}
	return &pair{
		PutIndex: i, GetIndex: j,
		ResourceType: ru.Type, Provider: ru.Provider,
		APIVersion: ru.APIVersion, GetAPIVersion: ver,
		ID: ru.ID, GetBody: body, GetProvisioningState: provisioningState(body),
		GetFrom: "list",
	}
}

// object decodes a JSON object body keeping numbers exact (json.Number).
func object(s string) (map[string]any, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // trailing data: not one JSON document
	}
	return m, true
}

// listItem finds the item whose id is the resource in a collection body
// ({"value": [...]}).
func listItem(s, key string) (map[string]any, bool) {
	m, ok := object(s)
	if !ok {
		return nil, false
	}
	items, _ := m["value"].([]any)
	for _, it := range items {
		if obj, ok := it.(map[string]any); ok {
			if id, _ := obj["id"].(string); id != "" && armid.Key(id) == key {
				return obj, true
			}
		}
	}
	return nil, false
}

func provisioningState(body map[string]any) string {
	if props, ok := body["properties"].(map[string]any); ok {
		if s, ok := props["provisioningState"].(string); ok {
			return s
		}
	}
	s, _ := body["provisioningState"].(string)
	return s
}

// encodePairs writes one JSON object a line; json.Number values are written
// verbatim, so big integers survive.
func encodePairs(w io.Writer, ps []pair) error {
	for _, p := range ps {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p); err != nil {
			return err
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
