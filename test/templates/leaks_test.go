package templates_test

import (
	"sort"
	"strings"
	"testing"
)

// knownLeaks are the templates whose secret values the tool prints today,
// each with the bug: the test fails on a leak not listed here, and on a
// listed template that no longer leaks, so the list only ever shrinks.
var knownLeaks = map[string]string{
	"application-workloads/rds/rds-update-certificate/azuredeploy.json": leakArrayItem,
	"application-workloads/opencanvas/opencanvas-lms/azuredeploy.json":  leakPlainParameter,
	// sharedKey, the IPsec pre-shared key, is a plain string parameter.
	"quickstarts/microsoft.network/site-to-site-vpn-fqdn-bgp/azuredeploy.json": leakPlainParameter,
}

// leakArrayItem was the bug behind these: a valueFrom secret inside a value
// a change carried whole (ssh publicKeys[].keyData, fileUris[],
// sslCertificates[].password) printed in clear. It is fixed (apply's
// markSensitive); the templates left here do not yet run far enough for
// the test to show it.
const leakArrayItem = "a valueFrom secret inside an array item (ssh publicKeys[].keyData, fileUris[], sslCertificates[].password) printed in clear by diff"

// leakPlainParameter: the template declares the password a plain string
// (smtp_pass), so ARM treats it as an ordinary value too; the test's
// parameter file fills it from a password placeholder, which is why the
// scan sees it.
const leakPlainParameter = "the template declares this password a plain string parameter (opencanvas-lms' smtp_pass, site-to-site-vpn-fqdn-bgp's sharedKey): the manifests carry it as the template does"

// checkLeaks fails on every secret value that reached an output, except
// the known ones, and on known leaks that are gone.
func checkLeaks(t *testing.T, rep report) {
	t.Helper()
	leaks := rep.leaks()
	var fresh []string
	for tpl, where := range leaks {
		if _, known := knownLeaks[tpl]; !known {
			fresh = append(fresh, tpl+" (in "+where+")")
		}
	}
	sort.Strings(fresh)
	if len(fresh) > 0 {
		t.Errorf("a secret value appeared in the output of %d templates: %s", len(fresh), strings.Join(fresh, ", "))
	}
	// Only a template that went all the way can show a leak is fixed; one
	// that failed earlier may just not have reached the leaking command.
	passed := map[string]bool{}
	for _, r := range rep.results {
		passed[r.template] = r.class == classPass
	}
	for tpl, bug := range knownLeaks {
		if _, still := leaks[tpl]; passed[tpl] && !still {
			t.Errorf("%s no longer leaks (%s): remove it from knownLeaks", tpl, bug)
		}
	}
	if len(leaks) > len(fresh) {
		t.Logf("%d templates leak as known (knownLeaks)", len(leaks)-len(fresh))
	}
}
