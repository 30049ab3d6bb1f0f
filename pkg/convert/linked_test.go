package convert_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

// TestLinkedTemplates: a templateLink is read from the local copy its URI
// maps to (by prefix, by the template's own URI through
// _artifactsLocation, by relativePath) and inlined as a nested deployment
// is; one that maps nowhere is a problem naming the flag.
func TestLinkedTemplates(t *testing.T) {
	repo := filepath.Join("testdata", "linked", "repo")
	links := []convert.Link{{Prefix: "https://example.com/repo/main/", Dir: repo}}
	cases := []struct {
		name  string
		file  string
		links []convert.Link
		want  []string // in the output
		not   []string // not in the output
		err   string   // in the problem, when it fails
	}{
		{
			name:  "mapped",
			file:  filepath.Join(repo, "app", "azuredeploy.json"),
			links: links,
			want: []string{
				"name: stbyuri", "name: Standard_LRS", // by URI, the module's default sku
				"name: stfromfile", "name: Premium_LRS", // parametersLink
				"name: id-artifacts", // _artifactsLocation defaults to the template's own URI
				"name: id-relative",  // relativePath
			},
			not: []string{"Microsoft.Resources/deployments", "templateLink"},
		},
		{
			name: "unmapped by URI",
			file: filepath.Join("testdata", "linked", "unmapped.json"),
			err:  "a linked template (https://example.org/other/main.json) is not converted: give --linked-templates URL_PREFIX=DIR",
		},
		{
			name:  "prefix maps elsewhere",
			file:  filepath.Join("testdata", "linked", "unmapped.json"),
			links: links,
			err:   "--linked-templates URL_PREFIX=DIR",
		},
		{
			name: "own URI unknown",
			file: filepath.Join(repo, "app", "azuredeploy.json"),
			err:  "deployment().properties.templateLink",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			tmpl, err := convert.Parse(c.file, data)
			if err != nil {
				t.Fatal(err)
			}
			res, err := tmpl.Convert(context.Background(), convert.Options{
				Scope: convert.Scope{ResourceGroup: "rg-app", Location: "westeurope"},
				Links: c.links,
			})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("want a problem containing %q, got %v", c.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := convert.Write(&buf, res.Manifests, "yaml"); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			wantAll(t, out, c.want...)
			for _, n := range c.not {
				if strings.Contains(out, n) {
					t.Errorf("output has %q:\n%s", n, out)
				}
			}
		})
	}
}

func TestParseLink(t *testing.T) {
	for _, c := range []struct {
		in, prefix, dir string
		ok              bool
	}{
		{"https://example.com/r/main/=./repo", "https://example.com/r/main/", "./repo", true},
		{"https://example.com/a=b/=dir", "https://example.com/a=b/", "dir", true},
		{"nodir=", "", "", false},
		{"=dir", "", "", false},
		{"plain", "", "", false},
	} {
		l, err := convert.ParseLink(c.in)
		if (err == nil) != c.ok || l.Prefix != c.prefix || l.Dir != c.dir {
			t.Errorf("ParseLink(%q) = %+v, %v", c.in, l, err)
		}
	}
}

// TestEvaluateLinked: Evaluate inlines linked templates from the same
// local copies, with the module's parameters and defaults.
func TestEvaluateLinked(t *testing.T) {
	file := filepath.Join("testdata", "linked", "repo", "app", "azuredeploy.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := convert.Parse(file, data)
	if err != nil {
		t.Fatal(err)
	}
	s := convert.Scope{Subscription: "00000000-0000-0000-0000-000000000001", ResourceGroup: "rg-app", Location: "westeurope"}
	res, _, err := tmpl.Evaluate(context.Background(), s, convert.WithLinks(convert.Link{Prefix: "https://example.com/repo/main/", Dir: filepath.Join("testdata", "linked", "repo")}))
	if err != nil {
		t.Fatal(err)
	}
	skus := map[string]any{}
	for _, r := range res {
		if r.Type == "Microsoft.Storage/storageAccounts" {
			skus[r.Name] = r.Body["sku"].(map[string]any)["name"]
		}
	}
	if skus["stbyuri"] != "Standard_LRS" || skus["stfromfile"] != "Premium_LRS" || len(res) != 5 {
		t.Errorf("resources = %+v", res)
	}
}
