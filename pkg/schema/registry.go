package schema

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
)

// Registry answers what the specs say about resource types. It reads an
// index lazily: the type list on first use, each type's facts on its first
// lookup. Safe for concurrent use.
type Registry struct {
	fsys fs.FS
	// origin names the index in error messages ("embedded", a cache dir).
	origin string

	loadOnce sync.Once
	loadErr  error
	entries  map[string]*format.Entry // lower(type) -> entry
	list     []format.Entry

	mu       sync.Mutex
	types    map[string]*typeCache // lower(type) -> decoded blob
	versions map[string][]string   // lower(type) -> api-versions, split on demand
}

type typeCache struct {
	blob     *format.Lazy
	versions map[string]*Type
}

func newRegistry(fsys fs.FS, origin string) *Registry {
	return &Registry{fsys: fsys, origin: origin, types: map[string]*typeCache{}, versions: map[string][]string{}}
}

// Err reports a problem reading the registry's index; Lookup on a broken
// registry finds nothing, so callers that want to fail loudly check this.
func (r *Registry) Err() error {
	r.load()
	return r.loadErr
}

func (r *Registry) load() {
	r.loadOnce.Do(func() {
		data, err := fs.ReadFile(r.fsys, format.IndexFile)
		if err != nil {
			r.loadErr = fmt.Errorf("schema index (%s): %w", r.origin, err)
			return
		}
		entries, err := format.ParseIndex(data)
		if err != nil {
			r.loadErr = fmt.Errorf("schema index (%s): %w", r.origin, err)
			return
		}
		r.list = entries
		r.entries = make(map[string]*format.Entry, len(entries))
		for i := range entries {
			e := &entries[i]
			r.entries[strings.ToLower(e.Name)] = e
		}
	})
}

// versionsOf returns the shared, cached version list of an entry; callers
// must not modify it.
func (r *Registry) versionsOf(e *format.Entry) []string {
	key := strings.ToLower(e.Name)
	r.mu.Lock()
	defer r.mu.Unlock()
	vs, ok := r.versions[key]
	if !ok {
		vs = e.VersionList()
		r.versions[key] = vs
	}
	return vs
}

// Types lists every known resource type, sorted.
func (r *Registry) Types() []string {
	if r == nil {
		return nil
	}
	r.load()
	names := make([]string, len(r.list))
	for i := range r.list {
		names[i] = r.list[i].Name
	}
	sort.Strings(names)
	return names
}

// Versions lists the known api-versions of a type (case-insensitive),
// oldest first; nil for an unknown type.
func (r *Registry) Versions(typ string) []string {
	if r == nil {
		return nil
	}
	r.load()
	e := r.entries[strings.ToLower(typ)]
	if e == nil {
		return nil
	}
	return append([]string(nil), r.versionsOf(e)...)
}

// Lookup returns the facts for a type (case-insensitive) at an
// api-version. A missing api-version resolves to the nearest known one of
// the same type (Resolution.Nearest, with a Warning); an empty apiVersion
// means the newest. An unknown type returns nil and Found=false: callers
// then fall back to heuristics.
func (r *Registry) Lookup(typ, apiVersion string) (*Type, Resolution) {
	if r == nil {
		return nil, Resolution{Warning: "no schema registry"}
	}
	r.load()
	if r.loadErr != nil {
		return nil, Resolution{Warning: r.loadErr.Error()}
	}
	e := r.entries[strings.ToLower(typ)]
	if e == nil {
		return nil, Resolution{Warning: fmt.Sprintf("%s is not in the schema index (%s); property facts come from heuristics only. Point --schema-dir at a newer azure-rest-api-specs checkout if the type is new.", typ, r.origin)}
	}
	v, exact := nearestVersion(r.versionsOf(e), apiVersion)
	t, err := r.typeAt(e, v)
	if err != nil {
		return nil, Resolution{Warning: err.Error()}
	}
	res := Resolution{Found: true, APIVersion: v}
	if !exact && apiVersion != "" {
		res.Nearest = true
		res.Warning = fmt.Sprintf("%s has no schema for api-version %s (the index knows %s); using the nearest known version %s, so findings are warnings only. If the version is new, `kubectl azure explain %s` lists the known ones",
			e.Name, apiVersion, versionSpan(r.versionsOf(e)), v, e.Name)
		// A shallow copy marks the fallback without touching the cached
		// type other callers share.
		c := *t
		c.fallback = true
		t = &c
	}
	return t, res
}

// versionSpan summarises a version list for messages.
func versionSpan(vs []string) string {
	switch len(vs) {
	case 0:
		return "none"
	case 1:
		return vs[0]
	}
	return fmt.Sprintf("%d versions, %s to %s", len(vs), vs[0], vs[len(vs)-1])
}

// HasVersion reports whether the index has the exact api-version of a
// type (case-insensitive); no nearest-version fallback.
func (r *Registry) HasVersion(typ, apiVersion string) bool {
	if r == nil || apiVersion == "" {
		return false
	}
	r.load()
	e := r.entries[strings.ToLower(typ)]
	if e == nil {
		return false
	}
	for _, v := range r.versionsOf(e) {
		if strings.EqualFold(v, apiVersion) {
			return true
		}
	}
	return false
}

// Providers lists the resource provider namespaces of the index
// ("Microsoft.Storage"), sorted case-insensitively.
func (r *Registry) Providers() []string {
	if r == nil {
		return nil
	}
	r.load()
	seen := map[string]string{}
	for i := range r.list {
		ns, _, _ := strings.Cut(r.list[i].Name, "/")
		if _, ok := seen[strings.ToLower(ns)]; !ok {
			seen[strings.ToLower(ns)] = ns
		}
	}
	out := make([]string, 0, len(seen))
	for _, ns := range seen {
		out = append(out, ns)
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
	return out
}

// TypesOf lists the resource types of one provider namespace
// (case-insensitive), sorted; nil for an unknown namespace.
func (r *Registry) TypesOf(namespace string) []string {
	if r == nil {
		return nil
	}
	r.load()
	prefix := strings.ToLower(namespace) + "/"
	var out []string
	for i := range r.list {
		if strings.HasPrefix(strings.ToLower(r.list[i].Name), prefix) {
			out = append(out, r.list[i].Name)
		}
	}
	sort.Strings(out)
	return out
}

// descLoader returns the function that decodes one version's
// descriptions on first use.
func (r *Registry) descLoader(l *format.Lazy, i int) func() map[string]string {
	return func() map[string]string {
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := l.LoadDescriptions(); err != nil {
			return nil
		}
		v := &l.Versions[i]
		out := make(map[string]string, len(v.Descs))
		for _, d := range v.Descs {
			if d.Prop < len(l.Descriptions) {
				out[l.Paths[d.Path]] = l.Descriptions[d.Prop]
			}
		}
		return out
	}
}

func (r *Registry) typeAt(e *format.Entry, v string) (*Type, error) {
	key := strings.ToLower(e.Name)
	r.mu.Lock()
	defer r.mu.Unlock()
	tc := r.types[key]
	if tc == nil {
		b, err := r.readBlob(e)
		if err != nil {
			return nil, err
		}
		tc = &typeCache{blob: b, versions: map[string]*Type{}}
		r.types[key] = tc
	}
	if t := tc.versions[v]; t != nil {
		return t, nil
	}
	for i := range tc.blob.Versions {
		if tc.blob.Versions[i].Version == v {
			if err := tc.blob.Section(i); err != nil {
				return nil, fmt.Errorf("schema index (%s): %s@%s: %w; regenerate the index", r.origin, e.Name, v, err)
			}
			t := buildType(tc.blob.Blob, &tc.blob.Versions[i])
			t.x.loadDesc = r.descLoader(tc.blob, i)
			t.x.siblings = func() []*Type { return r.allVersions(e) }
			tc.versions[v] = t
			return t, nil
		}
	}
	return nil, fmt.Errorf("schema index (%s) lists %s@%s but has no data for it; regenerate the index", r.origin, e.Name, v)
}

// allVersions is the type at every api-version the index holds; a
// version that does not decode is left out.
func (r *Registry) allVersions(e *format.Entry) []*Type {
	var out []*Type
	for _, v := range r.versionsOf(e) {
		if t, err := r.typeAt(e, v); err == nil {
			out = append(out, t)
		}
	}
	return out
}

func (r *Registry) readBlob(e *format.Entry) (*format.Lazy, error) {
	f, err := r.fsys.Open(e.Shard)
	if err != nil {
		return nil, fmt.Errorf("schema index (%s): %w", r.origin, err)
	}
	defer f.Close()
	buf := make([]byte, e.Length)
	if ra, ok := f.(io.ReaderAt); ok {
		_, err = ra.ReadAt(buf, e.Offset)
	} else if s, ok := f.(io.Seeker); ok {
		if _, err = s.Seek(e.Offset, io.SeekStart); err == nil {
			_, err = io.ReadFull(f, buf)
		}
	} else {
		err = errors.New("shard is not seekable")
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("schema index (%s): read %s: %w", r.origin, e.Name, err)
	}
	b, err := format.DecodeHeader(buf)
	if err != nil {
		return nil, fmt.Errorf("schema index (%s): %s: %w; regenerate the index", r.origin, e.Name, err)
	}
	return b, nil
}
