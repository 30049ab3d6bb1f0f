package manifest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// transformStep is one of a valueFrom.template's transform steps, applied
// in order to the template's whole result: ARM's replace() and split()[i]
// over a value known only at apply time (a storage endpoint without its
// scheme, a gateway's first BGP address), with ARM's semantics.
type transformStep struct {
	// replace: every occurrence of old becomes new (case-sensitive; an
	// empty old changes nothing, as ARM's replace()).
	replace  bool
	old, new string
	// split: the index-th part of the value cut at any of seps; a
	// negative index counts from the end (-1 is the last).
	seps  []string
	index int
}

func (t transformStep) apply(s string) (string, error) {
	if t.replace {
		if t.old == "" {
			return s, nil
		}
		return strings.ReplaceAll(s, t.old, t.new), nil
	}
	parts := splitAny(s, t.seps)
	i := t.index
	if i < 0 {
		i += len(parts) // from the end: -1 is the last part, ARM's last(split(...))
	}
	if i < 0 || i >= len(parts) {
		return "", fmt.Errorf("split gives %d part(s) of the value, and transform asks for index %d", len(parts), t.index)
	}
	return parts[i], nil
}

// splitAny cuts s at every occurrence of any separator, as ARM's split()
// with an array of delimiters does.
func splitAny(s string, seps []string) []string {
	parts := []string{s}
	for _, sep := range seps {
		if sep == "" {
			continue
		}
		var next []string
		for _, p := range parts {
			next = append(next, strings.Split(p, sep)...)
		}
		parts = next
	}
	return parts
}

func applyTransform(steps []transformStep, s string) (string, error) {
	for _, t := range steps {
		var err error
		if s, err = t.apply(s); err != nil {
			return "", err
		}
	}
	return s, nil
}

const transformForms = "must be a list of steps, each {replace: {old: TEXT, new: TEXT}} or {split: {separator: TEXT, index: N}} (separators: [TEXT, ...] cuts at any of them; index -1 is the last part)"

// parseTransform reads valueFrom.template.transform; the problem names the
// step's path.
func (l *loader) parseTransform(o Origin, v any, path string) ([]transformStep, bool) {
	if v == nil {
		return nil, true
	}
	list, isList := v.([]any)
	if !isList || len(list) == 0 {
		l.ps.add(o, path, transformForms)
		return nil, false
	}
	var out []transformStep
	for i, raw := range list {
		sp := fmt.Sprintf("%s[%d]", path, i)
		step, isMap := raw.(map[string]any)
		if !isMap || len(step) != 1 {
			l.ps.add(o, sp, transformForms)
			return nil, false
		}
		t, ok := parseStep(step)
		if !ok {
			l.ps.add(o, sp, transformForms)
			return nil, false
		}
		out = append(out, t)
	}
	return out, true
}

func parseStep(step map[string]any) (transformStep, bool) {
	str := func(m map[string]any, k string) (string, bool) {
		s, ok := m[k].(string)
		return s, ok
	}
	if r, isMap := step["replace"].(map[string]any); isMap {
		old, okOld := str(r, "old")
		nw, okNew := str(r, "new")
		return transformStep{replace: true, old: old, new: nw}, okOld && okNew && len(r) == 2
	}
	sp, isMap := step["split"].(map[string]any)
	if !isMap || len(sp) != 2 {
		return transformStep{}, false
	}
	var seps []string
	if s, ok := str(sp, "separator"); ok {
		seps = []string{s}
	} else if list, ok := sp["separators"].([]any); ok && len(list) > 0 {
		for _, x := range list {
			s, ok := x.(string)
			if !ok {
				return transformStep{}, false
			}
			seps = append(seps, s)
		}
	} else {
		return transformStep{}, false
	}
	// Numbers decode as json.Number (decode.go), keeping integers exact.
	n, isNum := sp["index"].(json.Number)
	idx, err := n.Int64()
	return transformStep{seps: seps, index: int(idx)}, isNum && err == nil
}
