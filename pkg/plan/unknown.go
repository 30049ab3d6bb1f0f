package plan

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// Unknown is the value a desired body holds where the value exists only
// once Azure has created something during this apply (a ${ref:...} to a
// property Azure generates, a key read by a POST action at apply time).
// It is a type of its own, not a string, so no comparison mistakes it for
// a live value and no check of a string property can take it for one.
//
// The diff plans such a path as a change whose After is Unknown; the
// printers and the JSON plan show it as KnownAfterApply. Apply resolves
// every Unknown before a write: FindUnknown tells a write that one is
// left, and the write must refuse.
type Unknown struct{}

// MarshalJSON writes the marker as the plan's JSON contract has it
// (docs/plan-format.md): the string KnownAfterApply. Plans, saved plans and
// fingerprints of manifests marshal bodies that hold it; a write to Azure
// must have called FindUnknown first.
func (Unknown) MarshalJSON() ([]byte, error) { return json.Marshal(KnownAfterApply) }

// String is the marker's display form, for messages that print a value
// with %v.
func (Unknown) String() string { return KnownAfterApply }

// IsUnknown reports whether v is the marker of a value known only after
// apply.
func IsUnknown(v any) bool {
	_, ok := v.(Unknown)
	return ok
}

// FindUnknown returns the path of the first value of body, in sorted
// member order, that is still Unknown (properties.principalId,
// properties.rules[2].id, in the diff's path syntax), and whether there is
// one. A write refuses a body for which it reports true: the marker is
// never sent to Azure.
func FindUnknown(body any) (string, bool) { return findUnknown(body, "") }

func findUnknown(v any, at string) (string, bool) {
	switch x := v.(type) {
	case Unknown:
		return at, true
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if p, ok := findUnknown(x[k], bodypath.JoinMember(at, k)); ok {
				return p, true
			}
		}
	case []any:
		for i, item := range x {
			if p, ok := findUnknown(item, bodypath.JoinIndex(at, i)); ok {
				return p, true
			}
		}
	}
	return "", false
}
