package manifest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadUpTo: a regular file is read into a buffer of its own size (no
// doubling), and the limit holds for files and streams alike.
func TestReadUpTo(t *testing.T) {
	dir := t.TempDir()
	content := strings.Repeat("apiVersion: azure.kubectl.io/v1alpha1\n", 5000)
	path := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func() *os.File {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	data, err := readUpTo(open(), 1<<20)
	if err != nil || string(data) != content {
		t.Fatalf("whole file: %d bytes, %v", len(data), err)
	}
	if cap(data) != len(content)+1 {
		t.Errorf("buffer of %d bytes for a file of %d: it grew instead of being sized", cap(data), len(content))
	}
	for _, r := range []io.Reader{open(), bytes.NewReader([]byte(content))} {
		data, err := readUpTo(r, 100)
		if err != nil || len(data) != 100 || string(data) != content[:100] {
			t.Errorf("%T with a limit of 100: %d bytes, %v", r, len(data), err)
		}
	}
}
