package emulatortest

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func TestFrontCountsPerClient(t *testing.T) {
	status := http.StatusOK
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) })
	f := StartFront(t, func() http.Handler { return h }, "person")
	send := func(method, path, ua string) {
		t.Helper()
		req, err := http.NewRequest(method, f.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("User-Agent", ua)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	id := "/subscriptions/s/resourceGroups/rg"
	send("GET", id, "kubectl-azure/dev")
	send("PUT", id, "kubectl-azure/dev")
	send("PUT", "/subscriptions/s/resourceGroups/RG", "kubectl-azure/dev reconcile")
	send("DELETE", id, "curl/8")
	send("GET", "/_emulator/resources", "kubectl-azure/dev") // admin: not counted
	status = http.StatusTooManyRequests
	send("PATCH", id, "curl/8")

	for _, c := range []struct {
		who          string
		gets, writes int
		throttled    int
	}{
		{ClientCLI, 1, 1, 0},
		{ClientLoop, 0, 1, 0},
		{"person", 0, 2, 1},
	} {
		if g, w, th := f.Count(c.who, "GET"), f.Writes(c.who), f.Throttled(c.who); g != c.gets || w != c.writes || th != c.throttled {
			t.Errorf("%s: %d GETs, %d writes, %d 429s; want %d, %d, %d", c.who, g, w, th, c.gets, c.writes, c.throttled)
		}
	}
	if n := f.WritesOf(id); n != 3 {
		t.Errorf("accepted writes of %s = %d, want 3 (the 429 is not one)", id, n)
	}
	if n := f.TotalThrottled(); n != 1 {
		t.Errorf("TotalThrottled = %d, want 1", n)
	}
}

func TestCopyDir(t *testing.T) {
	from, to := t.TempDir(), filepath.Join(t.TempDir(), "new", "infra")
	if err := os.WriteFile(filepath.Join(from, "a.yaml"), []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(from, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	CopyDir(t, from, to)
	got, err := os.ReadFile(filepath.Join(to, "a.yaml"))
	if err != nil || string(got) != "a: 1\n" {
		t.Fatalf("copied file: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(to, "sub")); err == nil {
		t.Error("subdirectories are not copied")
	}
}

func TestUnthrottledNeverWaits(t *testing.T) {
	o := Unthrottled()
	if o.LRODuration != 0 || o.Throttle.Reads.Size < 1e6 || o.Throttle.Writes.Size < 1e6 || o.Throttle.Deletes.Size < 1e6 {
		t.Errorf("Unthrottled: %+v", o)
	}
}

// The watch and source tests edit the rendered text and check the line an
// error names, so the layout is part of the contract.
func TestManifestsLayout(t *testing.T) {
	got := Manifests(Group("rg-a"), Identity("id-a", "rg-a", "tags: {env: prod}"),
		Doc{Name: "snet", Labels: "{suite: s}", Type: "Microsoft.Network/virtualNetworks/subnets@2024-01-01",
			Place: "parent: Microsoft.Network/virtualNetworks/vnet", Body: []string{"properties:", "  addressPrefix: 10.0.0.0/24"}})
	want := `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: rg-a
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body:
    location: westeurope
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: id-a
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: rg-a
  body:
    location: westeurope
    tags: {env: prod}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: snet
  labels: {suite: s}
spec:
  type: Microsoft.Network/virtualNetworks/subnets@2024-01-01
  parent: Microsoft.Network/virtualNetworks/vnet
  body:
    properties:
      addressPrefix: 10.0.0.0/24
`
	if got != want {
		t.Errorf("Manifests:\n%s\nwant:\n%s", got, want)
	}
}
