package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// TestKubectlPluginDispatch builds the binary and runs it the way users do:
// `kubectl azure version`, found by kubectl's plugin lookup on PATH.
func TestKubectlPluginDispatch(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is not on PATH; it is needed to test plugin dispatch: %v", err)
	}
	dir := filepath.Dir(buildBinary(t))
	cmd := exec.Command(kubectl, "azure", "version")
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl azure version: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "kubectl-azure ") {
		t.Fatalf("unexpected output: %q", out)
	}
}

// TestClientSecretAuthOverTLS runs the binary against the emulator's HTTPS
// endpoint with azidentity's client-secret credential, which fetches a token
// from the emulator's Entra-like token endpoint.
func TestClientSecretAuthOverTLS(t *testing.T) {
	certDir := t.TempDir()
	opts := emulator.DefaultOptions()
	opts.TLSCertDir = certDir
	opts.LRODuration = 10 * time.Millisecond
	srv, err := emulator.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !strings.HasPrefix(srv.URL(), "https://") {
		t.Fatalf("emulator URL %s is not https", srv.URL())
	}
	bin := buildBinary(t)
	cmd := exec.Command(bin, "--auth", "client-secret", "--authority-host", srv.URL()+"/", "--endpoint", srv.URL(),
		"--subscription", "00000000-0000-0000-0000-0000000000a1", "--state", filepath.Join(t.TempDir(), "state.json"),
		"diff", "-f", filepath.Join("..", "..", "testdata", "landing-zone"))
	cmd.Env = append(os.Environ(),
		"SSL_CERT_FILE="+filepath.Join(certDir, "cert.pem"),
		"AZURE_TENANT_ID=00000000-0000-0000-0000-0000000000t1",
		"AZURE_CLIENT_ID=00000000-0000-0000-0000-0000000000c1",
		"AZURE_CLIENT_SECRET=not-a-real-secret")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("diff over TLS with client-secret auth: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "8 to create") {
		t.Fatalf("unexpected plan:\n%s", out)
	}
	if strings.Contains(string(out), "not-a-real-secret") {
		t.Fatal("the client secret appeared in output")
	}
	if srv.Stats().Requests["GET"] == 0 {
		t.Fatal("no ARM request reached the emulator")
	}
}

func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kubectl-azure")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
