package emulator

import (
	"net/http"
	"sort"
	"strings"
)

// The subscription's tag names (Tags - List, Create Or Update, Delete, and
// their tagValues): `az tag list|create|add-value|remove-value|delete` use
// them. A name is listed while a resource or group carries it or it was
// predefined with PUT; GET counts the resources that carry each name and
// value, as ARM does.
//
//	GET    /subscriptions/{s}/tagNames
//	PUT    /subscriptions/{s}/tagNames/{name}
//	DELETE /subscriptions/{s}/tagNames/{name}
//	PUT    /subscriptions/{s}/tagNames/{name}/tagValues/{value}
//	DELETE /subscriptions/{s}/tagNames/{name}/tagValues/{value}
//
// Tags - Delete (REST reference, 2022-09-01): "The name being deleted must
// not be in use as a tag name for any resource. All predefined values for
// the given name must have already been deleted"; Tags - Delete Value says
// the same of a value. No recorded refusal was found, so the code below
// (409 TagNameInUse / TagValueInUse) is this emulator's, in ARM's shape.

// predefinedTags holds the names and values predefined per subscription
// (lower-cased subscription → name → values, as first written).
type predefinedTags map[string]map[string]map[string]string

func (s *Server) serveTagNames(w http.ResponseWriter, r *http.Request) bool {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(segs) < 3 || !strings.EqualFold(segs[0], "subscriptions") || !strings.EqualFold(segs[2], "tagNames") {
		return false
	}
	sub, rest := segs[1], segs[3:]
	if len(rest) == 1 || len(rest) == 3 {
		// Only the subscription's own path segments: a tag named "a/b"
		// cannot be addressed, as in ARM.
		if len(rest) == 3 && !strings.EqualFold(rest[1], "tagValues") {
			return false
		}
	} else if len(rest) != 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tagNames == nil {
		s.tagNames = predefinedTags{}
	}
	key := strings.ToLower(sub)
	names := s.tagNames[key]
	if names == nil {
		names = map[string]map[string]string{}
		s.tagNames[key] = names
	}
	base := "/subscriptions/" + sub + "/tagNames"
	switch {
	case len(rest) == 0 && r.Method == http.MethodGet:
		s.write(w, r, reply{status: http.StatusOK, body: map[string]any{"value": s.tagNameItemsLocked(sub, names)}})
	case len(rest) == 1 && r.Method == http.MethodPut:
		name := rest[0]
		status := http.StatusOK
		if _, ok := lookupFold(names, name); !ok {
			names[name] = map[string]string{}
			status = http.StatusCreated
		}
		s.write(w, r, reply{status: status, body: map[string]any{
			"id": base + "/" + name, "tagName": name, "count": tagCount(0), "values": []any{},
		}})
	case len(rest) == 1 && r.Method == http.MethodDelete:
		name := rest[0]
		if n, _ := s.tagUseLocked(sub, name, ""); n > 0 {
			s.write(w, r, reply{err: newError(http.StatusConflict, "TagNameInUse",
				"The tag name '%s' cannot be deleted because it is being referenced by %d resource(s) or resource group(s).", name, n)})
			return true
		}
		k, ok := lookupFold(names, name)
		if ok && len(names[k]) > 0 {
			s.write(w, r, reply{err: newError(http.StatusConflict, "TagNameInUse",
				"The tag name '%s' cannot be deleted because it still has %d predefined value(s); delete them first.", name, len(names[k]))})
			return true
		}
		if ok {
			delete(names, k)
		}
		s.write(w, r, reply{status: map[bool]int{true: http.StatusOK, false: http.StatusNoContent}[ok]})
	case len(rest) == 3 && (r.Method == http.MethodPut || r.Method == http.MethodDelete):
		name, value := rest[0], rest[2]
		if r.Method == http.MethodDelete {
			if n, _ := s.tagUseLocked(sub, name, value); n > 0 {
				s.write(w, r, reply{err: newError(http.StatusConflict, "TagValueInUse",
					"The tag value '%s' of tag name '%s' cannot be deleted because it is being referenced by %d resource(s) or resource group(s).", value, name, n)})
				return true
			}
		}
		k, ok := lookupFold(names, name)
		if !ok {
			if r.Method == http.MethodDelete {
				s.write(w, r, reply{status: http.StatusNoContent})
				return true
			}
			k = name
			names[k] = map[string]string{}
		}
		vals := names[k]
		if r.Method == http.MethodDelete {
			vk, had := lookupFold(vals, value)
			if had {
				delete(vals, vk)
			}
			s.write(w, r, reply{status: map[bool]int{true: http.StatusOK, false: http.StatusNoContent}[had]})
			return true
		}
		status := http.StatusOK
		if _, had := lookupFold(vals, value); !had {
			vals[value] = value
			status = http.StatusCreated
		}
		s.write(w, r, reply{status: status, body: map[string]any{
			"id": base + "/" + k + "/tagValues/" + value, "tagValue": value, "count": tagCount(0),
		}})
	default:
		s.write(w, r, methodNotAllowed(r.Method))
	}
	return true
}

// tagNameItemsLocked lists every tag name in use in sub or predefined, with
// its values and how many resources and groups carry each.
func (s *Server) tagNameItemsLocked(sub string, predefined map[string]map[string]string) []any {
	type entry struct {
		name   string
		count  int
		values map[string]int    // lower-cased value → count
		spell  map[string]string // lower-cased value → first spelling
	}
	byName := map[string]*entry{}
	get := func(name string) *entry {
		k := strings.ToLower(name)
		e := byName[k]
		if e == nil {
			e = &entry{name: name, values: map[string]int{}, spell: map[string]string{}}
			byName[k] = e
		}
		return e
	}
	for name, vals := range predefined {
		e := get(name)
		for _, v := range vals {
			lv := strings.ToLower(v)
			e.spell[lv] = v
			e.values[lv] += 0
		}
	}
	prefix := strings.ToLower("/subscriptions/" + sub + "/")
	for _, res := range s.store.res {
		if !strings.HasPrefix(strings.ToLower(res.ID), prefix) || res.Derived {
			continue
		}
		tags, _ := res.Body["tags"].(map[string]any)
		for name, v := range tags {
			e := get(name)
			e.count++
			val, _ := v.(string)
			lv := strings.ToLower(val)
			if _, ok := e.spell[lv]; !ok {
				e.spell[lv] = val
			}
			e.values[lv]++
		}
	}
	keys := make([]string, 0, len(byName))
	for k := range byName {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	base := "/subscriptions/" + sub + "/tagNames/"
	out := make([]any, 0, len(keys))
	for _, k := range keys {
		e := byName[k]
		vkeys := make([]string, 0, len(e.values))
		for v := range e.values {
			vkeys = append(vkeys, v)
		}
		sort.Strings(vkeys)
		values := make([]any, 0, len(vkeys))
		for _, v := range vkeys {
			values = append(values, map[string]any{
				"id": base + e.name + "/tagValues/" + e.spell[v], "tagValue": e.spell[v], "count": tagCount(e.values[v]),
			})
		}
		out = append(out, map[string]any{"id": base + e.name, "tagName": e.name, "count": tagCount(e.count), "values": values})
	}
	return out
}

// tagUseLocked counts the resources and groups of sub that carry name (and
// value, when not empty).
func (s *Server) tagUseLocked(sub, name, value string) (int, bool) {
	prefix := strings.ToLower("/subscriptions/" + sub + "/")
	n := 0
	for _, res := range s.store.res {
		if !strings.HasPrefix(strings.ToLower(res.ID), prefix) || res.Derived {
			continue
		}
		tags, _ := res.Body["tags"].(map[string]any)
		for k, v := range tags {
			if strings.EqualFold(k, name) && (value == "" || strings.EqualFold(toString(v), value)) {
				n++
			}
		}
	}
	return n, n > 0
}

func tagCount(n int) map[string]any { return map[string]any{"type": "Total", "value": n} }

func lookupFold[V any](m map[string]V, k string) (string, bool) {
	if _, ok := m[k]; ok {
		return k, true
	}
	for have := range m {
		if strings.EqualFold(have, k) {
			return have, true
		}
	}
	return "", false
}

func toString(v any) string {
	s, _ := v.(string)
	return s
}
