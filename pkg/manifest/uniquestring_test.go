package manifest

import "testing"

// TestARMUniqueString checks published outputs of ARM's own uniqueString.
func TestARMUniqueString(t *testing.T) {
	tests := []struct {
		args []string
		want string
		hash uint64 // 0 when the source gives only the string
		src  string
	}{
		// Stack Overflow question 43295720 ("Azure ARM uniqueString function
		// mimic"): the value ARM's expression library returns for "tyeth".
		{args: []string{"tyeth"}, want: "zcztcwvu6iyg6", src: "stackoverflow.com/questions/43295720"},
		// The README of github.com/JasonWhall/go-azure-uniquestring gives
		// the hash and the string for uniqueString('hello', 'world').
		{args: []string{"hello", "world"}, want: "a7wkljktk6wne", hash: 571013382255652050, src: "JasonWhall/go-azure-uniquestring"},
		// A unit test of the Marketplace offer project Modm
		// (ArmFunctionsTests.UniqueStringShouldEqualValueCreatedFromArmTemplate)
		// compares with the output of a real ARM deployment.
		{args: []string{"/subscriptions/31e9f9a0-9fd2-4294-a0a3-0101246d9700/resourceGroups/rg-modm201-20230913120256/providers/Microsoft.Compute/virtualMachines/bobjacmodm201"}, want: "yvjxno3je5on2", src: "Modm ArmFunctionsTests"},
	}
	for _, tt := range tests {
		if got := ARMUniqueString(tt.args...); got != tt.want {
			t.Errorf("uniqueString(%q) = %s, want %s (%s)", tt.args, got, tt.want, tt.src)
		}
		if tt.hash != 0 {
			if got := armHash64([]byte(tt.args[0] + "-" + tt.args[1])); got != tt.hash {
				t.Errorf("hash(%q) = %d, want %d", tt.args, got, tt.hash)
			}
		}
	}
	// Every tail length (0..7 bytes after the 8-byte blocks) and the
	// alphabet's shape: 13 characters of a-z2-7.
	for n := 0; n < 17; n++ {
		s := ARMUniqueString(string(make([]byte, n)))
		if len(s) != 13 {
			t.Fatalf("len = %d", len(s))
		}
		for _, c := range s {
			if !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
				t.Fatalf("%q has %q", s, c)
			}
		}
	}
}

// TestUniqueStringPlaceholder: ${uniqueString:...} over IDs is computed at
// load time, over a live value at apply time, as ARM's uniqueString.
func TestUniqueStringPlaceholder(t *testing.T) {
	s := load(t, docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("id-app", idType, "resourceGroup: rg-demo", "{location: westeurope}"),
		doc("st", stType, "resourceGroup: rg-demo\n  name: st${uniqueString:${ref:rg-demo}}", "{location: westeurope, tags: {u: '${uniqueString:${resourceGroupId:rg-other},${subscriptionId}}'}}"),
		doc("late", stType, "resourceGroup: rg-demo\n  name: s${uniqueString:${ref:id-app.properties.principalId}}", "{location: westeurope}"),
	))
	st := byName(t, s, "st"+ARMUniqueString(rgID))
	other := "/subscriptions/" + testSub + "/resourceGroups/rg-other"
	if got := st.Body["tags"].(map[string]any)["u"]; got != ARMUniqueString(other, testSub) {
		t.Errorf("tags.u = %v", got)
	}
	late := byName(t, s, nameKnownAfterApply)
	v, known, err := late.NameDeferred.Resolve(func(ValueRef) (any, bool) { return "pid", true })
	if err != nil || !known || v != "s"+ARMUniqueString("pid") {
		t.Errorf("Resolve = %v, %v, %v", v, known, err)
	}
}
