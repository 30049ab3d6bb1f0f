package emulator

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

//go:generate go run ./internal/profilegen -o profile.json.gz

// Profile is what the emulator knows about real ARM per resource type. It
// is generated from recorded traffic (../shared/corpus) by
// internal/profilegen and embedded; every number and value in it was seen
// in a real response.
type Profile struct {
	// Source says what the profile was generated from.
	Source string `json:"source"`
	// Locations maps a location name ("westus2") to the display name ARM
	// answered with ("West US 2").
	Locations map[string]string `json:"locations"`
	// Types is keyed by lower-cased resource type.
	Types map[string]*TypeProfile `json:"types"`
}

// TypeProfile holds one type's quirks. Paths use the schema package's
// syntax: dotted, "[]" for every array item.
type TypeProfile struct {
	Type    string `json:"type"` // ARM's casing of the type, as GET returned it
	Records int    `json:"records"`
	// PutStatus is the status PUT most often answered on create.
	PutStatus int `json:"putStatus,omitempty"`
	// Etag is "", "weak" (W/"...") or "strong" ("...").
	Etag       string `json:"etag,omitempty"`
	SystemData bool   `json:"systemData,omitempty"`
	// IDCase is how the id field's casing differs from the request URL:
	// see CaseRule.
	IDCase string `json:"idCase,omitempty"`
	// FullName is true when "name" is every name segment joined by "/".
	FullName bool `json:"fullName,omitempty"`

	// DropNulls is true when GET leaves out the keys a request set to null.
	DropNulls bool `json:"dropNulls,omitempty"`

	// Added maps a path the server adds when the request lacks it to the
	// value it adds, templated with {{id}}, {{name}}, {{rg}}, {{sub}},
	// {{location}}, {{guid}}, {{now}}.
	Added map[string]any `json:"added,omitempty"`
	// Dropped lists paths GET does not return (secrets, write-only input).
	Dropped []string `json:"dropped,omitempty"`
	// Values maps a path to put-value → get-value (both JSON-encoded);
	// a key "ci:" + lower-cased string applies case-insensitively.
	Values map[string]map[string]string `json:"values,omitempty"`
	// LocationPaths are paths whose location names come back as display names.
	LocationPaths []string `json:"locationPaths,omitempty"`
	// IDPaths maps a path holding ARM IDs to the casing rule applied to them.
	IDPaths map[string]string `json:"idPaths,omitempty"`
	// SortedPaths are arrays GET returns sorted (scalars by value, objects by name).
	SortedPaths []string `json:"sortedPaths,omitempty"`
}

// Case rules for ARM IDs, as observed.
const (
	CaseSame    = ""
	CaseLower   = "lower"   // the whole ID lower-cased
	CaseUpper   = "upper"   // the whole ID upper-cased
	CaseGroupUp = "groupUp" // only the resource group name upper-cased
	CaseKeyword = "keyword" // ARM keywords re-cased: resourcegroups, providers, ...
)

// ApplyCase re-cases an ARM ID by rule.
func ApplyCase(rule, id string) string {
	switch rule {
	case CaseLower:
		return strings.ToLower(id)
	case CaseUpper:
		return strings.ToUpper(id)
	case CaseGroupUp:
		segs := strings.Split(id, "/")
		for i := 0; i+1 < len(segs); i++ {
			if strings.EqualFold(segs[i], "resourceGroups") {
				segs[i+1] = strings.ToUpper(segs[i+1])
				break
			}
		}
		return strings.Join(segs, "/")
	case CaseKeyword:
		segs := strings.Split(id, "/")
		for i, s := range segs {
			switch strings.ToLower(s) {
			case "resourcegroups":
				segs[i] = "resourcegroups"
			case "subscriptions":
				segs[i] = "subscriptions"
			case "providers":
				segs[i] = "providers"
			}
		}
		return strings.Join(segs, "/")
	}
	return id
}

// ClassifyCase names the rule that turns sent into got, or "?" when none
// of the known rules does. Both must be equal ignoring case.
func ClassifyCase(sent, got string) string {
	if sent == got {
		return CaseSame
	}
	for _, r := range []string{CaseGroupUp, CaseKeyword, CaseLower, CaseUpper} {
		if ApplyCase(r, sent) == got {
			return r
		}
	}
	return "?"
}

//go:embed profile.json.gz
var embeddedProfile []byte

var (
	profileOnce sync.Once
	profileVal  *Profile
	profileErr  error
)

// EmbeddedProfile returns the profile compiled into the binary.
func EmbeddedProfile() (*Profile, error) {
	profileOnce.Do(func() {
		profileVal, profileErr = DecodeProfile(embeddedProfile)
	})
	return profileVal, profileErr
}

// DecodeProfile reads a gzip-compressed profile.
func DecodeProfile(b []byte) (*Profile, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("emulator profile: %w (regenerate it with go generate ./pkg/emulator)", err)
	}
	var p Profile
	if err := json.NewDecoder(zr).Decode(&p); err != nil {
		return nil, fmt.Errorf("emulator profile: %w (regenerate it with go generate ./pkg/emulator)", err)
	}
	if p.Types == nil {
		p.Types = map[string]*TypeProfile{}
	}
	return &p, nil
}

func (p *Profile) lookup(typ string) *TypeProfile {
	if p == nil {
		return nil
	}
	return p.Types[strings.ToLower(typ)]
}

// DisplayLocation returns ARM's display name for a location, or "" if unknown.
func (p *Profile) DisplayLocation(loc string) string {
	if p == nil {
		return ""
	}
	return p.Locations[LocationKey(loc)]
}

// LocationKey folds a location or display name to the key of Locations.
func LocationKey(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, " ", ""))
}
