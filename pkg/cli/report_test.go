package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// Warnings found together with errors are shown too, each with its
// severity, in text, JSON and annotations.
func TestReportShowsWarningsWithErrors(t *testing.T) {
	err := withCode(ExitValidation, &manifest.ValidationError{Problems: []manifest.Problem{
		{File: "infra/st.yaml", Index: 0, Line: 7, Path: "spec.type", Message: "no api-version", Severity: manifest.SeverityError},
		{File: "infra/st.yaml", Index: 1, Line: 12, Path: "spec.body.properties.minimumTlsVersoin", Message: "unknown property; did you mean minimumTlsVersion?", Severity: manifest.SeverityWarning},
	}})
	var out, errOut bytes.Buffer
	g := DefaultGlobalOptions()
	g.Output, g.Annotations = "json", "github"
	report(g, genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, false, err)
	for _, want := range []string{
		"error: infra/st.yaml#0 (line 7): spec.type: no api-version\n",
		"warning: infra/st.yaml#1 (line 12): spec.body.properties.minimumTlsVersoin: unknown property; did you mean minimumTlsVersion?\n",
		"::error file=infra/st.yaml,line=7,",
		"::warning file=infra/st.yaml,line=12,",
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	var doc struct {
		Problems []struct{ Severity string } `json:"problems"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Problems) != 2 || doc.Problems[0].Severity != "error" || doc.Problems[1].Severity != "warning" {
		t.Errorf("-o json: %v %+v\n%s", err, doc, out.String())
	}
}
