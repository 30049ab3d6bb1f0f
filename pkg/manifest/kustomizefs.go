package manifest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kubectl-azure/kubectl-azure/internal/safefile"
)

// maxKustomizeReads bounds the files one kustomize build reads (each read
// counts, a base read twice counts twice): what -f's file and byte bounds
// are for -f, so a wide kustomization cannot keep the run busy for ever.
// A variable so a test can lower it.
var maxKustomizeReads = 10_000

// errKustomizeRefused stops a build whose input the tool refuses; what
// was refused is in boundedFS.refusals.
var errKustomizeRefused = errors.New("input refused")

// refusal is one kustomize input the tool refuses, with its position.
type refusal struct {
	file  string
	path  string  // field in a kustomization file, "" for a whole file
	lines lineMap // the kustomization's line table, when path is set
	msg   string
}

// boundedFS is the disk as kustomize sees it, with -f's bounds: every
// file read is a regular file within MaxFileBytes, all reads together
// within MaxTotalBytes and maxKustomizeReads, no read once the run is
// cancelled, and every kustomization file is checked for remote
// resources before kustomize can fetch them.
type boundedFS struct {
	filesys.FileSystem
	ctx         context.Context
	allowRemote bool

	mu       sync.Mutex
	reads    int
	total    int64
	refusals []refusal
}

func newBoundedFS(ctx context.Context, allowRemote bool) *boundedFS {
	return &boundedFS{FileSystem: filesys.MakeFsOnDisk(), ctx: ctx, allowRemote: allowRemote}
}

func (b *boundedFS) refuse(r ...refusal) error {
	b.mu.Lock()
	b.refusals = append(b.refusals, r...)
	b.mu.Unlock()
	return errKustomizeRefused
}

// taken returns the refusals recorded so far.
func (b *boundedFS) taken() []refusal {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]refusal(nil), b.refusals...)
}

// ReadFile is the one way kustomize reads file contents.
func (b *boundedFS) ReadFile(path string) ([]byte, error) {
	if err := b.ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.reads++
	n, left := b.reads, MaxTotalBytes-b.total
	b.mu.Unlock()
	if n > maxKustomizeReads {
		return nil, b.refuse(refusal{file: path, msg: fmt.Sprintf("the kustomization reads more than %d files; build it in smaller sets", maxKustomizeReads)})
	}
	limit := min(int64(MaxFileBytes), left)
	data, err := safefile.ReadFile(path, limit)
	var tl *safefile.TooLargeError
	var nr *safefile.NotRegularError
	switch {
	case errors.As(err, &tl) && limit < MaxFileBytes:
		return nil, b.refuse(refusal{file: path, msg: fmt.Sprintf("the files the kustomization reads exceed %d MiB in total; build it in smaller sets", MaxTotalBytes>>20)})
	case errors.As(err, &tl):
		return nil, b.refuse(refusal{file: path, msg: fmt.Sprintf("larger than %d MiB: this is not a manifest file", MaxFileBytes>>20)})
	case errors.As(err, &nr):
		return nil, b.refuse(refusal{file: path, msg: safefile.Describe(nr.Mode) + ", not a regular file: kustomize input must be regular files"})
	case err != nil:
		return nil, err
	}
	b.mu.Lock()
	b.total += int64(len(data))
	b.mu.Unlock()
	if isKustomizationFile(path) {
		if rs := remoteRefs(path, data, b.allowRemote); len(rs) > 0 {
			return nil, b.refuse(rs...)
		}
	}
	return data, nil
}

// Open is ReadFile's checks for the few callers that stream a file:
// a regular file, and nothing once the run is cancelled.
func (b *boundedFS) Open(path string) (filesys.File, error) {
	if err := b.ctx.Err(); err != nil {
		return nil, err
	}
	return safefile.Open(path)
}

// kustomizeFileFields are the kustomization fields that name other
// kustomizations or files kustomize loads, each possibly remote.
var kustomizeFileFields = []string{"resources", "bases", "components", "crds", "configurations",
	"generators", "transformers", "validators", "patchesStrategicMerge"}

// remoteRefs lists the entries of a kustomization that kustomize would
// fetch from the network: refused unless allowRemote, and refused always
// when the fetch would go over plain HTTP or the git protocol, which anyone
// on the path can change.
func remoteRefs(file string, data []byte, allowRemote bool) []refusal {
	v, lines, err := decodeYAML(data, 1, nil, true)
	k, _ := v.(map[string]any)
	if err != nil || k == nil {
		return nil // kustomize reports a malformed kustomization itself
	}
	var out []refusal
	check := func(path string, s string) {
		remote, plain := remoteRef(s)
		switch {
		case plain:
			out = append(out, refusal{file, path, lines, fmt.Sprintf("%q is fetched over an unencrypted protocol, which anyone on the network path can change: use https or ssh, or vendor it into the tree", s)})
		case remote && !allowRemote:
			out = append(out, refusal{file, path, lines, fmt.Sprintf("%q is remote: kustomize would fetch it from the network; vendor it into the tree, or pass --allow-remote-kustomize to fetch it (https or ssh only)", s)})
		}
	}
	for _, f := range kustomizeFileFields {
		items, _ := k[f].([]any)
		for i, it := range items {
			if s, ok := it.(string); ok {
				check(fmt.Sprintf("%s[%d]", f, i), s)
			}
		}
	}
	for _, f := range []string{"patches", "patchesJson6902", "replacements"} {
		items, _ := k[f].([]any)
		for i, it := range items {
			m, _ := it.(map[string]any)
			if s, ok := m["path"].(string); ok {
				check(fmt.Sprintf("%s[%d].path", f, i), s)
			}
		}
	}
	if m, ok := k["openapi"].(map[string]any); ok {
		if s, ok := m["path"].(string); ok {
			check("openapi.path", s)
		}
	}
	for _, f := range []string{"configMapGenerator", "secretGenerator"} {
		items, _ := k[f].([]any)
		for i, it := range items {
			m, _ := it.(map[string]any)
			for _, g := range []string{"files", "envs"} {
				srcs, _ := m[g].([]any)
				for j, src := range srcs {
					if s, ok := src.(string); ok {
						_, s, _ = strings.Cut(s, "=") // KEY=PATH names PATH
						check(fmt.Sprintf("%s[%d].%s[%d]", f, i, g, j), s)
					}
				}
			}
			if s, ok := m["env"].(string); ok {
				check(fmt.Sprintf("%s[%d].env", f, i), s)
			}
		}
	}
	return out
}

// remoteRef says whether kustomize would treat s as remote (a URL, a
// git repository spec: github.com/org/repo, user@host:path, git::...) and
// whether that fetch would be unencrypted (http://, git://).
func remoteRef(s string) (remote, plain bool) {
	l := strings.ToLower(strings.TrimSpace(s))
	if rest, ok := strings.CutPrefix(l, "git::"); ok {
		l, remote = rest, true
	}
	if scheme, _, ok := strings.Cut(l, "://"); ok && !strings.ContainsAny(scheme, "/.") {
		return true, scheme == "http" || scheme == "git"
	}
	if strings.HasPrefix(l, "github.com/") || strings.HasPrefix(l, "github.com:") {
		return true, false
	}
	head, _, _ := strings.Cut(l, "/")
	if strings.Contains(head, "@") && strings.Contains(head, ":") {
		return true, false // scp-style ssh: git@host:org/repo
	}
	return remote, false
}

// remoteRoot says why -k DIR may not be built when DIR itself is remote
// (kustomize clones a repository given as its root), else "".
func remoteRoot(dir string, allowRemote bool) string {
	switch remote, plain := remoteRef(dir); {
	case plain:
		return "-k names a repository fetched over an unencrypted protocol, which anyone on the network path can change: use https or ssh"
	case remote && !allowRemote:
		return "-k names a remote repository: kustomize would fetch it from the network; clone it first, or pass --allow-remote-kustomize (https or ssh only)"
	}
	return ""
}
