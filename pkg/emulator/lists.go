package emulator

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// page filters items by $filter and returns the page $skiptoken starts,
// with a nextLink on the same host when more remain.
func (s *Server) page(r *http.Request, items []any) reply {
	q := r.URL.Query()
	if f := q.Get("$filter"); f != "" {
		pred, err := parseFilter(f)
		if err != nil {
			return reply{err: err}
		}
		kept := items[:0:0]
		for _, it := range items {
			if m, ok := it.(map[string]any); ok && pred(m) {
				kept = append(kept, it)
			}
		}
		items = kept
	}
	size, maxTop := s.pageSize(r)
	if t := q.Get("$top"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 {
			return reply{err: newError(http.StatusBadRequest, "InvalidTopParameter",
				"The value '%s' of $top is invalid: use a positive integer.", t)}
		}
		if maxTop > 0 && n > maxTop {
			return reply{err: newError(http.StatusBadRequest, "InvalidTopInQueryString",
				"The value '%s' of $top is too large: this list returns at most %d items a page; follow nextLink for more.", t, maxTop)}
		}
		if n < size {
			size = n
		}
	}
	start := 0
	if tok := q.Get("$skiptoken"); tok != "" {
		n, err := strconv.Atoi(tok)
		if err != nil || n < 0 {
			return reply{err: newError(http.StatusBadRequest, "InvalidSkipToken",
				"The $skiptoken '%s' is invalid: follow the nextLink of the previous page as is.", tok)}
		}
		start = n
	}
	if start > len(items) {
		start = len(items)
	}
	end := min(start+size, len(items))
	out := map[string]any{"value": append([]any{}, items[start:end]...)}
	if end < len(items) {
		next := url.Values{}
		for k, v := range q {
			next[k] = v
		}
		next.Set("$skiptoken", strconv.Itoa(end))
		out["nextLink"] = s.baseURL(r) + r.URL.Path + "?" + next.Encode()
	}
	return reply{status: http.StatusOK, body: out}
}

// filterClause matches one comparison of the $filter grammar ARM's
// resource lists accept: field eq 'value', or substringof('value', name).
var (
	filterEq        = regexp.MustCompile(`(?i)^\s*([A-Za-z][A-Za-z0-9]*)\s+(eq|ne)\s+'((?:[^']|'')*)'\s*$`)
	filterStarts    = regexp.MustCompile(`(?i)^\s*startswith\(\s*(tagName|name)\s*,\s*'((?:[^']|'')*)'\s*\)\s*$`)
	filterSubstring = regexp.MustCompile(`(?i)^\s*substringof\(\s*'((?:[^']|'')*)'\s*,\s*name\s*\)\s*$`)
	filterAtScope   = regexp.MustCompile(`(?i)^\s*atScope\(\)\s*$`)
	filterAssigned  = regexp.MustCompile(`(?i)^\s*assignedTo\(\s*'((?:[^']|'')*)'\s*\)\s*$`)
	filterAnd       = regexp.MustCompile(`(?i)\s+and\s+`)
)

// parseFilter compiles a $filter of clauses joined by "and". Anything else
// is refused with ARM's code rather than ignored, so a client never
// believes a filter it sent was applied.
func parseFilter(f string) (func(map[string]any) bool, *armError) {
	var preds []func(map[string]any) bool
	tagName := ""
	for _, c := range filterAnd.Split(f, -1) {
		if filterAtScope.MatchString(c) {
			continue // role assignments at the listed scope: the list already is
		}
		if m := filterAssigned.FindStringSubmatch(c); m != nil {
			want := strings.ReplaceAll(m[1], "''", "'")
			preds = append(preds, func(b map[string]any) bool {
				v, _ := propOrTop(b, "principalId").(string)
				return strings.EqualFold(v, want)
			})
			continue
		}
		if m := filterSubstring.FindStringSubmatch(c); m != nil {
			want := strings.ToLower(strings.ReplaceAll(m[1], "''", "'"))
			preds = append(preds, func(b map[string]any) bool {
				n, _ := b["name"].(string)
				return strings.Contains(strings.ToLower(n), want)
			})
			continue
		}
		// startswith(tagName|name, '…') and FIELD ne '…': documented for
		// the generic resource lists (ARM REST "Resources - List By
		// Resource Group", $filter).
		if m := filterStarts.FindStringSubmatch(c); m != nil {
			byTag := strings.EqualFold(m[1], "tagName")
			want := strings.ToLower(strings.ReplaceAll(m[2], "''", "'"))
			preds = append(preds, func(b map[string]any) bool {
				if !byTag {
					n, _ := b["name"].(string)
					return strings.HasPrefix(strings.ToLower(n), want)
				}
				for k := range asMap(b["tags"]) {
					if strings.HasPrefix(strings.ToLower(k), want) {
						return true
					}
				}
				return false
			})
			continue
		}
		m := filterEq.FindStringSubmatch(c)
		if m != nil && strings.EqualFold(m[2], "ne") {
			if strings.EqualFold(m[1], "tagName") || strings.EqualFold(m[1], "tagValue") {
				return nil, newError(http.StatusBadRequest, "InvalidFilterInQueryString",
					"Invalid $filter '%s' specified in the query string: tags support eq and startswith only.", f)
			}
			eq, err := parseFilter(m[1] + " eq '" + m[3] + "'")
			if err != nil {
				return nil, err
			}
			preds = append(preds, func(b map[string]any) bool { return !eq(b) })
			continue
		}
		if m != nil {
			m = []string{m[0], m[1], m[3]}
		}
		if m == nil {
			return nil, newError(http.StatusBadRequest, "InvalidFilterInQueryString",
				"Invalid $filter '%s' specified in the query string. Supported: FIELD eq|ne '…' (resourceType, name, location, resourceGroup, tagName [and tagValue], or a property), substringof('…', name), startswith(tagName|name, '…'), atScope(), assignedTo('…'), joined by 'and'.", f)
		}
		field, val := strings.ToLower(m[1]), strings.ReplaceAll(m[2], "''", "'")
		switch field {
		case "tagname":
			tagName = val
			preds = append(preds, func(b map[string]any) bool {
				_, ok := tagValue(b, val)
				return ok
			})
		case "tagvalue":
			name := tagName
			preds = append(preds, func(b map[string]any) bool {
				v, ok := tagValue(b, name)
				return ok && v == val
			})
		case "location":
			preds = append(preds, func(b map[string]any) bool {
				l, _ := b["location"].(string)
				return LocationKey(l) == LocationKey(val)
			})
		case "resourcegroup":
			preds = append(preds, func(b map[string]any) bool {
				id, _ := b["id"].(string)
				p, ok := armid.ParsePath(id)
				return ok && strings.EqualFold(p.ResourceGroup, val)
			})
		case "resourcetype", "name":
			key := "type"
			if field == "name" {
				key = "name"
			}
			preds = append(preds, func(b map[string]any) bool {
				v, _ := b[key].(string)
				return strings.EqualFold(v, val)
			})
		default:
			// Any other field (principalId, roleDefinitionId, kind, …)
			// compares the top-level member or the one under properties.
			name := m[1]
			preds = append(preds, func(b map[string]any) bool {
				v, _ := propOrTop(b, name).(string)
				return strings.EqualFold(v, val)
			})
		}
	}
	return func(b map[string]any) bool {
		for _, p := range preds {
			if !p(b) {
				return false
			}
		}
		return true
	}, nil
}

// propOrTop finds a member by name (any casing) at the top of a body or
// under properties.
func propOrTop(b map[string]any, name string) any {
	for _, m := range []map[string]any{b, asMap(b["properties"])} {
		for k, v := range m {
			if strings.EqualFold(k, name) {
				return v
			}
		}
	}
	return nil
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func tagValue(b map[string]any, name string) (string, bool) {
	tags, _ := b["tags"].(map[string]any)
	for k, v := range tags {
		if strings.EqualFold(k, name) {
			s, _ := v.(string)
			return s, true
		}
	}
	return "", false
}
