package apply

import (
	"regexp"
	"slices"
	"strconv"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Secret paths come in two spellings: a manifest's and a record's name
// array items by position (extensions[0].properties.settings.fileUris[0]),
// a change by its item's key (extensions[lapextension]…). Which position a
// key is cannot be known without the bodies, so where the spellings
// differ the two are taken to meet: a secret is hidden with more around
// it, never shown.

// pathStep is one step of a path: a member name, or an array selector.
type pathStep struct {
	name     string
	selector bool
}

var pathSteps = regexp.MustCompile(`\[([^\]]*)\]|([^.\[\]]+)`)

func stepsOf(p string) []pathStep {
	var out []pathStep
	for _, m := range pathSteps.FindAllStringSubmatch(p, -1) {
		if m[2] != "" {
			out = append(out, pathStep{name: m[2]})
		} else {
			out = append(out, pathStep{name: m[1], selector: true})
		}
	}
	return out
}

// stepsMeet: equal steps, or two selectors of different spellings (an
// index and a key), which may name the same item.
func stepsMeet(a, b pathStep) bool {
	if a.selector != b.selector {
		return false
	}
	if a == b {
		return true
	}
	if !a.selector {
		return false
	}
	_, errA := strconv.Atoi(a.name)
	_, errB := strconv.Atoi(b.name)
	return (errA == nil) != (errB == nil)
}

// pathsMeet reports whether change path c and secret path s may name the
// same value, or one a value inside the other: under when c is s or below
// it, above when s is below c.
func pathsMeet(c, s string) (under, above bool) {
	cs, ss := stepsOf(c), stepsOf(s)
	n := min(len(cs), len(ss))
	for i := range n {
		if !stepsMeet(cs[i], ss[i]) {
			return false, false
		}
	}
	return len(cs) >= len(ss), len(ss) > len(cs)
}

// recordedSecretPaths lists the paths of body (a record's last-applied
// body) whose value is a secret's hash: a value once secret stays secret
// in the plan after the manifest stops declaring it, or its removal would
// show live's value.
func recordedSecretPaths(body map[string]any) []string {
	var out []string
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(c, p)
			}
		case []any:
			for i, c := range x {
				walk(c, path+"["+strconv.Itoa(i)+"]")
			}
		default:
			if path != "" && secret.IsHash(v) {
				out = append(out, path)
			}
		}
	}
	walk(body, "")
	slices.Sort(out)
	return out
}

// sensitivePaths are the item's secret paths: the manifest's, and those
// its record holds as hashes.
func (it *item) sensitivePaths() []string {
	if it.record == nil {
		return it.secrets
	}
	return append(slices.Clone(it.secrets), recordedSecretPaths(it.record.LastApplied)...)
}

// sensitiveRemovals marks the removals at or above a secret path: the note
// that Azure kept a removed value prints it, and a value holding a secret
// is shown hidden. rs is not modified.
func sensitiveRemovals(rs []diff.Removal, secrets []string) []diff.Removal {
	out := slices.Clone(rs)
	for i := range out {
		for _, s := range secrets {
			if under, above := pathsMeet(out[i].Path, s); under || above {
				out[i].Sensitive = true
			}
		}
	}
	return out
}
