package state

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// A --state value that looks like a URL is never taken as a file name:
// kubernetes:ns/set (no //) used to become a local file of that name, so
// the team's state silently stayed on one disk (issue 45).
func TestOpenRefusesURLLikeRefs(t *testing.T) {
	t.Chdir(t.TempDir())
	for ref, want := range map[string]string{
		"kubernetes:infra/prod":   "kubernetes://infra/prod",
		"kubernetes:/infra/prod":  "kubernetes://infra/prod",
		"Kubernetes://infra/prod": "kubernetes://infra/prod",
		"k8s://infra/prod":        `unknown scheme "k8s"`,
		"s3://bucket/state.json":  `unknown scheme "s3"`,
		"configmap:infra/prod":    `unknown scheme "configmap"`,
		"kubernetes://infra":      "expected kubernetes://NAMESPACE/SETNAME",
	} {
		_, err := Open(context.Background(), ref, Options{})
		var re *RefError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%q) = %v, want a *RefError saying %q", ref, err, want)
		}
	}
	if ents, _ := os.ReadDir("."); len(ents) != 0 {
		t.Errorf("refused refs created %v", ents)
	}
	// A colon further into a path, a drive letter, or ./ keep a file usable.
	for _, ref := range []string{"./kubernetes:x.json", "dir/a:b.json", "c:state.json"} {
		st, err := Open(context.Background(), ref, Options{})
		if err != nil {
			t.Errorf("Open(%q): %v", ref, err)
			continue
		}
		st.Close()
	}
}
