package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// outputPath is a file a command writes, named by its flag.
type outputPath struct {
	flag, path string
}

// checkOutputPaths refuses (exit 2) an output file that would overwrite
// what the run reads or keeps: the --state file, a file beside it that
// shares its name (its lock, holder, journal, backup and temporary files),
// a manifest the run loads, or another output. Such a write would corrupt
// state or replace a manifest with JSON the next run misreads.
func checkOutputPaths(statePath string, load manifest.LoadOptions, outs ...outputPath) error {
	state := localStatePath(statePath)
	manifests := manifestFiles(load)
	seen := map[string]string{}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		p := canonicalPath(o.path)
		switch {
		case state != "" && besideState(p, state):
			return withCode(ExitValidation, fmt.Errorf("%s %s would overwrite the state (%s) or one of its files: write it elsewhere", o.flag, o.path, statePath))
		case manifests[p]:
			return withCode(ExitValidation, fmt.Errorf("%s %s is a manifest this command loads: write it outside the manifests", o.flag, o.path))
		case seen[p] != "":
			return withCode(ExitValidation, fmt.Errorf("%s and %s name the same file %s: give each its own", seen[p], o.flag, o.path))
		}
		seen[p] = o.flag
	}
	return nil
}

// localStatePath is the canonical path of a file state, "" for state kept
// in Kubernetes.
func localStatePath(s string) string {
	if s == "" || strings.Contains(s, "://") && !strings.HasPrefix(s, "file://") {
		return ""
	}
	return canonicalPath(strings.TrimPrefix(s, "file://"))
}

// besideState reports whether p is the state file or a file in its
// directory whose name starts with the state file's.
func besideState(p, state string) bool {
	return filepath.Dir(p) == filepath.Dir(state) && strings.HasPrefix(filepath.Base(p), filepath.Base(state))
}

// canonicalPath makes p absolute and resolves links in its directory (the
// file itself may not exist yet), so two spellings of one file compare
// equal.
func canonicalPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// manifestFiles lists, canonically, the files -f and -k would load: the
// files named, and the manifest files in the directories given (walked
// with -R), as the loader picks them.
func manifestFiles(load manifest.LoadOptions) map[string]bool {
	out := map[string]bool{}
	add := func(arg string, recursive bool) {
		matches := []string{arg}
		if _, err := os.Stat(arg); err != nil {
			matches, _ = filepath.Glob(arg)
		}
		for _, m := range matches {
			_ = filepath.WalkDir(m, func(p string, d fs.DirEntry, err error) error {
				switch {
				case err != nil:
					return nil
				case d.IsDir() && p != m && !recursive:
					return filepath.SkipDir
				case d.IsDir():
					return nil
				case p == m || isManifestExt(p):
					out[canonicalPath(p)] = true
				}
				return nil
			})
		}
	}
	for _, f := range load.Filenames {
		if f != "-" {
			add(f, load.Recursive)
		}
	}
	if load.Kustomize != "" {
		add(load.Kustomize, false)
	}
	return out
}

func isManifestExt(p string) bool {
	switch filepath.Ext(p) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}
