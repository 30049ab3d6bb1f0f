package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"
)

var krewPlatforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// krewPlugin is a krew Plugin (krew.googlecontainertools.github.com/v1alpha2)
// with the fields this manifest uses; decoding is strict, so a misspelt or
// misplaced field fails as krew's own validation would.
type krewPlugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct{ Name string }
	Spec       struct {
		Version          string
		Homepage         string
		ShortDescription string `json:"shortDescription"`
		Description      string
		Caveats          string
		Platforms        []struct {
			Selector struct{ MatchLabels map[string]string } `json:"selector"`
			URI      string
			Sha256   string
			Bin      string
			Files    []struct{ From, To string }
		}
	}
}

// checkKrewPlugin validates data as the krew Plugin of this tool for the six
// platforms, version wantVersion, archives under release named as
// hack/dist.sh names them.
func checkKrewPlugin(t *testing.T, data []byte, wantVersion, release string) {
	t.Helper()
	var m krewPlugin
	if err := yaml.UnmarshalStrict(data, &m); err != nil {
		t.Fatalf("not YAML a krew Plugin decodes: %v\n%s", err, data)
	}
	if m.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || m.Kind != "Plugin" || m.Metadata.Name != "azure" || m.Spec.Version != wantVersion {
		t.Fatalf("not the krew Plugin azure %s: apiVersion=%q kind=%q name=%q version=%q", wantVersion, m.APIVersion, m.Kind, m.Metadata.Name, m.Spec.Version)
	}
	hex := regexp.MustCompile(`^[0-9a-f]{64}$`)
	var seen []string
	for _, p := range m.Spec.Platforms {
		os, arch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		seen = append(seen, os+"/"+arch)
		if !hex.MatchString(p.Sha256) {
			t.Errorf("%s/%s: sha256 %q", os, arch, p.Sha256)
		}
		if want := release + "/kubectl-azure_" + os + "_" + arch + ".tar.gz"; p.URI != want {
			t.Errorf("%s/%s: uri %q, want %q", os, arch, p.URI, want)
		}
		wantBin := "kubectl-azure"
		if os == "windows" {
			wantBin += ".exe"
		}
		if p.Bin != wantBin {
			t.Errorf("%s/%s: bin %q, want %q", os, arch, p.Bin, wantBin)
		}
		completion := false
		for _, f := range p.Files {
			completion = completion || f.From == "kubectl_complete-azure"
		}
		if completion != (os != "windows") {
			t.Errorf("%s/%s: ships kubectl_complete-azure = %v", os, arch, completion)
		}
	}
	if !slices.Equal(seen, krewPlatforms) {
		t.Errorf("platforms %v, want %v", seen, krewPlatforms)
	}
}

// The krew manifest that `make dist` writes (hack/krew-manifest.sh, fed the
// archives' checksums) must be a valid Plugin for the six platforms, each
// with its archive's sha256, the right binary name and, on Unix, the
// completion helper kubectl runs.
func TestKrewManifest(t *testing.T) {
	var sums strings.Builder
	for i, p := range krewPlatforms {
		fmt.Fprintf(&sums, "%s %064x\n", p, i+1)
	}
	cmd := exec.Command("bash", filepath.Join("..", "..", "hack", "krew-manifest.sh"), "v1.2.3", "https://example.invalid/releases/v1.2.3")
	cmd.Stdin = strings.NewReader(sums.String())
	cmd.Stderr = os.Stderr
	data, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/krew-manifest.sh: %v", err)
	}
	checkKrewPlugin(t, data, "v1.2.3", "https://example.invalid/releases/v1.2.3")
}

// .krew.yaml at the repository root is the krew-release-bot template. Rendered
// as the bot renders it (Go text/template; addURIAndSha renders its URL with
// the tag and answers "uri: …" and, indented four spaces, "sha256: …", here
// with a stub checksum instead of a download), it is a valid Plugin whose
// archives are the ones hack/dist.sh builds, for the platforms it builds.
func TestKrewReleaseBotTemplate(t *testing.T) {
	root := filepath.Join("..", "..")
	tmpl, err := os.ReadFile(filepath.Join(root, ".krew.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const tag = "v1.2.3"
	var uris []string
	funcs := template.FuncMap{
		"addURIAndSha": func(url, tag string) (string, error) {
			u, err := template.New("url").Parse(url)
			if err != nil {
				return "", err
			}
			var b bytes.Buffer
			if err := u.Execute(&b, struct{ TagName, Version string }{tag, strings.TrimPrefix(tag, "v")}); err != nil {
				return "", err
			}
			uris = append(uris, b.String())
			// A stand-in for the archive's checksum: the bot downloads it.
			return fmt.Sprintf("uri: %s\n    sha256: %x", b.String(), sha256.Sum256(b.Bytes())), nil
		},
		"indent": func(n int, s string) string {
			return strings.TrimSpace(strings.Repeat(" ", n) + strings.ReplaceAll(s, "\n", "\n"+strings.Repeat(" ", n)))
		},
	}
	tp, err := template.New(".krew.yaml").Funcs(funcs).Parse(string(tmpl))
	if err != nil {
		t.Fatalf(".krew.yaml is not a template the bot parses: %v", err)
	}
	var out bytes.Buffer
	if err := tp.Execute(&out, struct{ TagName string }{tag}); err != nil {
		t.Fatalf("rendering .krew.yaml: %v", err)
	}
	if len(uris) != len(krewPlatforms) {
		t.Errorf("addURIAndSha called %d times, want one per platform (%d)", len(uris), len(krewPlatforms))
	}
	checkKrewPlugin(t, out.Bytes(), tag, "https://github.com/kubectl-azure/kubectl-azure/releases/download/"+tag)

	// make dist builds these platforms, under these names, for this release URL.
	dist, err := os.ReadFile(filepath.Join(root, "hack", "dist.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`platforms="` + strings.Join(krewPlatforms, " ") + `"`,
		`archive="dist/kubectl-azure_${os}_${arch}.tar.gz"`,
		`release=${RELEASE_URL:-https://github.com/kubectl-azure/kubectl-azure/releases/download/$version}`,
	} {
		if !bytes.Contains(dist, []byte(want)) {
			t.Errorf("hack/dist.sh lacks %s: its archives would not be the ones .krew.yaml names", want)
		}
	}
	// And the template is the one the script writes, so the two never part.
	cmd := exec.Command("bash", filepath.Join(root, "hack", "krew-manifest.sh"), "--template")
	cmd.Stdin = strings.NewReader(strings.Join(krewPlatforms, "\n") + "\n")
	cmd.Stderr = os.Stderr
	gen, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/krew-manifest.sh --template: %v", err)
	}
	if !bytes.Equal(gen, tmpl) {
		t.Errorf(".krew.yaml differs from what hack/krew-manifest.sh --template writes")
	}
}
