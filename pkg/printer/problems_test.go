package printer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

func sampleProblems() []Problem {
	return []Problem{
		{File: "infra/storage.yaml", Document: 0, Line: 12, Path: "spec.body.sku.name", Message: "value \"Premium_XRS\" is not one of Standard_LRS, Premium_LRS"},
		{File: "infra/net,work.yaml", Document: 2, Path: "metadata.name", Message: "name \"a\x1b[2Jb\" has control characters"},
		{File: "infra/storage.yaml", Document: 0, Line: 14, Path: "spec.body.properties.minimumTlsVersoin", Severity: plan.SeverityWarning, Message: "unknown property; did you mean minimumTlsVersion?"},
	}
}

// A name may carry a newline followed by "::", which GitHub Actions reads
// as a workflow command at the start of any log line (after blanks).
func TestCleanTextNeverStartsAWorkflowCommand(t *testing.T) {
	for in, want := range map[string]string{
		"a\n::error::x":            `a\u000a::error::x`,
		"a\n  ::add-mask::x\nb":    "a\\u000a  ::add-mask::x\nb",
		"a\r\n::warning::x":        `a\u000d\u000a::warning::x`,
		"line one\nline two: ok::": "line one\nline two: ok::",
	} {
		if got := CleanText(nil, in); got != want {
			t.Errorf("CleanText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := CleanLine(nil, "dir/a\n::error::x.yaml"); got != `dir/a\u000a::error::x.yaml` {
		t.Errorf("CleanLine kept the newline: %q", got)
	}
	var buf bytes.Buffer
	_ = ProblemLines(&buf, nil, []Problem{{File: "a\n::error::b.yaml", Document: 0, Line: 3, Message: "two\n::lines"}})
	if want := "error: a\\u000a::error::b.yaml#0 (line 3): two\\u000a::lines\n"; buf.String() != want {
		t.Errorf("ProblemLines = %q, want %q", buf.String(), want)
	}
}

func TestPrintProblemsGolden(t *testing.T) {
	for _, tc := range []struct{ output, golden string }{
		{OutputJSON, "problems.json"},
		{OutputYAML, "problems.yaml"},
		{OutputMarkdown, "problems.md"},
		{OutputText, "problems.txt"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := PrintProblems(&buf, "3 problem(s) in the manifests; nothing was sent to Azure", sampleProblems(), Options{Output: tc.output}); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(buf.String(), "\x1b") {
				t.Errorf("escape code reached the output:\n%s", buf.String())
			}
			golden(t, tc.golden, buf.Bytes())
		})
	}
}

func TestAnnotateGolden(t *testing.T) {
	var buf bytes.Buffer
	ps := append(sampleProblems(), Problem{Document: -1, Message: "line one\nline two 100%"})
	if err := Annotate(&buf, nil, ps); err != nil {
		t.Fatal(err)
	}
	golden(t, "annotations.txt", buf.Bytes())
}

func TestProblemsScrubSecrets(t *testing.T) {
	const token = "tok-9f8e7d6c5b4a-secret"
	reg := secret.NewRegistry()
	reg.Register(token)
	for _, out := range []string{OutputJSON, OutputYAML, OutputMarkdown, OutputText} {
		var buf bytes.Buffer
		if err := PrintProblems(&buf, "failed with "+token, []Problem{{Document: -1, Message: "bad key " + token}}, Options{Output: out, Secrets: reg}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), token) {
			t.Errorf("-o %s leaked the secret:\n%s", out, buf.String())
		}
	}
}

func TestTruncateKeepsTheEnd(t *testing.T) {
	id := `"/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/nsg-app"`
	for _, n := range []int{1, 2, 10, 40, 80} {
		got := truncate(id, n)
		if w := len([]rune(got)); w != n {
			t.Errorf("truncate(id, %d) is %d cells: %q", n, w, got)
		}
		if n >= 40 && !strings.HasSuffix(got, `nsg-app"`) {
			t.Errorf("truncate(id, %d) = %q lost the name at the end", n, got)
		}
	}
	if got := truncate("short", 10); got != "short" {
		t.Errorf("truncate(short) = %q", got)
	}
}

func TestOperations(t *testing.T) {
	cases := []struct {
		name    string
		changes []plan.Change
		want    string
	}{
		{"member added under an existing object", []plan.Change{{Path: "tags.owner", After: "x", Kind: plan.KindAdd}},
			`[{"value":"x","op":"add","path":"/tags/owner"}]`},
		{"quoted member and exact big number", []plan.Change{{Path: `tags."a.b"`, Before: json.Number("9007199254740993"), After: json.Number("12345678901234567890"), Kind: plan.KindChange}},
			`[{"value":12345678901234567890,"op":"replace","path":"/tags/a.b"}]`},
		{"removal", []plan.Change{{Path: "properties.x", Before: true, Kind: plan.KindRemove}},
			`[{"op":"remove","path":"/properties/x"}]`},
		// A property no longer managed is not written: Azure keeps its
		// value, so the patch does not remove it.
		{"no longer managed", []plan.Change{{Path: "properties.x", Before: true, Kind: plan.KindRemove, Cause: plan.CauseRemoval}}, `null`},
		{"no longer managed beside a change", []plan.Change{
			{Path: "properties.x", Before: true, Kind: plan.KindRemove, Cause: plan.CauseRemoval},
			{Path: "properties.y", Before: "a", After: "b", Kind: plan.KindChange, Cause: plan.CauseUser}},
			`[{"value":"b","op":"replace","path":"/properties/y"}]`},
		{"keyed item cannot be a pointer", []plan.Change{{Path: "properties.subnets[default].name", After: "a", Kind: plan.KindAdd}}, `null`},
		{"whole-resource placeholder only", []plan.Change{{Path: "", After: nil, Kind: plan.KindRemove}}, `null`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(operations(plan.Resource{Changes: tc.changes}))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got %s, want %s", b, tc.want)
			}
		})
	}
}

func TestResultGolden(t *testing.T) {
	p := samplePlan()
	res := plan.Result{Plan: p, Results: []plan.ResourceResult{
		{ID: p.Resources[0].ID, Action: plan.ActionCreate, Status: plan.StatusDone},
		{ID: p.Resources[1].ID, Action: plan.ActionUpdate, Status: plan.StatusDone, Notes: []string{"Azure kept properties.allowBlobPublicAccess = true; it is no longer managed"}},
		{ID: p.Resources[2].ID, Action: plan.ActionUpdate, Status: plan.StatusFailed, Error: "PUT failed: 400 InvalidParameter " + secretValue},
		{ID: p.Resources[3].ID, Action: plan.ActionReplace, Status: plan.StatusSkipped, Error: "dependency failed"},
	}}
	for _, tc := range []struct{ output, golden string }{
		{OutputJSON, "result.json"}, {OutputYAML, "result.yaml"}, {OutputText, "result.txt"}, {OutputName, "result-name.txt"},
		{OutputMarkdown, "result.md"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			reg := secret.NewRegistry()
			reg.Register(secretValue)
			var buf bytes.Buffer
			if err := PrintResult(&buf, res, Options{Output: tc.output, Secrets: reg}); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(buf.String(), secretValue) {
				t.Fatalf("secret leaked:\n%s", buf.String())
			}
			if tc.output == OutputJSON {
				var doc struct {
					Summary plan.ResultSummary `json:"summary"`
					Results []plan.ResourceResult
				}
				dec := json.NewDecoder(&buf)
				if err := dec.Decode(&doc); err != nil || dec.More() {
					t.Fatalf("not exactly one JSON document: %v", err)
				}
				if doc.Summary != (plan.ResultSummary{Done: 2, Failed: 1, Skipped: 1}) {
					t.Errorf("summary %+v does not agree with the results", doc.Summary)
				}
				buf.Reset()
				_ = PrintResult(&buf, res, Options{Output: tc.output, Secrets: reg})
			}
			golden(t, tc.golden, buf.Bytes())
		})
	}
}

func TestPrintManifestsGolden(t *testing.T) {
	rs := []ManifestResource{
		{ID: sub + "/resourceGroups/rg-demo", Type: "Microsoft.Resources/resourceGroups", APIVersion: "2021-04-01", Name: "rg-demo", Origin: "infra/rg.yaml#0"},
		{ID: sub + "/resourceGroups/rg-demo/providers/Microsoft.Storage/storageAccounts/stdemo001", Type: "Microsoft.Storage/storageAccounts", APIVersion: "2023-05-01", Name: "stdemo001", Origin: "infra/storage.yaml#0"},
	}
	for _, tc := range []struct{ output, golden string }{
		{OutputText, "manifests.txt"}, {OutputName, "manifests-name.txt"}, {OutputJSON, "manifests.json"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := PrintManifests(&buf, append([]ManifestResource(nil), rs...), Options{Output: tc.output}); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.golden, buf.Bytes())
		})
	}
}
