package learn

import (
	"regexp"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

var (
	guidRE = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	timeRE = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?`)
	subRE  = regexp.MustCompile(`(?i)/subscriptions/[0-9a-f-]{36}`)
)

// templater replaces what is specific to one recorded resource (its ID,
// name, group, location, fresh GUIDs and timestamps) with the placeholders
// the emulator fills in (see emulator.TypeProfile.Added).
type templater struct {
	id, name, group, location string
}

func newTemplater(r Record) templater {
	t := templater{id: r.ID}
	segs := strings.Split(strings.Trim(r.ID, "/"), "/")
	if len(segs) > 0 {
		t.name = segs[len(segs)-1]
	}
	for i := 0; i+1 < len(segs); i++ {
		if strings.EqualFold(segs[i], "resourceGroups") {
			t.group = segs[i+1]
			break
		}
	}
	t.location, _ = r.PutBody["location"].(string)
	return t
}

// value templates every string of a recorded value.
func (t templater) value(v any) any { return bodypath.MapStrings(v, t.str) }

func (t templater) str(s string) string {
	if t.location != "" && s == t.location {
		return "{{location}}"
	}
	if t.id != "" {
		s = replaceFold(s, t.id, "{{id}}")
	}
	s = subRE.ReplaceAllString(s, "/subscriptions/{{sub}}")
	if len(t.group) >= 4 {
		s = replaceFold(s, t.group, "{{rg}}")
	}
	if len(t.name) >= 4 {
		s = strings.ReplaceAll(s, t.name, "{{name}}")
	}
	s = guidRE.ReplaceAllStringFunc(s, func(g string) string {
		if strings.Trim(g, "0-") == "" {
			return g // sanitised IDs stay literal zeros
		}
		return "{{guid}}"
	})
	s = timeRE.ReplaceAllString(s, "{{now}}")
	if len(t.location) >= 5 && s != t.location {
		s = strings.ReplaceAll(s, "."+t.location+".", ".{{location}}.")
	}
	return s
}

// replaceFold replaces every case-insensitive occurrence of old.
func replaceFold(s, old, repl string) string {
	if old == "" {
		return s
	}
	ls, lo := strings.ToLower(s), strings.ToLower(old)
	var b strings.Builder
	for {
		i := strings.Index(ls, lo)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s, ls = s[i+len(old):], ls[i+len(old):]
	}
}
