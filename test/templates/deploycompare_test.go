package templates_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// compareMax bounds how many templates the deployment comparison runs
// (-short: compareShort): each is deployed and applied on emulators of
// its own.
// emulatorTenant is the tenant the emulator's subscriptions belong to.
const emulatorTenant = "72f988bf-0000-4000-8000-00000000e0e0"

const (
	compareMax   = 60
	compareShort = 12
)

// TestDeploymentAndConvertLeaveTheSameResources deploys quickstart
// templates through ARM's own deployment API (the emulator evaluates the
// template) and converts and applies the same templates with the same
// parameters on a second emulator: both must leave the same resource IDs
// with the same bodies, but for what ARM stamps on every write (etag,
// systemData, timestamps). Templates with secure parameters are left out
// (convert reads those from the environment, the deployment from its
// parameters, so the bodies differ on purpose), and so are templates the
// emulator cannot deploy (reference() and list*() need values deployed
// resources have; linked templates): the test says how many of each.
func TestDeploymentAndConvertLeaveTheSameResources(t *testing.T) {
	// The tenant both sides see: the deploying emulator's own.
	t.Setenv("AZURE_TENANT_ID", emulatorTenant)
	limit := compareMax
	if testing.Short() {
		limit = compareShort
	}
	var compared, skippedSecure, skippedDeploy, mismatched int
	var notes []string
	for _, rel := range templates(t) {
		if compared >= limit {
			break
		}
		switch outcome, diff := compareTemplate(t, rel); outcome {
		case compareSecure:
			skippedSecure++
		case compareUndeployable:
			skippedDeploy++
		case compareSame:
			compared++
		case compareDiffer:
			compared++
			mismatched++
			notes = append(notes, rel+": "+diff)
		}
	}
	t.Logf("compared %d templates (%d with secure or prerequisite parameters left out, %d the emulator could not deploy)", compared, skippedSecure, skippedDeploy)
	if compared < limit/2 {
		t.Errorf("only %d templates compared, want at least %d", compared, limit/2)
	}
	for _, n := range notes {
		t.Errorf("deployment and convert+apply differ: %s", n)
	}
}

// readingTemplates are public quickstarts whose resources read each
// other with reference() or list*(): a web app's subnet is the
// network's first, its settings the Cosmos DB account's endpoint and
// keys, a CDN or Front Door origin the web app's host name, a role
// assignment's principal the cluster's identity. ARM deploys the read resource
// first and evaluates the reader's values from it; the emulator's
// deployment must do the same and leave what convert + apply leaves.
var readingTemplates = []string{
	"quickstarts/microsoft.web/app-service-regional-vnet-integration/azuredeploy.json",
	"quickstarts/microsoft.documentdb/cosmosdb-webapp/azuredeploy.json",
	"quickstarts/microsoft.cdn/front-door-standard-premium-app-service-public/azuredeploy.json",
	"quickstarts/microsoft.cdn/cdn-with-web-app/azuredeploy.json",
	"quickstarts/microsoft.devices/iothub-device-provisioning/azuredeploy.json",
	"quickstarts/microsoft.apimanagement/api-management-create-with-external-redis-cache/azuredeploy.json",
	"quickstarts/microsoft.kusto/kusto-event-hub/azuredeploy.json",
}

// TestDeploymentOfReadingTemplatesLeavesTheSameResources: each of
// readingTemplates deploys through the deployments API and leaves the
// same resources as convert + apply; none may be skipped.
func TestDeploymentOfReadingTemplatesLeavesTheSameResources(t *testing.T) {
	t.Setenv("AZURE_TENANT_ID", emulatorTenant)
	for _, rel := range readingTemplates {
		t.Run(filepath.Base(filepath.Dir(rel)), func(t *testing.T) {
			switch outcome, diff := compareTemplate(t, rel); outcome {
			case compareSame:
			case compareDiffer:
				t.Errorf("deployment and convert+apply differ: %s", diff)
			default:
				t.Errorf("not compared: %s (%s)", outcome, diff)
			}
		})
	}
}

// compareOutcome is what comparing one template gave.
type compareOutcome string

const (
	compareSame         compareOutcome = "same"
	compareDiffer       compareOutcome = "differ"
	compareSecure       compareOutcome = "secure or prerequisite parameters"
	compareUndeployable compareOutcome = "the emulator could not deploy it"
	compareUnknownType  compareOutcome = "a type the emulator does not know"
	compareNotApplied   compareOutcome = "convert or apply failed"
)

// compareTemplate deploys rel on one emulator and converts and applies it
// on another, and compares what both hold; the string says how they
// differ, or why they were not compared.
func compareTemplate(t *testing.T, rel string) (compareOutcome, string) {
	if u := unknownTypes(filepath.Join(corpusDir, rel)); u != "" {
		return compareUnknownType, u
	}
	work := t.TempDir()
	args, sub, err := convertArgs(rel, filepath.Join(work, "params.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sub.secrets) > 0 || len(sub.prerequisites) > 0 || len(sub.fixed) > 0 || hasSecureParameter(t, rel) {
		return compareSecure, ""
	}
	deployed := harness.StartARM(t, corpusOptions())
	defer deployed.Stop()
	deployed.SeedGroup(group)
	if reason := deploy(t, deployed, rel, filepath.Join(work, "params.json"), args); reason != "" {
		return compareUndeployable, reason
	}
	applied := harness.StartARM(t, corpusOptions())
	defer applied.Stop()
	out := filepath.Join(work, "manifests")
	if r := harness.RunRaw(append(args, "--output-dir", out)...); r.Code != 0 {
		return compareNotApplied, "convert" // the corpus test classifies convert failures
	}
	if r := harness.Run(applied.URL, filepath.Join(work, "state.json"), "apply", "-f", out, "--yes"); r.Code != 0 {
		return compareNotApplied, "apply" // likewise apply failures
	}
	if diff := compareLive(liveBodies(t, deployed), liveBodies(t, applied)); diff != "" {
		return compareDiffer, diff
	}
	return compareSame, ""
}

func hasSecureParameter(t *testing.T, rel string) bool {
	raw, err := os.ReadFile(filepath.Join(corpusDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	l := strings.ToLower(string(raw))
	return strings.Contains(l, `"securestring"`) || strings.Contains(l, `"secureobject"`)
}

// deploy PUTs the template as a deployment and waits for it; it returns
// why it did not succeed, or "".
func deploy(t *testing.T, arm *harness.ARM, rel, params string, args []string) string {
	raw, err := os.ReadFile(filepath.Join(corpusDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	var tpl any
	if err := json.Unmarshal(raw, &tpl); err != nil {
		return "not strict JSON"
	}
	values := map[string]any{}
	if b, err := os.ReadFile(params); err == nil {
		var pf struct {
			Parameters map[string]map[string]any `json:"parameters"`
		}
		if json.Unmarshal(b, &pf) == nil {
			for k, v := range pf.Parameters {
				if val, ok := v["value"]; ok {
					values[k] = map[string]any{"value": val}
				}
			}
		}
	}
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--param" {
			k, v, _ := strings.Cut(args[i+1], "=")
			values[k] = map[string]any{"value": v}
		}
	}
	body, _ := json.Marshal(map[string]any{"properties": map[string]any{"mode": "Incremental", "template": tpl, "parameters": values}})
	url := arm.URL + "/subscriptions/" + harness.Sub + "/resourceGroups/" + group + "/providers/Microsoft.Resources/deployments/compare?api-version=2022-09-01"
	req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode >= 300 {
		return fmt.Sprintf("PUT %d", res.StatusCode)
	}
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		r, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Properties struct {
				ProvisioningState string          `json:"provisioningState"`
				Error             json.RawMessage `json:"error"`
			} `json:"properties"`
		}
		_ = json.NewDecoder(r.Body).Decode(&d)
		r.Body.Close()
		switch d.Properties.ProvisioningState {
		case "Succeeded":
			return ""
		case "Failed", "Canceled":
			return d.Properties.ProvisioningState + ": " + clip(string(d.Properties.Error))
		}
	}
	return "timed out"
}

// liveBodies is every resource the emulator holds but the deployment and
// the group itself, by lower-cased ID, without what every write stamps.
func liveBodies(t *testing.T, arm *harness.ARM) map[string]any {
	out := map[string]any{}
	for _, r := range arm.Live() {
		id := strings.ToLower(r.ID)
		if strings.Contains(id, "/providers/microsoft.resources/deployments/") || !strings.Contains(id, "/providers/") {
			continue
		}
		out[id] = stripStamps(r.Body)
	}
	return out
}

// sameModuloServer says whether two scalars differ only as two emulators
// would make them differ: times of the write, GUIDs each emulator draws
// for a server-generated field (resourceGuid, ...), and the casing of ARM
// IDs, which ARM compares case-insensitively (a template's
// resourceId('Microsoft.Web/serverFarms', ...) keeps its casing, a
// manifest's reference takes the declared type's).
func sameModuloServer(d, a any) bool {
	ds, ok1 := d.(string)
	as, ok2 := a.(string)
	if !ok1 || !ok2 {
		return false
	}
	if _, err := time.Parse(time.RFC3339Nano, ds); err == nil {
		if _, err := time.Parse(time.RFC3339Nano, as); err == nil {
			return true
		}
	}
	ds, as = guidInRE.ReplaceAllString(ds, "GUID"), guidInRE.ReplaceAllString(as, "GUID")
	if ds == as {
		return true
	}
	return looksLikeID(ds) && strings.EqualFold(canonicalGroupID(ds), canonicalGroupID(as))
}

var guidInRE = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

func looksLikeID(s string) bool { return strings.HasPrefix(strings.ToLower(s), "/subscriptions/") }

// canonicalGroupID writes subscriptionResourceId's form of a group
// (/subscriptions/S/providers/Microsoft.Resources/resourceGroups/G) as the
// group's own ID: ARM names the same group both ways.
func canonicalGroupID(id string) string {
	l := strings.ToLower(id)
	const alias = "/providers/microsoft.resources/resourcegroups/"
	if i := strings.Index(l, alias); i > 0 && strings.Count(l[:i], "/") == 2 {
		return id[:i] + "/resourceGroups/" + id[i+len(alias):]
	}
	return id
}

func stripStamps(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			switch k {
			case "etag", "systemData", "createdTime", "changedTime", "creationTime", "createdAt", "lastModifiedAt", "timeCreated", "creationDate":
				continue
			}
			m[k] = stripStamps(e)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripStamps(e)
		}
		return out
	}
	return v
}

func compareLive(dep, app map[string]any) string {
	var only []string
	for id := range dep {
		if _, ok := app[id]; !ok {
			only = append(only, "only deployed: "+id)
		}
	}
	for id := range app {
		if _, ok := dep[id]; !ok {
			only = append(only, "only applied: "+id)
		}
	}
	for id, b := range dep {
		if a, ok := app[id]; ok {
			var d []string
			diffValues("", b, a, &d)
			for _, x := range d {
				only = append(only, id+" "+x)
			}
		}
	}
	sort.Strings(only)
	if len(only) > 6 {
		only = append(only[:6], fmt.Sprintf("(+%d more)", len(only)-6))
	}
	return strings.Join(only, "; ")
}

// diffValues appends "path: deployed X, applied Y" for each difference.
func diffValues(path string, d, a any, out *[]string) {
	dm, dok := d.(map[string]any)
	am, aok := a.(map[string]any)
	if dok && aok {
		// Members are compared ignoring case, as providers read them: the
		// manifest writes the schema's spelling (memoryInGB), a template
		// may carry another (memoryInGb), and Azure holds its own.
		dm, am = foldKeys(dm), foldKeys(am)
		keys := map[string]bool{}
		for k := range dm {
			keys[k] = true
		}
		for k := range am {
			keys[k] = true
		}
		for k := range keys {
			diffValues(path+"."+k, dm[k], am[k], out)
		}
		return
	}
	dl, dok := d.([]any)
	al, aok := a.([]any)
	if dok && aok && len(dl) == len(al) {
		for i := range dl {
			diffValues(fmt.Sprintf("%s[%d]", path, i), dl[i], al[i], out)
		}
		return
	}
	if sameModuloServer(d, a) {
		return
	}
	dj, _ := json.Marshal(d)
	aj, _ := json.Marshal(a)
	if string(dj) != string(aj) {
		*out = append(*out, fmt.Sprintf("%s: deployed %s, applied %s", strings.TrimPrefix(path, "."), clip(string(dj)), clip(string(aj))))
	}
}

// foldKeys returns m keyed by lower-cased member names.
func foldKeys(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[strings.ToLower(k)] = v
	}
	return out
}
