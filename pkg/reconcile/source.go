package reconcile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// Source is where the desired state comes from. Fingerprint is cheap and
// changes whenever the content may have; Load reads and validates it.
type Source interface {
	Fingerprint(ctx context.Context) (string, error)
	Load(ctx context.Context) (*manifest.Set, error)
	String() string
}

// Reflector holds the last good manifest set of a Source. A set that
// fails to load, or that is empty, never replaces it: an invalid push
// keeps the previous set observed (and corrected), and an empty one can
// never look like "delete everything".
type Reflector struct {
	src Source
	now func() time.Time

	mu       sync.Mutex
	set      *manifest.Set
	loadedAt time.Time
	seen     string // fingerprint of the last load attempt
	err      error
	changed  chan struct{}
}

// NewReflector watches src.
func NewReflector(src Source) *Reflector {
	return &Reflector{src: src, now: time.Now, changed: make(chan struct{}, 1)}
}

// Current returns the last good set (nil before one loaded) and the
// error of the newest attempt, if it was refused.
func (r *Reflector) Current() (*manifest.Set, time.Time, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.set, r.loadedAt, r.err
}

// Changed is signalled when a new good set was taken.
func (r *Reflector) Changed() <-chan struct{} { return r.changed }

// ErrEmptySet refuses a set with no resources.
var ErrEmptySet = errors.New("the manifests hold no resources: keeping the last good set (an empty set never prunes); check the source")

// Sync loads the source when its fingerprint changed. It returns whether
// a new good set was taken, and the load error (also kept for Current).
func (r *Reflector) Sync(ctx context.Context) (bool, error) {
	fp, err := r.src.Fingerprint(ctx)
	if err != nil {
		if ctx.Err() == nil {
			// A read cut short by stopping says nothing of the source.
			r.setErr(fmt.Errorf("reading %s: %w", r.src, err))
		}
		return false, err
	}
	r.mu.Lock()
	same := fp == r.seen && (r.set != nil || r.err != nil)
	r.mu.Unlock()
	if same {
		return false, nil
	}
	set, err := r.src.Load(ctx)
	if err == nil && len(set.Resources) == 0 {
		err = ErrEmptySet
	}
	if err != nil && ctx.Err() != nil {
		return false, err // stopped mid-load: the last verdict stands
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = fp
	if err != nil {
		r.err = err
		return false, err
	}
	r.set, r.loadedAt, r.err = set, r.now(), nil
	select {
	case r.changed <- struct{}{}:
	default:
	}
	return true, nil
}

func (r *Reflector) setErr(err error) {
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
}

// Run syncs every interval until ctx ends; report gets every refused set.
func (r *Reflector) Run(ctx context.Context, interval time.Duration, report func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := r.Sync(ctx); err != nil && report != nil && ctx.Err() == nil {
			report(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Problems lists a load error's problems with file and line.
func Problems(err error) []Problem {
	var ve *manifest.ValidationError
	if errors.As(err, &ve) {
		out := make([]Problem, 0, len(ve.Problems))
		for _, p := range ve.Problems {
			msg := p.Message
			if p.Severity == manifest.SeverityWarning {
				msg = "warning: " + msg // the loader returns warnings with its errors
			}
			out = append(out, Problem{File: p.File, Line: p.Line, Path: p.Path, Message: msg})
		}
		return out
	}
	if err == nil {
		return nil
	}
	return []Problem{{Message: err.Error()}}
}

// DirSource is a directory of manifests (dir://PATH), e.g. kept current
// by a git-sync sidecar. Its fingerprint is the names, sizes and
// modification times of the files under it, so checking costs no read of
// the content.
type DirSource struct {
	// Paths are the files and directories given with -f or -k.
	Paths []string
	// Skip lists files that are not manifests (the state file, the
	// status file) when they live under Path.
	Skip []string
	// LoadFunc reads the manifests (the CLI's loader, with its secrets
	// and schema options).
	LoadFunc func(ctx context.Context) (*manifest.Set, error)
}

func (d *DirSource) String() string { return "dir://" + strings.Join(d.Paths, ",") }

// Load reads the manifests.
func (d *DirSource) Load(ctx context.Context) (*manifest.Set, error) { return d.LoadFunc(ctx) }

// Fingerprint hashes the listing of the directory tree.
func (d *DirSource) Fingerprint(context.Context) (string, error) {
	skip := map[string]bool{}
	for _, s := range d.Skip {
		if a, err := filepath.Abs(s); err == nil {
			skip[a] = true
		}
	}
	var lines []string
	for _, arg := range d.Paths {
		roots, _ := filepath.Glob(arg) // -f takes glob patterns too
		if len(roots) == 0 {
			roots = []string{arg}
		}
		for _, root := range roots {
			if err := d.walk(root, skip, &lines); err != nil {
				return "", err
			}
		}
	}
	sort.Strings(lines)
	h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(h[:]), nil
}

func (d *DirSource) walk(root string, skip map[string]bool, lines *[]string) error {
	return filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if a, _ := filepath.Abs(p); skip[a] {
			return nil
		}
		if e.IsDir() {
			if p != root && strings.HasPrefix(e.Name(), ".") && e.Name() != "." {
				// git-sync keeps its worktrees under dot directories and
				// switches a symlink; the symlink's target is what counts.
				return filepath.SkipDir
			}
			return nil
		}
		if p != root && strings.HasPrefix(e.Name(), ".") {
			// Hidden files are no manifests: among them the status and
			// plan files' temporaries, renamed into place every sweep.
			return nil
		}
		info, err := os.Stat(p) // follows a git-sync symlink
		if err != nil {
			return nil
		}
		*lines = append(*lines, fmt.Sprintf("%s\x00%d\x00%d", p, info.Size(), info.ModTime().UnixNano()))
		return nil
	})
}
