package diff

import (
	"encoding/json"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

func obj(t testing.TB, s string) map[string]any {
	t.Helper()
	if s == "" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	return m
}

func paths(cs []plan.Change) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out
}

func ruleFor(r Result, path string) string {
	for _, e := range r.Equal {
		if e.Path == path {
			return e.Rule
		}
	}
	return ""
}

// testSchema is a hand-built spec for the rule tests.
var testSchema = &schema.Type{
	Name: "Test.RP/things", APIVersion: "2024-01-01",
	Properties: map[string]*schema.Property{
		"properties.mode":          {Type: schema.TypeString, Enum: []string{"Enabled", "Disabled"}, EnumClosed: true},
		"properties.size":          {Type: schema.TypeInteger, Default: float64(4)},
		"properties.flag":          {Type: schema.TypeBoolean, Default: false},
		"properties.subnetRef":     {Type: schema.TypeString, ARMID: true},
		"properties.password":      {Type: schema.TypeString, Secret: true},
		"properties.token":         {Type: schema.TypeString, WriteOnly: true},
		"properties.state":         {Type: schema.TypeString, ReadOnly: true},
		"properties.zone":          {Type: schema.TypeString, CreateOnly: true},
		"properties.rules":         {Type: schema.TypeArray, Identifiers: []string{"prio"}},
		"properties.rules[]":       {Type: schema.TypeObject},
		"properties.rules[].prio":  {Type: schema.TypeInteger},
		"properties.rules[].act":   {Type: schema.TypeString},
		"properties.hops":          {Type: schema.TypeArray, Positional: true},
		"properties.hops[]":        {Type: schema.TypeString},
		"properties.labels":        {Type: schema.TypeObject},
		"properties.labels.*":      {Type: schema.TypeString},
		"properties.description":   {Type: schema.TypeString},
		"properties.level":         {Type: schema.TypeString},
		"properties.count":         {Type: schema.TypeInteger},
		"properties.startTime":     {Type: schema.TypeString},
		"properties.memory":        {Type: schema.TypeString},
		"properties.serverFarmId":  {Type: schema.TypeString},
		"properties.addresses":     {Type: schema.TypeArray},
		"properties.addresses[]":   {Type: schema.TypeString},
		"properties.unkeyed":       {Type: schema.TypeArray},
		"properties.unkeyed[]":     {Type: schema.TypeObject},
		"properties.unkeyed[].p":   {Type: schema.TypeString},
		"properties.nested":        {Type: schema.TypeObject},
		"properties.nested.a":      {Type: schema.TypeString},
		"properties.nested.b":      {Type: schema.TypeString},
		"properties.panEtag":       {Type: schema.TypeString},
		"properties.secretsHolder": {Type: schema.TypeObject},
		"location":                 {Type: schema.TypeString},
		"identity.type":            {Type: schema.TypeString},
		"tags":                     {Type: schema.TypeObject},
		"tags.*":                   {Type: schema.TypeString},
	},
}

// TestRules checks each named normalisation rule on its own: the pair is
// judged equal, by that rule, and a real difference next to it still shows.
func TestRules(t *testing.T) {
	cases := []struct {
		rule, path, desired, live string
	}{
		{RuleExact, "properties.level", `{"properties":{"level":"a b"}}`, `{"properties":{"level":"a b"}}`},
		{RuleLocation, "location", `{"location":"West US 2"}`, `{"location":"westus2"}`},
		{RuleLocation, "location", `{"location":"northcentralusstage"}`, `{"location":"North Central US (Stage)"}`},
		{RuleARMID, "properties.subnetRef", `{"properties":{"subnetRef":"/subscriptions/0/resourceGroups/RG/providers/Microsoft.Network/virtualNetworks/V/subnets/S"}}`, `{"properties":{"subnetRef":"/subscriptions/0/resourcegroups/rg/providers/microsoft.network/virtualNetworks/v/subnets/s"}}`},
		{RuleARMID, "properties.other", `{"properties":{"other":"/subscriptions/0/resourceGroups/RG"}}`, `{"properties":{"other":"/subscriptions/0/resourcegroups/rg"}}`},
		{RuleARMIDName, "properties.serverFarmId", `{"properties":{"serverFarmId":"plan1"}}`, `{"properties":{"serverFarmId":"/subscriptions/0/resourceGroups/rg/providers/Microsoft.Web/serverfarms/plan1"}}`},
		{RuleName, "properties.rules[10].name", `{"properties":{"rules":[{"prio":10,"name":"Web"}]}}`, `{"properties":{"rules":[{"prio":10,"name":"web"}]}}`},
		{RuleEnum, "properties.mode", `{"properties":{"mode":"enabled"}}`, `{"properties":{"mode":"Enabled"}}`},
		{RuleToken, "properties.level", `{"properties":{"level":"BASIC"}}`, `{"properties":{"level":"Basic"}}`},
		{RuleNumeric, "properties.count", `{"properties":{"count":1}}`, `{"properties":{"count":"1"}}`},
		{RuleNumeric, "properties.memory", `{"properties":{"memory":"1.0Gi"}}`, `{"properties":{"memory":"1Gi"}}`},
		{RuleBoolString, "properties.flag", `{"properties":{"flag":"true"}}`, `{"properties":{"flag":true}}`},
		{RuleTimeEquivalence, "properties.startTime", `{"properties":{"startTime":"2023-10-12T11:17:11.000Z"}}`, `{"properties":{"startTime":"2023-10-12T11:17:11Z"}}`},
		{RuleNullAbsent, "properties.level", `{"properties":{"level":null}}`, `{"properties":{}}`},
		{RuleNullAbsent, "properties.level", `{"properties":{"level":null}}`, `{"properties":{"level":"x"}}`},
		{RuleEmptyAbsent, "properties.addresses", `{"properties":{"addresses":[]}}`, `{"properties":{}}`},
		{RuleEmptyAbsent, "properties.nested", `{"properties":{"nested":{}}}`, `{"properties":{"nested":null}}`},
		{RuleSchemaDefault, "properties.size", `{"properties":{"size":4}}`, `{"properties":{}}`},
		{RuleSchemaDefault, "properties.flag", `{"properties":{"flag":false}}`, `{"properties":{"flag":null}}`},
		{RuleScalarSet, "properties.addresses", `{"properties":{"addresses":["b","a"]}}`, `{"properties":{"addresses":["a","b"]}}`},
		{RuleServerAdded, "properties.addresses", `{"properties":{"addresses":["a"]}}`, `{"properties":{"addresses":["a","z"]}}`},
		{RuleServerAdded, "properties.unkeyed", `{"properties":{"unkeyed":[{"p":"1"}]}}`, `{"properties":{"unkeyed":[{"p":"1"},{"p":"srv"}]}}`},
		{RuleUnkeyedMatch, "properties.unkeyed", `{"properties":{"unkeyed":[{"p":"2"},{"p":"1"}]}}`, `{"properties":{"unkeyed":[{"p":"1"},{"p":"2"}]}}`},
		{RuleZeroUnset, "properties.count", `{"properties":{"count":0}}`, `{"properties":{"count":128}}`},
		{RuleZeroUnset, "properties.level", `{"properties":{"level":""}}`, `{"properties":{"level":"1.26.6"}}`},
		{RuleIdentityType, "identity.type", `{"identity":{"type":"SystemAssigned,UserAssigned"}}`, `{"identity":{"type":"SystemAssigned, UserAssigned"}}`},
		{RuleIdentityNone, "identity.type", `{"identity":{"type":"None"}}`, `{}`},
		{RuleLocationNotKept, "location", `{"location":"westus","properties":{"level":"a"}}`, `{"properties":{"level":"a"}}`},
		{RuleURLSlash, "properties.level", `{"properties":{"level":"https://kv.example.invalid/"}}`, `{"properties":{"level":"https://kv.example.invalid"}}`},
		{RuleZeroUnset, "properties.nested.a", `{"properties":{"nested":{"a":false}}}`, `{"properties":{"nested":{}}}`},
		{RuleServerAdded, "properties.nested", `{"properties":{"nested":{}}}`, `{"properties":{"nested":{"a":"srv"}}}`},
		{RuleName, "properties.rules[10].name", `{"properties":{"rules":[{"prio":10,"name":"A"}]}}`, `{"properties":{"rules":[{"prio":10,"name":"a"},{"prio":20,"name":"server-added"}]}}`},
		{RuleKeyCase, "properties.Level", `{"properties":{"Level":"x y"}}`, `{"properties":{"level":"x y"}}`},
		{RuleKeyCase, "tags.Env", `{"tags":{"Env":"Prod"}}`, `{"tags":{"env":"Prod"}}`},
	}
	for _, c := range cases {
		t.Run(c.rule+"/"+c.path, func(t *testing.T) {
			d, s := obj(t, c.desired), obj(t, c.live)
			r := Compute(Input{Desired: d, Live: s, Schema: testSchema, Explain: true})
			if r.Action != ActionNoOp {
				t.Fatalf("want no-op, got %s %v", r.Action, paths(r.Changes))
			}
			if got := ruleFor(r, c.path); got != c.rule {
				t.Errorf("rule for %s = %q, want %q (equal: %v)", c.path, got, c.rule, r.Equal)
			}
		})
	}
}

// TestRulesDoNotHideRealChanges: near-misses of every rule stay changes.
func TestRulesDoNotHideRealChanges(t *testing.T) {
	cases := []struct{ name, path, desired, live string }{
		{"location", "location", `{"location":"West US 2"}`, `{"location":"westus3"}`},
		{"arm-id", "properties.subnetRef", `{"properties":{"subnetRef":"/subscriptions/0/resourceGroups/RG/x/a"}}`, `{"properties":{"subnetRef":"/subscriptions/0/resourceGroups/RG/x/b"}}`},
		{"enum", "properties.mode", `{"properties":{"mode":"Disabled"}}`, `{"properties":{"mode":"Enabled"}}`},
		{"free-text-keeps-case", "properties.description", `{"properties":{"description":"Hello"}}`, `{"properties":{"description":"hello"}}`},
		{"tags-keep-case", `tags.env`, `{"tags":{"env":"Prod"}}`, `{"tags":{"env":"prod"}}`},
		{"numeric", "properties.count", `{"properties":{"count":2}}`, `{"properties":{"count":1}}`},
		{"quantity-unit", "properties.memory", `{"properties":{"memory":"1Gi"}}`, `{"properties":{"memory":"1Mi"}}`},
		{"time", "properties.startTime", `{"properties":{"startTime":"2023-10-12T11:17:12Z"}}`, `{"properties":{"startTime":"2023-10-12T11:17:11Z"}}`},
		{"default-only-when-absent", "properties.size", `{"properties":{"size":4}}`, `{"properties":{"size":8}}`},
		{"set-differs", "properties.addresses", `{"properties":{"addresses":["a","b"]}}`, `{"properties":{"addresses":["a","c"]}}`},
		{"positional-order", "properties.hops", `{"properties":{"hops":["b","a"]}}`, `{"properties":{"hops":["a","b"]}}`},
		{"keyed-item-member", "properties.rules[10].act", `{"properties":{"rules":[{"prio":10,"act":"Allow"}]}}`, `{"properties":{"rules":[{"prio":10,"act":"Deny"}]}}`},
		{"keyed-item-missing", "properties.rules[20]", `{"properties":{"rules":[{"prio":20,"act":"Allow"}]}}`, `{"properties":{"rules":[{"prio":10,"act":"Allow"}]}}`},
		{"name-vs-other-id", "properties.serverFarmId", `{"properties":{"serverFarmId":"plan2"}}`, `{"properties":{"serverFarmId":"/subscriptions/0/resourceGroups/rg/providers/Microsoft.Web/serverfarms/plan1"}}`},
		{"declared-but-absent", "properties.level", `{"properties":{"level":"x"}}`, `{"properties":{}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compute(Input{Desired: obj(t, c.desired), Live: obj(t, c.live), Schema: testSchema})
			if got := paths(r.Changes); len(got) != 1 || got[0] != c.path {
				t.Fatalf("changes = %v, want exactly [%s]", got, c.path)
			}
		})
	}
}

func TestStringRulesTable(t *testing.T) {
	f := buildFacts(nil, nil)
	cases := []struct {
		key, x, y string
		want      bool
	}{
		{"location", "East US", "eastus", true},
		{"location", "eastus", "eastus2", false},
		{"id", "/subscriptions/A/resourceGroups/B", "/SUBSCRIPTIONS/a/resourcegroups/b/", true},
		{"name", "MyVM", "myvm", true},
		{"mode", "Enabled", "enabled", true},
		{"mode", "two words", "Two Words", false},
		{"value", "Abc", "abc", false},
		{"t", "2024-01-01T00:00:00+01:00", "2023-12-31T23:00:00Z", true},
		{"t", "2024-01-01T00:00:00", "2024-01-01T00:00:00Z", true},
	}
	for _, c := range cases {
		if got, _ := f.stringEqual(schema.Path("properties").Member(c.key), c.key, c.x, c.y); got != c.want {
			t.Errorf("stringEqual(%s: %q, %q) = %v, want %v", c.key, c.x, c.y, got, c.want)
		}
	}
}

func TestNumericEquivalence(t *testing.T) {
	f := buildFacts(nil, nil)
	for _, c := range []struct {
		x, y any
		want bool
	}{
		{float64(1), 1, true},
		{float64(1), json.Number("1.0"), true},
		{"1.0", float64(1), true},
		{float64(1), float64(2), false},
		{"one", float64(1), false},
	} {
		if got, _ := f.scalarEqual("p", "p", c.x, c.y); got != c.want {
			t.Errorf("scalarEqual(%#v, %#v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

func TestPluginUnsetRule(t *testing.T) {
	p := &Funcs{R: Rules{Unset: map[schema.Path][]any{"properties.version": {"latest"}}}}
	r := Compute(Input{Desired: obj(t, `{"properties":{"version":"latest"}}`), Live: obj(t, `{"properties":{"version":"1.2.3"}}`), Plugin: p, Explain: true})
	if r.Action != ActionNoOp || ruleFor(r, "properties.version") != RuleUnsetValue {
		t.Fatalf("got %s %v %v", r.Action, paths(r.Changes), r.Equal)
	}
	r = Compute(Input{Desired: obj(t, `{"properties":{"version":"1.2.4"}}`), Live: obj(t, `{"properties":{"version":"1.2.3"}}`), Plugin: p})
	if len(r.Changes) != 1 {
		t.Fatalf("a real version change is hidden: %v", paths(r.Changes))
	}
}
