package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBinaryAdminAPI builds bin/arm-emulator, runs it on a port as the published
// contract describes, and drives the admin API and a few ARM calls over HTTP.
func TestBinaryAdminAPI(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "arm-emulator")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "--addr", addr, "--throttle", "reads=2/1,writes=200/10,deletes=200/10", "--latency", "1ms", "--lro", "50ms", "--quirks", "corpus", "--faults", "503=0")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, "http://"+addr) {
		t.Fatalf("startup line %q: %v", line, err)
	}
	base := "http://" + addr

	id := "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/st1"
	body := `{"location":"westus2","kind":"StorageV2","properties":{"anything":["b","a"]}}`
	seed := `{"id":"` + id + `","apiVersion":"2023-05-01","body":` + body + `}`
	if code, _ := call(t, "POST", base+"/_emulator/resources", seed); code != 201 {
		t.Fatalf("seed: %d", code)
	}
	code, got := call(t, "GET", base+id+"?api-version=2023-05-01", "")
	if code != 200 || !jsonEqual(t, got, body) {
		t.Fatalf("GET seeded = %d %s, want exactly %s", code, got, body)
	}
	if code, _ := call(t, "GET", base+id, ""); code != 400 {
		t.Fatalf("GET without api-version: %d", code)
	}
	// The read bucket of 2 is now empty: the third read is throttled.
	if code, _ := call(t, "GET", base+id+"?api-version=2021-04-01", ""); code != 429 {
		t.Fatalf("third read: %d, want 429", code)
	}
	code, stats := call(t, "GET", base+"/_emulator/stats", "")
	var st struct {
		Requests  map[string]int            `json:"requests"`
		Throttled int                       `json:"throttled"`
		ByClient  map[string]map[string]int `json:"byClient"`
	}
	if err := json.Unmarshal([]byte(stats), &st); err != nil || code != 200 {
		t.Fatalf("stats: %d %s", code, stats)
	}
	if st.Requests["GET"] != 3 || st.Requests["PUT"] != 0 || st.Requests["POST"] != 0 || st.Throttled != 1 {
		t.Fatalf("stats = %s; want 3 GETs (admin calls not counted), 1 throttled", stats)
	}
	for _, m := range []string{"GET", "PUT", "PATCH", "DELETE", "POST", "POLL"} {
		if _, ok := st.Requests[m]; !ok {
			t.Errorf("stats lacks %s: %s", m, stats)
		}
	}
	// Go's client sends its own User-Agent: all three GETs are its.
	if by := st.ByClient["Go-http-client/1.1"]; by["GET"] != 3 || len(st.ByClient) != 1 {
		t.Errorf("stats byClient = %v, want the three GETs under Go-http-client/1.1: %s", st.ByClient, stats)
	}
	if code, _ := call(t, "DELETE", base+"/_emulator/resources", ""); code != 204 {
		t.Fatalf("admin DELETE: %d", code)
	}
	if code, _ := call(t, "GET", base+id+"?api-version=2021-04-01", ""); code != 404 {
		t.Fatalf("GET after reset: %d, want 404", code)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--throttle", "reads=abc"},
		{"--quirks", "some"},
		{"--faults", "503=2"},
		{"--latency", "fast"},
		{"extra"},
	} {
		var out, errb bytes.Buffer
		if err := run(args, &out, &errb); err == nil {
			t.Errorf("run(%v) accepted", args)
		}
	}
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func call(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	c := &http.Client{Timeout: 10 * time.Second}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func jsonEqual(t *testing.T, a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// --help documents every flag, the admin API and the behaviours that are
// always on.
func TestHelpDocumentsAdminAPIAndSwitches(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run([]string{"--help"}, &out, &errOut); err == nil {
		t.Fatal("--help did not stop")
	}
	help := errOut.String()
	for _, want := range []string{
		"-addr", "-throttle", "-latency", "-lro", "-quirks", "-faults", "-tls-cert-dir", "-seed", "-config",
		"-page-size", "-no-parent-locks", "-skip-reference-check",
		"POST   /_emulator/resources", "GET    /_emulator/resources", "DELETE /_emulator/resources", "GET    /_emulator/stats",
		"byClient", "oauth2/v2.0/token", "ScopeLocked", "write-only", "--quirks corpus",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q:\n%s", want, help)
		}
	}
}
