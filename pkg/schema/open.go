package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/specgen"
)

// CacheDirEnv overrides where Open keeps generated indexes (default: the
// user cache dir, e.g. ~/.cache/kubectl-azure/schema).
const CacheDirEnv = "KUBECTL_AZURE_SCHEMA_CACHE"

// Open builds a registry from a user's azure-rest-api-specs checkout (or a
// .tar.gz of one), for --schema-dir. It runs the same generator as the
// embedded index and caches the result on disk, keyed by the spec files'
// names, sizes and modification times: the first run over a full checkout
// takes a minute, later runs start instantly until the checkout changes.
func Open(dir string) (*Registry, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	src, err := specgen.OpenSource(abs)
	if err != nil {
		return nil, fmt.Errorf("--schema-dir: %w", err)
	}
	key, err := fingerprint(abs, src)
	if err != nil {
		return nil, fmt.Errorf("--schema-dir: %w", err)
	}
	base, err := cacheRoot()
	if err != nil {
		return nil, err
	}
	out := filepath.Join(base, key)
	if _, err := os.Stat(filepath.Join(out, format.IndexFile)); err == nil {
		return openIndex(out)
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, fmt.Errorf("schema cache: %w", err)
	}
	tmp, err := os.MkdirTemp(base, key+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("schema cache: %w", err)
	}
	if _, err := specgen.Run(src, tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("--schema-dir %s: %w", dir, err)
	}
	// Another process may have finished the same index meanwhile; either
	// copy is valid, so losing the rename race is fine.
	if err := os.Rename(tmp, out); err != nil {
		os.RemoveAll(tmp)
		if _, serr := os.Stat(filepath.Join(out, format.IndexFile)); serr != nil {
			return nil, fmt.Errorf("schema cache: %w", err)
		}
	}
	return openIndex(out)
}

// openIndex opens an already generated index directory.
func openIndex(dir string) (*Registry, error) {
	r := newRegistry(os.DirFS(dir), dir)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

func cacheRoot() (string, error) {
	if d := os.Getenv(CacheDirEnv); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache dir for the schema index (%w); set %s", err, CacheDirEnv)
	}
	return filepath.Join(d, "kubectl-azure", "schema"), nil
}

// fingerprint identifies a specs tree cheaply, without reading file
// contents.
func fingerprint(abs string, src specgen.Source) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", format.Version, abs)
	st, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		fmt.Fprintf(h, "%d %d\n", st.Size(), st.ModTime().UnixNano())
	} else {
		root := abs
		if filepath.Base(abs) == "specification" {
			root = filepath.Dir(abs)
		}
		for _, f := range src.Files() {
			fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(f)))
			if err != nil {
				return "", err
			}
			h.Write([]byte(f + " " + strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + "\n"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}
