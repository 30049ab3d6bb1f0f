// Package specgen turns an azure-rest-api-specs layout into the schema
// index: it finds every ARM resource type (a PUT on a resource path) and
// records, per api-version, what its OpenAPI models say about each
// property.
package specgen

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Source is a specs tree: a checkout directory or a .tar.gz of one.
// Paths are slash-separated and relative to the tree root
// ("specification/network/resource-manager/...").
type Source interface {
	// Files lists candidate spec files (resource-manager, stable or
	// preview, not examples), sorted.
	Files() []string
	Read(p string) ([]byte, error)
}

// OpenSource opens a directory or a .tar.gz. A directory may be the
// repository root or its "specification" folder.
func OpenSource(p string) (Source, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("specs: %w", err)
	}
	if !st.IsDir() {
		if strings.HasSuffix(p, ".tar.gz") || strings.HasSuffix(p, ".tgz") {
			return openTarGz(p)
		}
		return nil, fmt.Errorf("specs %s: want an azure-rest-api-specs directory or a .tar.gz of one", p)
	}
	root := p
	if filepath.Base(p) == "specification" {
		root = filepath.Dir(p)
	}
	if _, err := os.Stat(filepath.Join(root, "specification")); err != nil {
		return nil, fmt.Errorf("specs %s: no specification/ folder; point at an azure-rest-api-specs checkout", p)
	}
	return openDir(root)
}

// isCandidate keeps the files that can define ARM resource types.
func isCandidate(p string) bool {
	if !strings.HasSuffix(p, ".json") || !strings.HasPrefix(p, "specification/") {
		return false
	}
	if strings.Contains(p, "/examples/") {
		return false
	}
	return strings.Contains(p, "/resource-manager/") &&
		(strings.Contains(p, "/stable/") || strings.Contains(p, "/preview/"))
}

type memSource struct {
	files map[string][]byte
	list  []string
}

func openTarGz(p string) (Source, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("specs %s: %w", p, err)
	}
	tr := tar.NewReader(gz)
	s := &memSource{files: map[string][]byte{}}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("specs %s: %w", p, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		// Archives made from a checkout may carry a top folder; keep the
		// tree rooted at specification/.
		if i := strings.Index(name, "specification/"); i > 0 {
			name = name[i:]
		}
		if !strings.HasSuffix(name, ".json") || strings.Contains(name, "/examples/") {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("specs %s: %s: %w", p, name, err)
		}
		s.files[name] = b
		if isCandidate(name) {
			s.list = append(s.list, name)
		}
	}
	sort.Strings(s.list)
	return s, nil
}

func (s *memSource) Files() []string { return s.list }

func (s *memSource) Read(p string) ([]byte, error) {
	b, ok := s.files[p]
	if !ok {
		return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
	}
	return b, nil
}

type dirSource struct {
	root string
	list []string
}

func openDir(root string) (Source, error) {
	s := &dirSource{root: root}
	err := filepath.WalkDir(filepath.Join(root, "specification"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "examples" || d.Name() == "data-plane" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if isCandidate(rel) {
			s.list = append(s.list, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("specs %s: %w", root, err)
	}
	sort.Strings(s.list)
	return s, nil
}

func (s *dirSource) Files() []string { return s.list }

func (s *dirSource) Read(p string) ([]byte, error) {
	if strings.Contains(p, "..") {
		return nil, fmt.Errorf("%s: reference leaves the specs tree", p)
	}
	return os.ReadFile(filepath.Join(s.root, filepath.FromSlash(p)))
}
