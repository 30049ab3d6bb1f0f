package cli_test

import (
	"strings"
	"testing"
)

// `state list` leads with what people read: NAME, TYPE and GROUP, the ID
// last; -o wide adds the rest (issue 33 item 5).
func TestStateListColumns(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	out := e.mustRun(0, "state", "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if h := strings.Fields(lines[0]); strings.Join(h, " ") != "NAME TYPE GROUP SET UPDATED ID" {
		t.Fatalf("header %q, want NAME TYPE GROUP SET UPDATED ID:\n%s", lines[0], out)
	}
	var subnet string
	for _, l := range lines {
		if strings.HasPrefix(l, "vnet-demo/snet-storage ") {
			subnet = l
		}
	}
	f := strings.Fields(subnet)
	if len(f) != 6 || f[1] != "Microsoft.Network/virtualNetworks/subnets" || f[2] != "rg-demo" || f[3] != "default" ||
		!strings.HasSuffix(f[5], "/virtualNetworks/vnet-demo/subnets/snet-storage") {
		t.Errorf("subnet row %q:\n%s", subnet, out)
	}
	wide := e.mustRun(0, "state", "list", "-o", "wide")
	if h := strings.Fields(strings.SplitN(wide, "\n", 2)[0]); strings.Join(h, " ") != "NAME TYPE GROUP SET API VERSION ORIGIN SERIAL UPDATED ID" {
		t.Errorf("wide header %q", h)
	}
	if names := e.mustRun(0, "state", "list", "-o", "name"); !strings.Contains(names, "/subnets/snet-storage\n") {
		t.Errorf("-o name keeps the IDs:\n%s", names)
	}
}
