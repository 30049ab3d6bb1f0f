package reconcile

import "testing"

func TestStatusInSync(t *testing.T) {
	for _, tc := range []struct {
		name   string
		states []string
		want   bool
	}{
		{"nothing observed", nil, true},
		{"all in sync", []string{StateInSync, StateInSync}, true},
		{"one drifted", []string{StateInSync, StateDrifted}, false},
		{"one correcting", []string{StateCorrecting}, false},
		{"one in error", []string{StateInSync, StateError}, false},
	} {
		st := &Status{}
		for _, s := range tc.states {
			st.Resources = append(st.Resources, ResourceStatus{State: s})
		}
		if got := st.InSync(); got != tc.want {
			t.Errorf("%s: InSync = %v, want %v", tc.name, got, tc.want)
		}
	}
}
