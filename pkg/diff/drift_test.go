package diff

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

func lookupSchema(t *testing.T, typ, ver string) *schema.Type {
	t.Helper()
	s, res := schema.Default().Lookup(typ, ver)
	if s == nil || res.Nearest {
		t.Fatalf("schema %s@%s: %+v", typ, ver, res)
	}
	return s
}

// Items added outside this tool to an owned array of objects without
// identifiers (storage ipRules, Key Vault accessPolicies, subnet
// serviceEndpoints) are drift: B, the whole array live held right after
// our write, shows they were not there. Items the service added at our
// write are in B and stay quiet.
func TestItemsAddedOutsideUnkeyedArray(t *testing.T) {
	const (
		rule   = `{"value":"203.0.113.10","action":"Allow"}`
		extra  = `{"value":"0.0.0.0/1","action":"Allow"}`
		policy = `{"tenantId":"11111111-1111-1111-1111-111111111111","objectId":"22222222-2222-2222-2222-222222222222","permissions":{"secrets":["get"]}}`
		other  = `{"tenantId":"11111111-1111-1111-1111-111111111111","objectId":"99999999-9999-9999-9999-999999999999","permissions":{"secrets":["all"]}}`
		subnet = `{"name":"a","properties":{"addressPrefix":"10.0.0.0/24","serviceEndpoints":[{"service":"Microsoft.Storage"}]}}`
	)
	storage := lookupSchema(t, "Microsoft.Storage/storageAccounts", "2023-05-01")
	vault := lookupSchema(t, "Microsoft.KeyVault/vaults", "2023-07-01")
	vnet := lookupSchema(t, "Microsoft.Network/virtualNetworks", "2023-09-01")
	tests := []struct {
		name                string
		sch                 *schema.Type
		desired, written, s string
		stateless           bool
		want                []wantChange
		after               string // the value the change restores (D's)
	}{{
		name:    "storage ipRules: rule added outside is drift",
		sch:     storage,
		desired: `{"properties":{"networkAcls":{"defaultAction":"Deny","ipRules":[` + rule + `]}}}`,
		written: `{"properties":{"networkAcls":{"bypass":"AzureServices","defaultAction":"Deny","ipRules":[` + rule + `]}}}`,
		s:       `{"properties":{"networkAcls":{"bypass":"AzureServices","defaultAction":"Deny","ipRules":[` + rule + `,` + extra + `]}}}`,
		want:    []wantChange{{"properties.networkAcls.ipRules", plan.CauseDrift, plan.KindChange, false}},
	}, {
		name:    "storage ipRules: unchanged is quiet",
		sch:     storage,
		desired: `{"properties":{"networkAcls":{"defaultAction":"Deny","ipRules":[` + rule + `]}}}`,
		written: `{"properties":{"networkAcls":{"defaultAction":"Deny","ipRules":[` + rule + `]}}}`,
		s:       `{"properties":{"networkAcls":{"defaultAction":"Deny","ipRules":[` + rule + `]}}}`,
	}, {
		name:    "item the service added at our write is not drift",
		sch:     storage,
		desired: `{"properties":{"networkAcls":{"defaultAction":"Deny","ipRules":[` + rule + `]}}}`,
		written: `{"properties":{"networkAcls":{"defaultAction":"Deny","ipRules":[` + rule + `,` + extra + `]}}}`,
		s:       `{"properties":{"networkAcls":{"defaultAction":"Deny","ipRules":[` + extra + `,` + rule + `]}}}`,
	}, {
		name:      "first plan (no B): extra items cannot be told apart",
		sch:       storage,
		desired:   `{"properties":{"networkAcls":{"defaultAction":"Deny","ipRules":[` + rule + `]}}}`,
		written:   `{"properties":{"networkAcls":{"defaultAction":"Deny","ipRules":[` + rule + `]}}}`,
		s:         `{"properties":{"networkAcls":{"defaultAction":"Deny","ipRules":[` + rule + `,` + extra + `]}}}`,
		stateless: true,
	}, {
		name:    "key vault accessPolicies: policy added outside is drift",
		sch:     vault,
		desired: `{"properties":{"accessPolicies":[` + policy + `]}}`,
		written: `{"properties":{"accessPolicies":[` + policy + `]}}`,
		s:       `{"properties":{"accessPolicies":[` + policy + `,` + other + `]}}`,
		want:    []wantChange{{"properties.accessPolicies", plan.CauseDrift, plan.KindChange, false}},
	}, {
		name:    "subnet serviceEndpoints inside a keyed item: endpoint added outside is drift",
		sch:     vnet,
		desired: `{"properties":{"subnets":[` + subnet + `]}}`,
		written: `{"properties":{"subnets":[` + subnet + `]}}`,
		s:       `{"properties":{"subnets":[{"name":"a","properties":{"addressPrefix":"10.0.0.0/24","serviceEndpoints":[{"service":"Microsoft.Storage","locations":["westus"]},{"service":"Microsoft.Sql","locations":["westus"]}]}}]}}`,
		want:    []wantChange{{"properties.subnets[a].properties.serviceEndpoints", plan.CauseDrift, plan.KindChange, false}},
	}, {
		name:    "subnet serviceEndpoints: locations the service fills in stay quiet",
		sch:     vnet,
		desired: `{"properties":{"subnets":[` + subnet + `]}}`,
		written: `{"properties":{"subnets":[{"name":"a","properties":{"addressPrefix":"10.0.0.0/24","serviceEndpoints":[{"service":"Microsoft.Storage","locations":["westus"]}]}}]}}`,
		s:       `{"properties":{"subnets":[{"name":"a","properties":{"addressPrefix":"10.0.0.0/24","serviceEndpoints":[{"service":"Microsoft.Storage","locations":["westus"]}]}}]}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, s := obj(t, tt.desired), obj(t, tt.s)
			in := afterApply(t, d, obj(t, tt.written), s, nil)
			in.Schema = tt.sch
			in.Baseline = Project(obj(t, tt.written), Compute(Input{Desired: d, Live: obj(t, tt.written), Schema: tt.sch}).Owned)
			if tt.stateless {
				in.LastApplied, in.Baseline = nil, nil
			}
			r := Compute(in)
			if got := changesOf(r); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("changes = %+v\nwant %+v", got, tt.want)
			}
			if len(tt.want) == 0 {
				if r.Action != ActionNoOp {
					t.Errorf("action = %s, want no-op", r.Action)
				}
				return
			}
			c := r.Changes[0]
			if !strings.Contains(c.Reason, "added outside this tool") {
				t.Errorf("reason = %q", c.Reason)
			}
			// The write restores the manifest's items: the extra one goes.
			if got := armPatch(t, s, Patch(in, r)); !strings.Contains(got, mustJSON(t, mustGet(t, d, c.Path))) || strings.Contains(got, "0.0.0.0/1") || strings.Contains(got, "9999") || strings.Contains(got, "Microsoft.Sql") {
				t.Errorf("live after PATCH = %s (manifest %s)", got, mustJSON(t, d))
			}
			put := mustJSON(t, PutBody(in, r))
			if strings.Contains(put, "0.0.0.0/1") || strings.Contains(put, "9999") || strings.Contains(put, "Microsoft.Sql") {
				t.Errorf("PUT body keeps the outside item: %s", put)
			}
		})
	}
}

func mustGet(t *testing.T, body map[string]any, path string) any {
	t.Helper()
	p, err := parsePattern(path)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := getPattern(body, p)
	if !ok {
		t.Fatalf("%s not in %v", path, body)
	}
	return v
}

// Drift is a change only when live differs from what the manifest wants:
// live set back to the manifest's value (S == D, S != B) plans nothing.
func TestDriftNeedsLiveToDifferFromManifest(t *testing.T) {
	tests := []struct {
		name    string
		d, b, s string
		want    []wantChange
		stale   []string
	}{{
		name:  "S == D != B: set back outside, quiet",
		stale: []string{"properties.networkAcls.defaultAction"},
		d:     `{"properties":{"networkAcls":{"defaultAction":"Deny"}}}`,
		b:     `{"properties":{"networkAcls":{"defaultAction":"Allow"}}}`,
		s:     `{"properties":{"networkAcls":{"defaultAction":"Deny"}}}`,
	}, {
		name:  "S == D != B, in another case: quiet",
		stale: []string{"properties.networkAcls.defaultAction"},
		d:     `{"properties":{"networkAcls":{"defaultAction":"Deny"}}}`,
		b:     `{"properties":{"networkAcls":{"defaultAction":"Allow"}}}`,
		s:     `{"properties":{"networkAcls":{"defaultAction":"deny"}}}`,
	}, {
		name: "S != D, S != B: drift",
		d:    `{"properties":{"networkAcls":{"defaultAction":"Deny"}}}`,
		b:    `{"properties":{"networkAcls":{"defaultAction":"Deny"}}}`,
		s:    `{"properties":{"networkAcls":{"defaultAction":"Allow"}}}`,
		want: []wantChange{{"properties.networkAcls.defaultAction", plan.CauseDrift, plan.KindChange, false}},
	}, {
		name: "S != D, S == B: quiet (nothing moved since the last write)",
		d:    `{"properties":{"networkAcls":{"defaultAction":"Deny"}}}`,
		b:    `{"properties":{"networkAcls":{"defaultAction":"Allow"}}}`,
		s:    `{"properties":{"networkAcls":{"defaultAction":"Allow"}}}`,
	}, {
		name:  "unkeyed array set back to the manifest's items: quiet",
		stale: []string{"properties.networkAcls.ipRules"},
		d:     `{"properties":{"networkAcls":{"ipRules":[{"value":"203.0.113.10","action":"Allow"}]}}}`,
		b:     `{"properties":{"networkAcls":{"ipRules":[{"value":"203.0.113.10","action":"Allow"},{"value":"0.0.0.0/1","action":"Allow"}]}}}`,
		s:     `{"properties":{"networkAcls":{"ipRules":[{"value":"203.0.113.10","action":"Allow"}]}}}`,
	}}
	storage := lookupSchema(t, "Microsoft.Storage/storageAccounts", "2023-05-01")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := obj(t, tt.d)
			r := Compute(Input{Desired: d, LastApplied: d, Baseline: obj(t, tt.b), Live: obj(t, tt.s), Schema: storage, Explain: true})
			if got := changesOf(r); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("changes = %+v\nwant %+v", got, tt.want)
			}
			if len(tt.want) == 0 && r.Action != ActionNoOp {
				t.Errorf("action = %s, want no-op", r.Action)
			}
			if !reflect.DeepEqual(r.StaleBaseline, tt.stale) {
				t.Errorf("stale baseline = %q, want %q", r.StaleBaseline, tt.stale)
			}
			// --explain names each quiet path once, by the rule that decided.
			for _, st := range tt.stale {
				var rules []string
				for _, e := range r.Equal {
					if e.Path == st {
						rules = append(rules, e.Rule)
					}
				}
				if !reflect.DeepEqual(rules, []string{RuleLiveMatches}) {
					t.Errorf("explain lists %s as %q, want once as %s", st, rules, RuleLiveMatches)
				}
			}
			if len(tt.want) > 0 && (r.Changes[0].Before != "Allow" || r.Changes[0].After != "Deny") {
				t.Errorf("change = %+v", r.Changes[0])
			}
		})
	}
}

// --explain never lists a path as equal while the plan changes it.
func TestExplainNeverEqualAndChanged(t *testing.T) {
	d := obj(t, `{"properties":{"networkAcls":{"defaultAction":"Deny","bypass":"AzureServices"}}}`)
	b := obj(t, `{"properties":{"networkAcls":{"defaultAction":"Deny","bypass":"AzureServices"}}}`)
	s := obj(t, `{"properties":{"networkAcls":{"defaultAction":"Allow","bypass":"AzureServices"}}}`)
	r := Compute(Input{Desired: d, LastApplied: d, Baseline: b, Live: s, Explain: true})
	if len(r.Changes) != 1 {
		t.Fatalf("changes = %v", paths(r.Changes))
	}
	for _, e := range r.Equal {
		if e.Path == r.Changes[0].Path {
			t.Errorf("%s listed as equal (%s) and as a change", e.Path, e.Rule)
		}
	}
	if len(r.Equal) == 0 {
		t.Errorf("explain lists nothing equal: %+v", r.Equal)
	}
}

// A secret changed in the manifest is a change, not an addition, even
// though live never returns it.
func TestChangedSecretIsChange(t *testing.T) {
	l := obj(t, `{"properties":{"value":"old"}}`)
	d := obj(t, `{"properties":{"value":"new"}}`)
	s := obj(t, `{"properties":{"contentType":"text/plain"}}`)
	in := Input{Desired: d, LastApplied: HashSecrets(l, nil, testKey, "properties.value"), Baseline: map[string]any{}, Live: s, SecretKey: testKey, SecretPaths: []string{"properties.value"}}
	r := Compute(in)
	want := []wantChange{{"properties.value", plan.CauseUser, plan.KindChange, false}}
	if got := changesOf(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("changes = %+v, want %+v", got, want)
	}
	// A secret new to the manifest is an addition.
	in.LastApplied = map[string]any{"properties": map[string]any{}}
	r = Compute(in)
	want = []wantChange{{"properties.value", plan.CauseUser, plan.KindAdd, false}}
	if got := changesOf(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("new secret: changes = %+v, want %+v", got, want)
	}
}

// A path removed from the manifest that the tool stops managing is not
// written: a PATCH leaves it out, and a PUT built from live keeps live's
// value (leaving it out of a PUT would reset it). Only a default-reset
// removal sends a value.
func TestRemovalKeepsLiveValueInPut(t *testing.T) {
	tests := []struct {
		name    string
		l, d, s string
		put     string
	}{{
		name: "route table: disableBgpRoutePropagation no longer managed",
		l:    `{"location":"westus","properties":{"disableBgpRoutePropagation":true}}`,
		d:    `{"location":"westus","properties":{}}`,
		s:    `{"location":"westus","properties":{"disableBgpRoutePropagation":true,"provisioningState":"Succeeded"}}`,
		put:  `{"location":"westus","properties":{"disableBgpRoutePropagation":true}}`,
	}, {
		name: "a whole object no longer managed",
		l:    `{"location":"westus","properties":{"net":{"a":1,"b":2},"c":1}}`,
		d:    `{"location":"westus","properties":{"c":1}}`,
		s:    `{"location":"westus","properties":{"net":{"a":1,"b":2,"z":0},"c":1}}`,
		put:  `{"location":"westus","properties":{"c":1,"net":{"a":1,"b":2,"z":0}}}`,
	}, {
		name: "a member of an object no longer managed, next to a user change",
		l:    `{"location":"westus","properties":{"net":{"a":1,"b":2}}}`,
		d:    `{"location":"westus","properties":{"net":{"a":5}}}`,
		s:    `{"location":"westus","properties":{"net":{"a":1,"b":2}}}`,
		put:  `{"location":"westus","properties":{"net":{"a":5,"b":2}}}`,
	}, {
		name: "a tag removed from the manifest is still removed",
		l:    `{"location":"westus","tags":{"a":"1","b":"2"}}`,
		d:    `{"location":"westus","tags":{"a":"1"}}`,
		s:    `{"location":"westus","tags":{"a":"1","b":"2"}}`,
		put:  `{"location":"westus","tags":{"a":"1"}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, d, s := obj(t, tt.l), obj(t, tt.d), obj(t, tt.s)
			in := Input{Desired: d, LastApplied: l, Baseline: Project(s, Owned(l, nil)), Live: s}
			r := Compute(in)
			if len(r.Changes) == 0 {
				t.Fatal("no change planned")
			}
			if got := mustJSON(t, PutBody(in, r)); got != tt.put {
				t.Errorf("PUT body = %s\nwant       %s", got, tt.put)
			}
		})
	}
}
