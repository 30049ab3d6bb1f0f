package printer

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestPrintFlags(t *testing.T) {
	cases := []struct {
		name, output string
		templates    bool
		wantFormat   string
		wantErr      string
		machine      bool
	}{
		{name: "empty is text", output: "", wantFormat: OutputText},
		{name: "allowed", output: "json", wantFormat: OutputJSON, machine: true},
		{name: "name is for programs", output: "name", wantFormat: OutputName, machine: true},
		{name: "unknown lists allowed", output: "xml", wantErr: `unknown output format "xml": use -o text|json|name`},
		{name: "not allowed here", output: "markdown", wantErr: `unknown output format "markdown": use -o text|json|name`},
		{name: "template without templates", output: "jsonpath={.id}", wantErr: `unknown output format "jsonpath={.id}": use -o text|json|name`},
		{name: "template", output: "jsonpath={.id}", templates: true, wantFormat: OutputJSONPath, machine: true},
		{name: "bad template", output: "jsonpath={.id", templates: true, wantErr: "-o jsonpath: "},
		{name: "unknown with templates", output: "xml", templates: true, wantErr: "use -o text|json|name|jsonpath=TEMPLATE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewPrintFlags(OutputText, OutputJSON, OutputName)
			if tc.templates {
				f.WithTemplates(OutputJSONPath)
			}
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			f.AddFlags(fs)
			if tc.output != "" {
				if err := fs.Parse([]string{"-o", tc.output}); err != nil {
					t.Fatal(err)
				}
			}
			p, err := f.ToPrinter(Options{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if verr := f.Validate(); verr == nil || verr.Error() != err.Error() {
					t.Errorf("Validate = %v, ToPrinter = %v: they must agree", verr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Format() != tc.wantFormat || p.Machine() != tc.machine {
				t.Errorf("format %q machine %v, want %q %v", p.Format(), p.Machine(), tc.wantFormat, tc.machine)
			}
		})
	}
}

func TestPrintFlagsNamesTheCommand(t *testing.T) {
	out := "xml"
	_, err := NewPrintFlags(OutputText).WithOutput(&out).ToPrinter(Options{})
	var unknown *UnknownFormatError
	if !errors.As(err, &unknown) {
		t.Fatalf("err = %v, want an UnknownFormatError", err)
	}
	unknown.Command = "kubectl azure version"
	if want := `unknown output format "xml" for kubectl azure version: use -o text`; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}

func TestPrintFlagsRejectsBadColour(t *testing.T) {
	if _, err := NewPrintFlags(OutputText).ToPrinter(Options{Color: "sometimes"}); err == nil || !strings.Contains(err.Error(), "colour") {
		t.Errorf("err = %v, want the unknown colour mode", err)
	}
}

func TestPrinterPrintObject(t *testing.T) {
	doc := map[string]any{"id": "/a&b", "num": 12345678901234567890.0, "tags": map[string]any{"app": "demo"}}
	for _, tc := range []struct{ output, want string }{
		{"json", "{\n  \"id\": \"/a&b\",\n  \"num\": 12345678901234567000,\n  \"tags\": {\n    \"app\": \"demo\"\n  }\n}\n"},
		{"yaml", "id: /a&b\nnum: 12345678901234567000\ntags:\n  app: demo\n"},
		{"jsonpath={.tags.app}", "demo\n"},
	} {
		out := tc.output
		f := NewPrintFlags(OutputJSON, OutputYAML, OutputText).WithTemplates(OutputJSONPath).WithOutput(&out)
		p, err := f.ToPrinter(Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := p.PrintObject(&buf, doc); err != nil {
			t.Fatalf("%s: %v", tc.output, err)
		}
		if buf.String() != tc.want {
			t.Errorf("-o %s:\n%q\nwant\n%q", tc.output, buf.String(), tc.want)
		}
	}
	text := "text"
	p, _ := NewPrintFlags(OutputText).WithOutput(&text).ToPrinter(Options{})
	if err := p.PrintObject(&bytes.Buffer{}, doc); err == nil {
		t.Error("text printed as a document; the command's own table is expected")
	}
}
