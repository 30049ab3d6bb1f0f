package reconcile

import (
	"reflect"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// TestLoopEngineHasNoConsent: whatever consent and mode the loop's base
// options carry, every engine it builds has apply.NoConsent and the normal
// mode. Every permission is set through reflection, so one added to
// apply.Consent later is checked without this test changing.
func TestLoopEngineHasNoConsent(t *testing.T) {
	base := apply.DefaultOptions()
	all := reflect.ValueOf(&base.Consent).Elem()
	for i := range all.NumField() {
		if all.Field(i).Kind() != reflect.Bool {
			t.Fatalf("apply.Consent.%s is not a bool: extend this test", all.Type().Field(i).Name)
		}
		all.Field(i).SetBool(true)
	}
	base.Mode = plan.ModeDelete
	c := &Controller{Engine: base}
	eng, release := c.engine(nil, true, nil)
	defer release()
	if eng.Options.Consent != apply.NoConsent() {
		t.Fatalf("the loop's engine consents to %+v", eng.Options.Consent)
	}
	if eng.Options.Mode != plan.ModeNormal {
		t.Fatalf("the loop's engine runs in mode %s", eng.Options.Mode)
	}
}
