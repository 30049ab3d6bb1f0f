package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The krew manifest that `make dist` writes (hack/krew-manifest.sh, fed the
// archives' checksums) must be a valid Plugin for the six platforms, each
// with its archive's sha256, the right binary name and, on Unix, the
// completion helper kubectl runs.
func TestKrewManifest(t *testing.T) {
	var sums strings.Builder
	for i, p := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"} {
		fmt.Fprintf(&sums, "%s %064x\n", p, i+1)
	}
	cmd := exec.Command("bash", filepath.Join("..", "..", "hack", "krew-manifest.sh"), "v1.2.3", "https://example.invalid/releases/v1.2.3")
	cmd.Stdin = strings.NewReader(sums.String())
	cmd.Stderr = os.Stderr
	data, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/krew-manifest.sh: %v", err)
	}
	var m struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct{ Name string }
		Spec       struct {
			Version   string
			Platforms []struct {
				Selector struct{ MatchLabels map[string]string } `json:"selector"`
				URI      string
				Sha256   string
				Bin      string
				Files    []struct{ From, To string }
			}
		}
	}
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatalf(".krew.yaml: %v", err)
	}
	if m.Kind != "Plugin" || m.Metadata.Name != "azure" || m.Spec.Version == "" {
		t.Fatalf("not a krew Plugin named azure: kind=%q name=%q version=%q", m.Kind, m.Metadata.Name, m.Spec.Version)
	}
	hex := regexp.MustCompile(`^[0-9a-f]{64}$`)
	seen := map[string]bool{}
	for _, p := range m.Spec.Platforms {
		os, arch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		seen[os+"/"+arch] = true
		if !hex.MatchString(p.Sha256) {
			t.Errorf("%s/%s: sha256 %q", os, arch, p.Sha256)
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
	for _, want := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"} {
		if !seen[want] {
			t.Errorf("no platform %s", want)
		}
	}
}
