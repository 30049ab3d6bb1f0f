package diff

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

var nsgPlugin = &Funcs{R: Rules{ChildCollections: []schema.Path{"properties.securityRules", "properties.subnets"}}}

// afterApply is the input of the plan after an apply of d that left live
// as written: L = D, B = live projected on the owned paths.
func afterApply(t *testing.T, d, written, now map[string]any, p Plugin) Input {
	t.Helper()
	in := Input{Desired: d, Live: written, Plugin: p}
	owned := Compute(in).Owned
	return Input{Desired: d, LastApplied: HashSecrets(d, nil, testKey), Baseline: Project(written, owned), Live: now, Plugin: p, SecretKey: testKey}
}

var testKey = []byte("salt")

type wantChange struct {
	path  string
	cause plan.Cause
	kind  plan.ChangeKind
	child bool
}

func changesOf(r Result) []wantChange {
	var out []wantChange
	for _, c := range r.Changes {
		out = append(out, wantChange{c.Path, c.Cause, c.Kind, c.ChildDelete})
	}
	return out
}

func TestCollectionDrift(t *testing.T) {
	const (
		rules  = `{"properties":{"securityRules":[{"name":"allow-https","properties":{"access":"Allow","destinationPortRange":"443"}}]}}`
		srv    = `{"name":"srv-added","properties":{"access":"Deny"}}`
		ssh    = `{"name":"allow-ssh-any","id":"/n/securityRules/allow-ssh-any","properties":{"access":"Allow","destinationPortRange":"22"}}`
		https  = `{"name":"allow-https","id":"/n/securityRules/allow-https","properties":{"access":"Allow","destinationPortRange":"443","provisioningState":"Succeeded"}}`
		subnet = `{"name":"a","properties":{"addressPrefix":"10.0.0.0/24","delegations":[{"name":"d1","properties":{"serviceName":"Microsoft.Web/serverFarms"}}]}}`
	)
	tests := []struct {
		name                string
		desired, written, s string
		elsewhere           []string
		stateless, oldB     bool
		want                []wantChange
	}{{
		name:    "keyed child array: rule added outside is drift and a delete",
		desired: rules,
		written: `{"properties":{"securityRules":[` + https + `]}}`,
		s:       `{"properties":{"securityRules":[` + https + `,` + ssh + `]}}`,
		want:    []wantChange{{"properties.securityRules[allow-ssh-any]", plan.CauseDrift, plan.KindRemove, true}},
	}, {
		name:    "server-added item at write time is never drift",
		desired: rules,
		written: `{"properties":{"securityRules":[` + https + `,` + srv + `]}}`,
		s:       `{"properties":{"securityRules":[` + srv + `,` + https + `]}}`,
	}, {
		name:    "server-added item kept, outside item reported",
		desired: rules,
		written: `{"properties":{"securityRules":[` + https + `,` + srv + `]}}`,
		s:       `{"properties":{"securityRules":[` + https + `,` + srv + `,` + ssh + `]}}`,
		want:    []wantChange{{"properties.securityRules[allow-ssh-any]", plan.CauseDrift, plan.KindRemove, true}},
	}, {
		name:    "map: tag added outside",
		desired: `{"tags":{"env":"prod"}}`,
		written: `{"tags":{"env":"prod","createdBy":"policy"}}`,
		s:       `{"tags":{"env":"prod","createdBy":"policy","backdoor":"yes"}}`,
		want:    []wantChange{{"tags.backdoor", plan.CauseDrift, plan.KindRemove, false}},
	}, {
		name:    "map keys compare case-insensitively",
		desired: `{"tags":{"Env":"prod"}}`,
		written: `{"tags":{"env":"prod"}}`,
		s:       `{"tags":{"env":"prod"}}`,
	}, {
		name:    "nested keyed array inside a keyed item",
		desired: `{"properties":{"subnets":[` + subnet + `]}}`,
		written: `{"properties":{"subnets":[` + subnet + `]}}`,
		s:       `{"properties":{"subnets":[{"name":"a","properties":{"addressPrefix":"10.0.0.0/24","delegations":[{"name":"d1","properties":{"serviceName":"Microsoft.Web/serverFarms"}},{"name":"d2","properties":{"serviceName":"Microsoft.Sql/managedInstances"}}]}}]}}`,
		want:    []wantChange{{"properties.subnets[a].properties.delegations[d2]", plan.CauseDrift, plan.KindRemove, false}},
	}, {
		name:      "item owned by a child manifest (by id) is not drift",
		desired:   `{"properties":{"subnets":[` + subnet + `]}}`,
		written:   `{"properties":{"subnets":[` + subnet + `]}}`,
		s:         `{"properties":{"subnets":[` + subnet + `,{"name":"b","id":"/V/SUBNETS/b","properties":{"addressPrefix":"10.0.1.0/24"}}]}}`,
		elsewhere: []string{"/v/subnets/b"},
	}, {
		name:      "item owned by a child manifest (by name under the parent) is not drift",
		desired:   `{"properties":{"subnets":[` + subnet + `]}}`,
		written:   `{"properties":{"subnets":[` + subnet + `]}}`,
		s:         `{"properties":{"subnets":[` + subnet + `,{"name":"b","properties":{"addressPrefix":"10.0.1.0/24"}}]}}`,
		elsewhere: []string{"/v/subnets/b"},
	}, {
		name:    "subnet added outside is drift and a delete",
		desired: `{"properties":{"subnets":[` + subnet + `]}}`,
		written: `{"properties":{"subnets":[` + subnet + `]}}`,
		s:       `{"properties":{"subnets":[` + subnet + `,{"name":"b","properties":{"addressPrefix":"10.0.1.0/24"}}]}}`,
		want:    []wantChange{{"properties.subnets[b]", plan.CauseDrift, plan.KindRemove, true}},
	}, {
		name:      "state-less first plan: extra items cannot be told apart",
		desired:   `{"tags":{"env":"prod"}}`,
		written:   `{"tags":{"env":"prod"}}`,
		s:         `{"tags":{"env":"prod","backdoor":"yes"}}`,
		stateless: true,
	}, {
		name:    "baseline without a collection record: not judged",
		desired: `{"tags":{"env":"prod"}}`,
		written: `{"tags":{"env":"prod"}}`,
		s:       `{"tags":{"env":"prod","backdoor":"yes"}}`,
		oldB:    true,
	}, {
		name:    "empty declared collection owns nothing",
		desired: `{"tags":{}}`,
		written: `{"tags":{}}`,
		s:       `{"tags":{"backdoor":"yes"}}`,
	}, {
		name:    "scalar drift and collection drift together",
		desired: `{"tags":{"env":"prod"},"properties":{"a":1}}`,
		written: `{"tags":{"env":"prod"},"properties":{"a":1}}`,
		s:       `{"tags":{"env":"prod","x":"1"},"properties":{"a":2}}`,
		want: []wantChange{
			{"properties.a", plan.CauseDrift, plan.KindChange, false},
			{"tags.x", plan.CauseDrift, plan.KindRemove, false},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, s := obj(t, tt.desired), obj(t, tt.s)
			in := afterApply(t, d, obj(t, tt.written), s, nsgPlugin)
			in.ID = "/v"
			if tt.elsewhere != nil {
				in.OwnedElsewhere = func(id string) bool {
					for _, e := range tt.elsewhere {
						if strings.EqualFold(e, id) {
							return true
						}
					}
					return false
				}
			}
			if tt.stateless {
				in.LastApplied, in.Baseline = nil, nil
			}
			if tt.oldB {
				delete(in.Baseline, WholeCollectionsKey)
			}
			r := Compute(in)
			if got := changesOf(r); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("changes = %+v\nwant %+v", got, tt.want)
			}
			for _, c := range r.Changes {
				if c.Cause == plan.CauseDrift && c.Kind == plan.KindRemove && !strings.HasPrefix(c.Reason, "present in Azure, not in the manifest: added outside this tool") {
					t.Errorf("reason = %q", c.Reason)
				}
			}
			if len(tt.want) == 0 && r.Action != ActionNoOp {
				t.Errorf("action = %s, want no-op", r.Action)
			}
		})
	}
}

// The write removes what was added outside and keeps what the service
// added at our write and what other manifests own.
func TestCollectionDriftWrites(t *testing.T) {
	d := obj(t, `{"tags":{"env":"prod"},"properties":{"securityRules":[{"name":"allow-https","properties":{"access":"Allow"}}]}}`)
	written := obj(t, `{"tags":{"env":"prod","policy":"p"},"properties":{"securityRules":[{"name":"allow-https","properties":{"access":"Allow"}},{"name":"srv"}]}}`)
	s := obj(t, `{"tags":{"env":"prod","policy":"p","backdoor":"1"},"properties":{"securityRules":[{"name":"allow-https","properties":{"access":"Allow"}},{"name":"srv"},{"name":"mine-elsewhere"},{"name":"allow-ssh-any","properties":{"access":"Allow"}}]}}`)
	in := afterApply(t, d, written, s, nsgPlugin)
	in.ID = "/n"
	// IDs arrive in armid.Key form.
	in.OwnedElsewhere = func(id string) bool { return id == "/n/securityrules/mine-elsewhere" }
	r := Compute(in)
	if got := paths(r.Changes); !reflect.DeepEqual(got, []string{"properties.securityRules[allow-ssh-any]", "tags.backdoor"}) {
		t.Fatalf("changes = %v", got)
	}
	patch := Patch(in, r)
	merged := armPatch(t, s, patch)
	want := `{"properties":{"securityRules":[{"name":"allow-https","properties":{"access":"Allow"}},{"name":"srv"},{"name":"mine-elsewhere"}]},"tags":{"env":"prod","policy":"p"}}`
	if string(merged) != want {
		t.Errorf("live after PATCH =\n%s\nwant\n%s", merged, want)
	}
	if got := mustJSON(t, PutBody(in, r)); got != want {
		t.Errorf("PUT body =\n%s\nwant\n%s", got, want)
	}
	// After the write, B is recorded again and the next plan is quiet.
	next := afterApply(t, d, obj(t, want), obj(t, want), nsgPlugin)
	if r := Compute(next); r.Action != ActionNoOp {
		t.Errorf("not quiet after the write: %v", paths(r.Changes))
	}
}

func TestRemovedChildItemIsDelete(t *testing.T) {
	l := obj(t, `{"properties":{"securityRules":[{"name":"a","properties":{"access":"Allow"}},{"name":"b","properties":{"access":"Deny"}}]}}`)
	d := obj(t, `{"properties":{"securityRules":[{"name":"a","properties":{"access":"Allow"}}]}}`)
	in := afterApply(t, l, l, l, nsgPlugin)
	in.Desired = d
	r := Compute(in)
	want := []wantChange{{"properties.securityRules[b]", plan.CauseUser, plan.KindRemove, true}}
	if got := changesOf(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("changes = %+v", got)
	}
	if r.Changes[0].Reason != reasonChildDelete {
		t.Errorf("reason = %q", r.Changes[0].Reason)
	}
	if got := mustJSON(t, PutBody(in, r)); got != mustJSON(t, d) {
		t.Errorf("PUT body = %s", got)
	}
}

func TestRemovalWithDefault(t *testing.T) {
	tests := []struct {
		name      string
		l, d, s   string
		want      []wantChange
		patch     string
		put       string
		removed   []Removal
		readBack  string
		wantNotes []string
	}{{
		name:     "schema default: reset and written",
		l:        `{"properties":{"size":8,"mode":"Enabled"}}`,
		d:        `{"properties":{"mode":"Enabled"}}`,
		s:        `{"properties":{"size":8,"mode":"Enabled"}}`,
		want:     []wantChange{{"properties.size", plan.CauseDefaultReset, plan.KindChange, false}},
		patch:    `{"properties":{"size":4}}`,
		put:      `{"properties":{"mode":"Enabled","size":4}}`,
		removed:  []Removal{{Path: "properties.size", Before: float64(8), Default: true, After: float64(4)}},
		readBack: `{"properties":{"size":4,"mode":"Enabled"}}`,
	}, {
		name:      "schema default ignored by Azure: the note says so",
		l:         `{"properties":{"size":8}}`,
		d:         `{"properties":{}}`,
		s:         `{"properties":{"size":8}}`,
		want:      []wantChange{{"properties.size", plan.CauseDefaultReset, plan.KindChange, false}},
		patch:     `{"properties":{"size":4}}`,
		put:       `{"properties":{"size":4}}`,
		removed:   []Removal{{Path: "properties.size", Before: float64(8), Default: true, After: float64(4)}},
		readBack:  `{"properties":{"size":8}}`,
		wantNotes: []string{"Azure kept properties.size = 8 instead of the default 4; it is no longer managed"},
	}, {
		name: "already at the default: nothing to do",
		l:    `{"properties":{"size":4,"mode":"Enabled"}}`,
		d:    `{"properties":{"mode":"Enabled"}}`,
		s:    `{"properties":{"size":4,"mode":"Enabled"}}`,
	}, {
		name:      "no default: stop managing, not written",
		l:         `{"properties":{"allowBlobPublicAccess":true,"mode":"Enabled"}}`,
		d:         `{"properties":{"mode":"Enabled"}}`,
		s:         `{"properties":{"allowBlobPublicAccess":true,"mode":"Enabled"}}`,
		want:      []wantChange{{"properties.allowBlobPublicAccess", plan.CauseRemoval, plan.KindRemove, false}},
		patch:     `{}`,
		put:       `{"properties":{"allowBlobPublicAccess":true,"mode":"Enabled"}}`, // a PUT keeps live's value
		removed:   []Removal{{Path: "properties.allowBlobPublicAccess", Before: true}},
		readBack:  `{"properties":{"allowBlobPublicAccess":true,"mode":"Enabled"}}`,
		wantNotes: []string{"Azure kept properties.allowBlobPublicAccess = true; it is no longer managed"},
	}, {
		name: "tag removed from the manifest is removed",
		l:    `{"tags":{"a":"1","b":"2"}}`,
		d:    `{"tags":{"a":"1"}}`,
		s:    `{"tags":{"a":"1","b":"2"}}`,
		want: []wantChange{{"tags.b", plan.CauseUser, plan.KindRemove, false}},
		// ARM replaces the tag set on PATCH: the patch carries every
		// remaining tag; a PUT leaves the removed one out.
		patch: `{"tags":{"a":"1"}}`,
		put:   `{"tags":{"a":"1"}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, d, s := obj(t, tt.l), obj(t, tt.d), obj(t, tt.s)
			in := Input{Desired: d, LastApplied: l, Baseline: Project(s, Owned(l, nil)), Live: s, Schema: testSchema}
			r := Compute(in)
			if got := changesOf(r); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("changes = %+v\nwant %+v", got, tt.want)
			}
			if !reflect.DeepEqual(r.Removed, tt.removed) {
				t.Errorf("removed = %+v\nwant %+v", r.Removed, tt.removed)
			}
			if tt.want == nil {
				return
			}
			if got := mustJSON(t, Patch(in, r)); got != tt.patch {
				t.Errorf("patch = %s, want %s", got, tt.patch)
			}
			if got := mustJSON(t, PutBody(in, r)); got != tt.put {
				t.Errorf("put = %s, want %s", got, tt.put)
			}
			if tt.readBack != "" {
				if got := KeptAfterWrite(r, obj(t, tt.readBack)); !reflect.DeepEqual(got, tt.wantNotes) {
					t.Errorf("notes = %q, want %q", got, tt.wantNotes)
				}
			}
		})
	}
}

func TestIgnoreChanges(t *testing.T) {
	d := obj(t, `{"tags":{"env":"prod","costCenter":"42"},"properties":{"subnets":[{"name":"a","properties":{"addressPrefix":"10.0.0.0/24"}}],"mode":"Enabled"}}`)
	s := obj(t, `{"tags":{"env":"prod","costCenter":"99","policyTag":"x"},"properties":{"subnets":[{"name":"a","properties":{"addressPrefix":"10.9.0.0/24"}},{"name":"z"}],"mode":"Enabled"}}`)
	tests := []struct {
		ignore []string
		want   []string
	}{
		{nil, []string{"properties.subnets[a].properties.addressPrefix", "properties.subnets[z]", "tags.costCenter", "tags.policyTag"}},
		{[]string{"tags.costCenter"}, []string{"properties.subnets[a].properties.addressPrefix", "properties.subnets[z]", "tags.policyTag"}},
		{[]string{"tags.COSTCENTER", "tags.policyTag"}, []string{"properties.subnets[a].properties.addressPrefix", "properties.subnets[z]"}},
		{[]string{"tags.*"}, []string{"properties.subnets[a].properties.addressPrefix", "properties.subnets[z]"}},
		{[]string{"properties.subnets"}, []string{"tags.costCenter", "tags.policyTag"}},
		{[]string{"properties.subnets[*].properties"}, []string{"properties.subnets[z]", "tags.costCenter", "tags.policyTag"}},
		{[]string{"tags"}, []string{"properties.subnets[a].properties.addressPrefix", "properties.subnets[z]"}},
	}
	written := obj(t, `{"tags":{"env":"prod","costCenter":"42"},"properties":{"subnets":[{"name":"a","properties":{"addressPrefix":"10.0.0.0/24"}}],"mode":"Enabled"}}`)
	for _, tt := range tests {
		t.Run(strings.Join(tt.ignore, ","), func(t *testing.T) {
			in := afterApply(t, d, written, s, nsgPlugin)
			in.IgnoreChanges = tt.ignore
			r := Compute(in)
			if got := paths(r.Changes); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("changes = %v\nwant %v", got, tt.want)
			}
			// Never written: a PUT keeps live's value at ignored paths.
			put := PutBody(in, r)
			for _, g := range tt.ignore {
				p, _ := parsePattern(g)
				if lv, ok := getPattern(s, p); ok {
					if pv, _ := getPattern(put, p); !reflect.DeepEqual(pv, lv) {
						t.Errorf("PUT body changes ignored %s: %v, live %v", g, pv, lv)
					}
				}
			}
			// A PATCH may carry an ignored tag (ARM replaces the tag set),
			// but only with live's value.
			pm := Patch(in, r)
			patch := mustJSON(t, pm)
			for _, g := range tt.ignore {
				if g != "tags.costCenter" || !strings.Contains(patch, "costCenter") {
					continue
				}
				pt, _ := pm["tags"].(map[string]any)
				lt, _ := s["tags"].(map[string]any)
				if !reflect.DeepEqual(pt["costCenter"], lt["costCenter"]) {
					t.Errorf("PATCH changes an ignored path: %s", patch)
				}
			}
		})
	}
}

func TestUnknownValues(t *testing.T) {
	d := obj(t, `{"properties":{"subnetRef":null,"mode":"Enabled"}}`)
	d["properties"].(map[string]any)["subnetRef"] = plan.Unknown{}
	s := obj(t, `{"properties":{"subnetRef":"/old","mode":"Enabled"}}`)
	for _, live := range []map[string]any{s, nil} {
		in := Input{Desired: d, LastApplied: d, Live: live, Schema: testSchema, Unknown: []string{"properties.subnetRef"}}
		if live == nil {
			in.LastApplied = nil
		}
		r := Compute(in)
		c := change(t, r, "properties.subnetRef")
		if !c.KnownAfterApply || !plan.IsUnknown(c.After) || c.Cause != plan.CauseUser {
			t.Errorf("live=%v: change = %+v", live != nil, c)
		}
		if live != nil && (c.Before != "/old" || c.Kind != plan.KindChange || len(r.Changes) != 1) {
			t.Errorf("changes = %+v", r.Changes)
		}
		if live == nil && r.Action != ActionCreate {
			t.Errorf("action = %s", r.Action)
		}
		// The write sends what Desired holds once the engine resolved it.
		resolved := obj(t, `{"properties":{"subnetRef":"/new","mode":"Enabled"}}`)
		in.Desired = resolved
		if live != nil {
			if got := mustJSON(t, Patch(in, r)); got != `{"properties":{"subnetRef":"/new"}}` {
				t.Errorf("patch = %s", got)
			}
		}
	}
}

// TestUnknownMarkerNeverEqual: the marker is unknown by its type, also
// where Input.Unknown does not list its path: it never equals a live
// value, not even one that spells its display form, and its change says
// known after apply rather than showing a value.
func TestUnknownMarkerNeverEqual(t *testing.T) {
	for _, liveValue := range []string{`"(known after apply)"`, `"/old"`} {
		live := obj(t, `{"properties":{"subnetRef":`+liveValue+`,"mode":"Enabled"}}`)
		d := obj(t, `{"properties":{"mode":"Enabled"}}`)
		d["properties"].(map[string]any)["subnetRef"] = plan.Unknown{}
		r := Compute(Input{Desired: d, Live: live, Schema: testSchema})
		c := change(t, r, "properties.subnetRef")
		if !c.KnownAfterApply || !plan.IsUnknown(c.After) || len(r.Changes) != 1 {
			t.Errorf("live %s: changes = %+v", liveValue, r.Changes)
		}
	}
}

func TestSecretPaths(t *testing.T) {
	l0 := obj(t, `{"tags":{"a.b":"s3cret-1","plain":"v"},"properties":{"settings":[{"name":"DB","value":"conn-1"}],"secret":true}}`)
	d := obj(t, `{"tags":{"a.b":"s3cret-2","plain":"v"},"properties":{"settings":[{"name":"DB","value":"conn-2"}],"secret":false}}`)
	secrets := []string{`tags["a.b"]`, `properties.settings[0].value`}
	l := HashSecrets(l0, nil, testKey, secrets...)
	ls := mustJSON(t, l)
	if strings.Contains(ls, "s3cret-1") || strings.Contains(ls, "conn-1") || !strings.Contains(ls, `"plain":"v"`) || !strings.Contains(ls, `"secret":true`) {
		t.Fatalf("L = %s", ls)
	}
	// The alternative spelling of a member path hashes the same.
	if alt := mustJSON(t, HashSecrets(l0, nil, testKey, `tags."a.b"`, `properties.settings[DB].value`)); alt != ls {
		t.Errorf("path spellings differ:\n%s\n%s", alt, ls)
	}
	s := obj(t, `{"tags":{"a.b":"s3cret-1","plain":"v"},"properties":{"settings":[{"name":"DB","value":"conn-1"}],"secret":true}}`)
	r := Compute(Input{Desired: d, LastApplied: l, Live: s, SecretKey: testKey, SecretPaths: secrets})
	got := map[string]plan.Change{}
	for _, c := range r.Changes {
		got[c.Path] = c
	}
	for _, p := range []string{`tags."a.b"`, `properties.settings[DB].value`} {
		c, ok := got[p]
		if !ok || !c.Sensitive || c.Before != (plan.Sensitive{}) || c.After != (plan.Sensitive{}) {
			t.Errorf("%s: %+v (present %v)", p, c, ok)
		}
	}
	// A boolean named "secret" is a flag: its change is shown.
	if c := got["properties.secret"]; c.Sensitive || c.After != false {
		t.Errorf("flag = %+v", c)
	}
	if len(r.Changes) != 3 {
		t.Errorf("changes = %v", paths(r.Changes))
	}
	// Unchanged secrets compare equal by hash.
	r = Compute(Input{Desired: l0, LastApplied: l, Live: s, SecretKey: testKey, SecretPaths: secrets})
	if r.Action != ActionNoOp {
		t.Errorf("unchanged secrets planned: %v", paths(r.Changes))
	}
}

// validatePath is how annotation values are checked at load time: a
// well-formed body path or glob.
func validatePath(s string) error {
	_, err := bodypath.ParsePattern(s)
	return err
}

func TestPathHelpers(t *testing.T) {
	if got := bodypath.JoinMember("tags", "a.b"); got != `tags."a.b"` {
		t.Errorf("JoinMember = %s", got)
	}
	if got := bodypath.JoinIndex(bodypath.JoinMember("", "properties"), 2); got != `properties[2]` {
		t.Errorf("JoinIndex = %s", got)
	}
	for _, ok := range []string{`tags.*`, `tags."a.b"`, `tags["a.b"]`, `properties.subnets[*].name`, `a[0]`, `a[name=x,type=y].b`} {
		if err := validatePath(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{``, `a..b`, `a[`, `tags."x`, `.a`, `a.`, `a[k=1,2]`} {
		if validatePath(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestExactNumbers(t *testing.T) {
	d := objNum(t, `{"properties":{"rules":[{"prio":12345678901234567890,"act":"a"},{"prio":12345678901234567891,"act":"b"}],"big":9007199254740993}}`)
	s := objNum(t, `{"properties":{"rules":[{"prio":12345678901234567890,"act":"a"},{"prio":12345678901234567891,"act":"x"}],"big":9007199254740993}}`)
	in := Input{Desired: d, Live: s, Schema: testSchema}
	r := Compute(in)
	if got := paths(r.Changes); !reflect.DeepEqual(got, []string{"properties.rules[12345678901234567891].act"}) {
		t.Fatalf("changes = %v", got)
	}
	// Bodies carry the manifest's numbers exactly.
	if got := mustJSON(t, PutBody(in, r)); !strings.Contains(got, "12345678901234567891") || !strings.Contains(got, "9007199254740993") {
		t.Errorf("put = %s", got)
	}
	owned := Compute(in).Owned
	sort.Strings(owned)
	if b := mustJSON(t, Project(s, owned)); !strings.Contains(b, "12345678901234567890") {
		t.Errorf("B = %s", b)
	}
}

// objNum decodes as the tool does: numbers as json.Number.
func objNum(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBigNumbersCompareExactly(t *testing.T) {
	tests := []struct {
		d, s    string
		changed bool
	}{
		{`{"properties":{"n":9007199254740993}}`, `{"properties":{"n":9007199254740992}}`, true},
		{`{"properties":{"n":12345678901234567890}}`, `{"properties":{"n":12345678901234567891}}`, true},
		{`{"properties":{"n":12345678901234567890}}`, `{"properties":{"n":12345678901234567890}}`, false},
		{`{"properties":{"n":1}}`, `{"properties":{"n":1.0}}`, false},
		{`{"properties":{"n":[9007199254740993]}}`, `{"properties":{"n":[9007199254740992]}}`, true},
	}
	for _, tt := range tests {
		d, s := objNum(t, tt.d), objNum(t, tt.s)
		for _, in := range []Input{{Desired: d, Live: s}, {Desired: d, LastApplied: s, Live: s}} {
			r := Compute(in)
			if (r.Action != ActionNoOp) != tt.changed {
				t.Errorf("%s vs %s (state %v): %s %v", tt.d, tt.s, in.LastApplied != nil, r.Action, paths(r.Changes))
			}
		}
	}
}

// The record builder hashes B like L; a hashed baseline stays quiet and
// never reports a secret as drift.
func TestHashedBaseline(t *testing.T) {
	d := obj(t, `{"properties":{"adminPassword":"pw-1","protectedSettings":{"cmd":"c"},"token":"tk","mode":"Enabled"}}`)
	s := obj(t, `{"properties":{"adminPassword":"pw-1","protectedSettings":{"cmd":"c"},"token":"tk","mode":"Enabled"}}`)
	secrets := []string{"properties.token"}
	owned := Compute(Input{Desired: d, Live: s}).Owned
	in := Input{Desired: d, LastApplied: HashSecrets(d, nil, testKey, secrets...), Baseline: HashSecrets(Project(s, owned), nil, testKey, secrets...),
		Live: s, SecretKey: testKey, SecretPaths: secrets}
	if b := mustJSON(t, in.Baseline); strings.Contains(b, "pw-1") || strings.Contains(b, `"tk"`) || strings.Contains(b, `"c"`) {
		t.Fatalf("B holds a secret: %s", b)
	}
	if r := Compute(in); r.Action != ActionNoOp {
		t.Fatalf("hashed B not quiet: %+v", r.Changes)
	}
	// The service answered every secret as it was sent (B's hashes equal
	// L's): another value now was set outside, and is drift, hidden.
	changedOutside := obj(t, `{"properties":{"adminPassword":"pw-2","protectedSettings":{"cmd":"x"},"token":"other","mode":"Enabled"}}`)
	in.Live = changedOutside
	r := Compute(in)
	if r.Action != ActionUpdate || len(r.Changes) != 3 {
		t.Fatalf("secrets changed outside: %s %v", r.Action, paths(r.Changes))
	}
	for _, c := range r.Changes {
		if !c.Sensitive || c.Cause != plan.CauseDrift || strings.Contains(mustJSON(t, c), "pw-") || strings.Contains(mustJSON(t, c), "other") {
			t.Errorf("%s: want hidden drift, got %+v", c.Path, c)
		}
	}
	// Where the service masks or transforms a secret (B's hash differs
	// from L's), a different answer proves nothing: unverifiable.
	masked := obj(t, `{"properties":{"adminPassword":"****","protectedSettings":{"cmd":"****"},"token":"****","mode":"Enabled"}}`)
	in.Baseline = HashSecrets(Project(masked, owned), nil, testKey, secrets...)
	in.Live = changedOutside
	r = Compute(in)
	if r.Action != ActionNoOp || len(r.Unverifiable) == 0 {
		t.Fatalf("secrets the service masks: %s %v unverifiable %v", r.Action, paths(r.Changes), r.Unverifiable)
	}
}

// armPatch applies a PATCH body the way ARM does: a JSON merge patch,
// except that tags are replaced as a whole.
func armPatch(t *testing.T, live, patch map[string]any) string {
	t.Helper()
	merged, err := jsonpatch.MergePatch([]byte(mustJSON(t, live)), []byte(mustJSON(t, patch)))
	if err != nil {
		t.Fatal(err)
	}
	if tags, ok := patch["tags"]; ok {
		var m map[string]any
		if err := json.Unmarshal(merged, &m); err != nil {
			t.Fatal(err)
		}
		m["tags"] = tags
		return mustJSON(t, m)
	}
	return string(merged)
}
