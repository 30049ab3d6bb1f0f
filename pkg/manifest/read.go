package manifest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/cli-runtime/pkg/resource"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// document is one decoded YAML document of the input.
type document struct {
	origin Origin
	// sourceName is metadata.name in the source file when kustomize
	// renamed the resource (namePrefix, nameSuffix), else "".
	sourceName string
	obj        map[string]any
	lines      docLines // zero when positions are unknown (kustomize output)
}

// stdinName is the file name problems and origins use for "-".
const stdinName = "<stdin>"

// reader collects documents from all sources in the order the user gave them.
type reader struct {
	ctx  context.Context // cancelled by Ctrl-C or SIGTERM: reads stop
	opts *LoadOptions
	ps   *problems
	// add receives each document as soon as it is decoded, so a large set
	// never holds every decoded document at once.
	add       func(document)
	intern    *interner
	fileOrder map[string]int
	// sourceDocs caches files read to locate kustomize output in its sources.
	sourceDocs map[string][]decoded
	// total counts the bytes read so far, against MaxTotalBytes.
	total int64
	// roots maps each -f directory to its resolved path, for inTree.
	roots map[string]string
	// warn records a non-fatal finding about a file.
	warn func(o Origin, format string, args ...any)
}

// readAll reads one input within MaxFileBytes and what is left of
// MaxTotalBytes, so -f /dev/zero or a huge file fails fast with a clear
// message instead of exhausting memory.
func (r *reader) readAll(name string, in io.Reader) ([]byte, bool) {
	limit := int64(MaxFileBytes)
	if left := MaxTotalBytes - r.total; left < limit {
		limit = left
	}
	data, err := readUpTo(in, limit+1)
	if err != nil {
		r.ps.add(Origin{name, -1}, "", "cannot read: %v", err)
		return nil, false
	}
	if int64(len(data)) > limit {
		if limit < MaxFileBytes {
			r.ps.add(Origin{name, -1}, "", "the manifests given exceed %d MiB in total; apply them in smaller sets", MaxTotalBytes>>20)
		} else {
			r.ps.add(Origin{name, -1}, "", "larger than %d MiB: this is not a manifest file; check the path given with -f", MaxFileBytes>>20)
		}
		return nil, false
	}
	r.total += int64(len(data))
	return data, true
}

// readUpTo reads at most max bytes of in. A regular file is read into a
// buffer of its size, not grown step by step: growing would allocate
// about twice the file, and a large set's files are most of what a load
// holds while it decodes them.
func readUpTo(in io.Reader, max int64) ([]byte, error) {
	f, ok := in.(*os.File)
	if !ok {
		return io.ReadAll(io.LimitReader(in, max))
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() >= max {
		return io.ReadAll(io.LimitReader(in, max))
	}
	// One byte beyond the size, so the end is seen without growing; a file
	// that grew since the Stat grows the buffer as append does.
	lr := io.LimitReader(f, max)
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := lr.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

func (r *reader) noteFile(name string) {
	if _, ok := r.fileOrder[name]; !ok {
		r.fileOrder[name] = len(r.fileOrder)
	}
}

// read loads every source. Files and stdin are split and decoded here, not by
// cli-runtime's stream decoder, because that decoder stops a file at its first
// bad document and does not say which document failed; every problem must name
// file and document index. Which files -f and -R pick up is decided by
// cli-runtime's own path expansion, so the behaviour matches kubectl; -k goes
// through cli-runtime's resource builder (local, unstructured), which runs kustomize.
func (r *reader) read() {
	o := r.opts
	if r.ctx == nil {
		r.ctx = context.Background()
	}
	run := Origin{Index: -1}
	if len(o.Filenames) > 0 && o.Kustomize != "" {
		r.ps.add(run, "", "-f and -k cannot be combined: load either files (-f) or one kustomization directory (-k)")
		return
	}
	if o.Kustomize != "" && o.Recursive {
		r.ps.add(run, "", "-R applies to -f directories only; drop -R when using -k")
		return
	}
	if len(o.Filenames) == 0 && o.Kustomize == "" {
		r.ps.add(run, "", "no manifests given: use -f FILE|DIR|- or -k DIR")
		return
	}
	stdinUsed := false
	for _, name := range o.Filenames {
		switch {
		case name == "-":
			if stdinUsed {
				r.ps.add(run, "", "standard input (-f -) can be given only once")
				continue
			}
			stdinUsed = true
			r.noteFile(stdinName)
			if data, ok := r.readAll(stdinName, o.Stdin); ok {
				r.decodeStream(stdinName, data)
			}
		case strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://"):
			r.ps.add(Origin{name, -1}, "", "URLs are not supported as -f arguments: download the manifest and pass the file")
		default:
			r.readPath(name)
		}
	}
	if o.Kustomize != "" {
		r.readKustomize(o.Kustomize)
	}
}

func (r *reader) readPath(arg string) {
	paths := []string{arg}
	if _, err := os.Stat(arg); err != nil {
		// Like kubectl, a path that does not exist may be a glob pattern.
		matches, gerr := filepath.Glob(arg)
		if gerr != nil || len(matches) == 0 {
			r.noteFile(arg)
			r.ps.add(Origin{arg, -1}, "", "no such file or directory; check the path given with -f")
			return
		}
		paths = matches
	}
	for _, p := range paths {
		visitors, err := resource.ExpandPathsToFileVisitors(nil, p, r.opts.Recursive, resource.FileExtensions, nil)
		if err != nil {
			r.noteFile(p)
			r.ps.add(Origin{p, -1}, "", "cannot read: %v", err)
			continue
		}
		for _, v := range visitors {
			fv, ok := v.(*resource.FileVisitor)
			if !ok {
				continue
			}
			// A directory that is also a kustomize base holds a
			// kustomization file; it describes the others and is no Resource.
			// Only a file named explicitly is read (and then rejected with a hint).
			if fv.Path != arg && (isKustomizationFile(fv.Path) || r.skipped(fv.Path)) {
				continue
			}
			r.noteFile(fv.Path)
			data, ok := r.readFile(p, fv.Path)
			if ok && fv.Path != arg && savedPlan(data) {
				// A plan saved with --out, or printed with -o json, in the
				// manifests' directory: the tool's own output, not a
				// manifest.
				if r.warn != nil {
					r.warn(Origin{fv.Path, -1}, "a kubectl-azure plan or result (it has formatVersion), not a manifest: skipped; keep saved plans outside the -f directory")
				}
				continue
			}
			if ok {
				r.decodeStream(fv.Path, data)
			}
		}
	}
}

// skipped reports whether a file found in a directory is one the options
// leave out.
func (r *reader) skipped(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for _, s := range r.opts.Skip {
		if sa, err := filepath.Abs(s); err == nil && sa == abs {
			return true
		}
	}
	return false
}

func isKustomizationFile(path string) bool {
	switch filepath.Base(path) {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

func (r *reader) readKustomize(dir string) {
	r.noteFile(dir)
	if rs := remoteRoot(dir, r.opts.AllowRemoteKustomize); rs != "" {
		r.ps.add(Origin{dir, -1}, "", "%s", rs)
		return
	}
	// kustomize runs exactly as `kubectl apply -k` runs it, here rather
	// than through cli-runtime's builder: that one runs it on a goroutine
	// of its own, where a panic inside kustomize (it panics on a name with a
	// comma that a namePrefix or nameSuffix renames) cannot be recovered and
	// would end the process. Its output has no file positions of its own:
	// with origin annotations enabled in the kustomization, documents are
	// traced back to their source file and index; otherwise problems name
	// the directory and the index of the document in the built output.
	fs := newBoundedFS(r.ctx, r.opts.AllowRemoteKustomize)
	yml, err := kustomizeBuild(r.ctx, dir, fs)
	if rs := fs.taken(); len(rs) > 0 {
		r.addRefusals(rs)
		return
	}
	if err != nil {
		r.ps.add(Origin{dir, -1}, "", "kustomize build failed: %s", oneLine(err.Error()))
		return
	}
	if int64(len(yml)) > MaxTotalBytes-r.total {
		r.ps.add(Origin{dir, -1}, "", "the kustomize output exceeds %d MiB; apply it in smaller sets", MaxTotalBytes>>20)
		return
	}
	r.total += int64(len(yml))
	decodeDocuments(yml, r.intern, func(d decoded) {
		origin := Origin{dir, d.index}
		if d.problem != "" {
			r.ps.add(origin, "", "kustomize produced %s", d.problem)
			return
		}
		doc := document{origin: origin, obj: d.obj}
		if o, l, src, ok := r.kustomizeOrigin(dir, d.obj); ok {
			doc.origin, doc.lines = o, l
			doc.sourceName = src
			r.noteFile(o.File)
		}
		r.addDoc(doc)
	})
}

// kustomizeBuild builds the kustomization in dir on a goroutine of its
// own, so a cancelled run (Ctrl-C, SIGTERM) returns at once: the build is
// abandoned, and its reads (through fs) stop at their next file.
func kustomizeBuild(ctx context.Context, dir string, fs filesys.FileSystem) ([]byte, error) {
	type built struct {
		yml []byte
		err error
	}
	done := make(chan built, 1)
	go func() {
		yml, err := kustomizeRun(dir, fs)
		done <- built{yml, err}
	}()
	select {
	case b := <-done:
		return b.yml, b.err
	case <-ctx.Done():
		return nil, fmt.Errorf("stopped: %w", context.Cause(ctx))
	}
}

// kustomizeRun runs kustomize, turning a panic inside it into an error
// that says what to change.
func kustomizeRun(dir string, fs filesys.FileSystem) (yml []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprint(p)
			if strings.Contains(msg, "previous names") {
				msg += ": a metadata.name holding a comma (such as ${guid:a,b,c}) breaks kustomize when namePrefix or nameSuffix renames it; " +
					"join the arguments with - instead (${guid:a-b-c} is the same GUID), or give the computed name in spec.name and a plain metadata.name"
			}
			err = fmt.Errorf("kustomize stopped: %s", msg)
		}
	}()
	o := krusty.MakeDefaultOptions()
	o.Reorder = krusty.ReorderOptionLegacy // as kubectl apply -k
	m, err := krusty.MakeKustomizer(o).Run(fs, dir)
	if err != nil {
		return nil, err
	}
	return m.AsYaml()
}

// addRefusals reports what the bounded file system refused, each at its
// file (and field and line, in a kustomization file).
func (r *reader) addRefusals(rs []refusal) {
	for _, f := range rs {
		r.noteFile(f.file)
		o := Origin{f.file, -1}
		if f.path != "" {
			o.Index = 0
			r.ps.setLines(o, docLines{table: f.lines})
		}
		r.ps.add(o, f.path, "%s", f.msg)
	}
}

// decodeStream splits a multi-document YAML (or JSON) stream and decodes
// each document, recording a problem per malformed one.
func (r *reader) decodeStream(name string, data []byte) {
	decodeDocuments(data, r.intern, func(d decoded) {
		origin := Origin{name, d.index}
		if d.problem != "" {
			r.ps.setLines(origin, docLines{table: lineMap{"": d.line}})
			r.ps.add(origin, "", "%s", d.problem)
			return
		}
		r.addDoc(document{origin: origin, obj: d.obj, lines: docLines{docText: docText{d.text, d.line}}})
	})
}

func (r *reader) addDoc(d document) {
	r.ps.setLines(d.origin, d.lines)
	r.add(d)
}

type decoded struct {
	index   int
	obj     map[string]any
	text    []byte // the document's text, for its line table
	line    int    // first line of the document
	problem string
}

// decodeDocuments numbers the documents of a stream the way every message
// does: 0-based, not counting empty or comment-only documents. Each
// document goes to fn as soon as it is decoded.
func decodeDocuments(data []byte, in *interner, fn func(decoded)) {
	index := 0
	for _, raw := range splitDocuments(data) {
		v, _, err := decodeYAML(raw.text, raw.line, in, false)
		if err != nil {
			line := raw.line
			if de, ok := err.(*decodeError); ok {
				line = de.line
			}
			fn(decoded{index: index, line: line, problem: "malformed YAML: " + oneLine(err.Error())})
			index++
			continue
		}
		if v == nil {
			continue // empty or comments only: not counted
		}
		d := decoded{index: index, text: raw.text, line: raw.line}
		index++
		if obj, ok := v.(map[string]any); ok {
			d.obj = obj
		} else {
			d.problem = fmt.Sprintf("document is a %s, not a mapping: each document must be one Resource (apiVersion, kind, metadata, spec)", jsonKind(v))
		}
		fn(d)
	}
}

// originAnnotation is where kustomize records a resource's source file when
// the kustomization asks for it (buildMetadata: [originAnnotations]).
const originAnnotation = "config.kubernetes.io/origin"

// kustomizeOrigin maps a document of kustomize output back to its source
// file and document index, using the origin annotation, and returns the
// resource's name in that file when kustomize renamed it (namePrefix,
// nameSuffix), else "". Without the annotation (or for remote bases,
// generated resources, or a document no longer recognisable in its file)
// it reports false and the caller names the kustomization directory and the
// output index instead.
//
// A name computed by placeholders (${guid:...}, ${uniqueString:...}) keeps
// its source form: kustomize's renaming would make it an invalid name, and
// its arguments (IDs of renamed resources) already differ per environment.
func (r *reader) kustomizeOrigin(dir string, obj map[string]any) (Origin, docLines, string, bool) {
	meta, _ := obj["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	text, _ := ann[originAnnotation].(string)
	if text == "" {
		return Origin{}, docLines{}, "", false
	}
	// Drop it either way: it describes the build, not the resource.
	delete(ann, originAnnotation)
	if len(ann) == 0 {
		delete(meta, "annotations")
	}
	var o struct {
		Path string `json:"path"`
		Repo string `json:"repo"`
	}
	if err := yaml.Unmarshal([]byte(text), &o); err != nil || o.Path == "" || o.Repo != "" {
		return Origin{}, docLines{}, "", false
	}
	file := filepath.Join(dir, o.Path)
	if r.sourceDocs == nil {
		r.sourceDocs = map[string][]decoded{}
	}
	docs, seen := r.sourceDocs[file]
	if !seen {
		if data := readSource(file); data != nil {
			decodeDocuments(data, nil, func(d decoded) { docs = append(docs, d) })
		}
		r.sourceDocs[file] = docs
	}
	name, _ := meta["name"].(string)
	typ := func(m map[string]any) string {
		spec, _ := m["spec"].(map[string]any)
		t, _ := spec["type"].(string)
		return strings.ToLower(t)
	}
	// The document of the same type whose name is the output name, else the
	// one whose name the output name contains (prefix + name + suffix),
	// longest first.
	var match []decoded
	best := -1
	for _, d := range docs {
		if d.obj == nil || typ(d.obj) != typ(obj) {
			continue
		}
		m, _ := d.obj["metadata"].(map[string]any)
		n, _ := m["name"].(string)
		switch {
		case n == "" || !strings.Contains(name, n):
			continue
		case n == name:
			n = name + "\x00" // an exact match beats every renamed one
		}
		switch {
		case len(n) > best:
			best, match = len(n), []decoded{d}
		case len(n) == best:
			match = append(match, d)
		}
	}
	if len(match) != 1 {
		return Origin{}, docLines{}, "", false
	}
	src := ""
	m, _ := match[0].obj["metadata"].(map[string]any)
	if n, _ := m["name"].(string); n != name {
		src = n
		if strings.Contains(n, "${") {
			meta["name"] = n
			src = ""
		}
	}
	return Origin{File: file, Index: match[0].index}, docLines{docText: docText{match[0].text, match[0].line}}, src, true
}

type rawDocument struct {
	text []byte
	line int // 1-based line of the document's first line in the file
}

// splitDocuments splits at "---" lines, remembering where each document
// starts so YAML errors can give file line numbers. Documents share data's
// bytes; only one that starts on its separator line ("--- {a: 1}") is copied.
func splitDocuments(data []byte) []rawDocument {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []rawDocument
	var head []byte // content after "--- " on the separator line
	start, from := 1, 0
	emit := func(end int) {
		text := data[from:end:end]
		if head != nil {
			text = append(append(append(make([]byte, 0, len(head)+1+len(text)), head...), '\n'), text...)
		}
		out = append(out, rawDocument{text: text, line: start})
	}
	off, i := 0, 0
	for l := range bytes.Lines(data) {
		next := off + len(l)
		trimmed := bytes.TrimRight(l, "\r\n")
		if bytes.Equal(trimmed, []byte("---")) || bytes.HasPrefix(trimmed, []byte("--- ")) || bytes.HasPrefix(trimmed, []byte("---\t")) {
			emit(off)
			head = nil
			start = i + 1
			// Content after "--- " on the same line belongs to the next document.
			if rest := bytes.TrimSpace(trimmed[3:]); len(rest) > 0 {
				head = rest
			} else {
				start = i + 2
			}
			from = next
		}
		off, i = next, i+1
	}
	emit(len(data))
	return out
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// yamlMessage turns a YAML library error into one line with file line numbers.
func yamlMessage(err error, firstLine int) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	msg = strings.ReplaceAll(msg, "yaml: unmarshal errors:", "")
	msg = strings.TrimPrefix(strings.TrimSpace(msg), "yaml: ")
	// The YAML library numbers parser errors ("did not find expected ...")
	// from 0 and scanner errors from 1.
	if strings.Contains(msg, "did not find expected") {
		firstLine++
	}
	msg = yamlLineRE.ReplaceAllStringFunc(msg, func(s string) string {
		n, _ := strconv.Atoi(s[len("line "):])
		return fmt.Sprintf("line %d", n+firstLine-1)
	})
	return oneLine(msg)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "list"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case map[string]any:
		return "mapping"
	}
	return fmt.Sprintf("%T", v)
}

// savedPlan reports whether data is a JSON document this tool wrote (a
// saved plan, a plan or result printed with -o json): an object with
// formatVersion and no apiVersion.
func savedPlan(data []byte) bool {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(t, &top) != nil {
		return false
	}
	_, fv := top["formatVersion"]
	_, av := top["apiVersion"]
	return fv && !av
}
