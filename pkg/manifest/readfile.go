package manifest

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/internal/safefile"
)

// readFile reads one file -f picked up under the argument root. A file
// named on the command line is read whatever it is (a pipe from process
// substitution, /dev/stdin), bounded, and stops when the run is cancelled.
// A file found by walking a directory must be a regular file inside that
// directory: a FIFO there would block the run, a device never end, and a
// link out of the tree would quote another file's lines into CI logs.
func (r *reader) readFile(root, path string) ([]byte, bool) {
	if path == root {
		return r.readNamed(path)
	}
	real, msg := r.inTree(root, path)
	if msg != "" {
		r.ps.add(Origin{path, -1}, "", "%s", msg)
		return nil, false
	}
	// The resolved path is opened without following a link, so one
	// swapped in after the check is refused rather than read.
	f, err := safefile.OpenNoFollow(real)
	if err != nil {
		var nr *safefile.NotRegularError
		if errors.As(err, &nr) {
			r.ps.add(Origin{path, -1}, "", "%s, not a regular file: only regular files are read from a -f directory; remove it or name it with -f", safefile.Describe(nr.Mode))
		} else {
			r.ps.add(Origin{path, -1}, "", "cannot read: %v", err)
		}
		return nil, false
	}
	defer f.Close()
	return r.readAll(path, f)
}

// inTree resolves path, found by walking root, and says why it may not be
// read when it resolves outside root. The message never names the link's
// target, nor quotes anything of it.
func (r *reader) inTree(root, path string) (string, string) {
	if r.roots == nil {
		r.roots = map[string]string{}
	}
	top, ok := r.roots[root]
	if !ok {
		var err error
		if top, err = filepath.EvalSymlinks(root); err != nil {
			top = root
		}
		r.roots[root] = top
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", "a symbolic link to nothing that exists (or that cannot be read); remove it"
	}
	rel, err := filepath.Rel(top, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", "a symbolic link that leads outside " + root + ": refused, so no file outside the tree given with -f is read; copy the file into the tree or name it with -f"
	}
	return real, ""
}

// readNamed reads a file named on the command line.
func (r *reader) readNamed(path string) ([]byte, bool) {
	f, err := safefile.OpenStream(path)
	if err != nil {
		r.ps.add(Origin{path, -1}, "", "cannot read: %v", err)
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() && r.ctx != nil {
		// A pipe whose writer never ends: Ctrl-C or SIGTERM cuts the read
		// short (a device that cannot take a deadline is bounded by size).
		stop := context.AfterFunc(r.ctx, func() { _ = f.SetReadDeadline(time.Now()) })
		defer stop()
	}
	data, ok := r.readAll(path, f)
	return data, ok
}

// readSource reads a kustomize source file (to trace output back to it):
// a regular file within MaxFileBytes, else nothing.
func readSource(file string) []byte {
	data, err := safefile.ReadFile(file, MaxFileBytes)
	if err != nil {
		return nil
	}
	return data
}
