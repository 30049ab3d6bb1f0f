package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/resource"
	"sigs.k8s.io/yaml"
)

// document is one YAML document of the input, decoded or not.
type document struct {
	origin Origin
	obj    map[string]any // nil when decoding failed (a problem was recorded)
}

// stdinName is the file name problems and origins use for "-".
const stdinName = "<stdin>"

// reader collects documents from all sources in the order the user gave them.
type reader struct {
	opts      *LoadOptions
	ps        *problems
	docs      []document
	fileOrder map[string]int
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
			data, err := io.ReadAll(o.Stdin)
			if err != nil {
				r.ps.add(Origin{stdinName, -1}, "", "cannot read standard input: %v", err)
				continue
			}
			r.decodeStream(stdinName, data)
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
			if fv.Path != arg && isKustomizationFile(fv.Path) {
				continue
			}
			r.noteFile(fv.Path)
			data, err := os.ReadFile(fv.Path)
			if err != nil {
				r.ps.add(Origin{fv.Path, -1}, "", "cannot read: %v", err)
				continue
			}
			r.decodeStream(fv.Path, data)
		}
	}
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
	// The builder runs kustomize exactly as `kubectl apply -k` does. Its
	// output has no file positions: problems name the directory and the
	// index of the document in the built output.
	infos, err := resource.NewLocalBuilder().
		Unstructured().
		FilenameParam(false, &resource.FilenameOptions{Kustomize: dir}).
		Flatten().
		Do().
		Infos()
	if err != nil {
		r.ps.add(Origin{dir, -1}, "", "kustomize build failed: %s", oneLine(err.Error()))
		return
	}
	for i, info := range infos {
		u, ok := info.Object.(*unstructured.Unstructured)
		if !ok {
			r.ps.add(Origin{dir, i}, "", "kustomize produced a %T, expected a Resource", info.Object)
			continue
		}
		// Round-trip through JSON so numbers have the same Go types as
		// documents read from files (float64).
		js, err := json.Marshal(u.Object)
		var obj map[string]any
		if err == nil {
			err = json.Unmarshal(js, &obj)
		}
		if err != nil {
			r.ps.add(Origin{dir, i}, "", "cannot decode kustomize output: %v", err)
			continue
		}
		r.docs = append(r.docs, document{origin: Origin{dir, i}, obj: obj})
	}
}

// decodeStream splits a multi-document YAML (or JSON) stream and decodes
// each document, recording a problem per malformed one.
func (r *reader) decodeStream(name string, data []byte) {
	index := 0
	for _, raw := range splitDocuments(data) {
		origin := Origin{name, index}
		js, err := yaml.YAMLToJSONStrict(raw.text)
		if err != nil {
			index++
			r.ps.add(origin, "", "malformed YAML: %s", yamlMessage(err, raw.line))
			continue
		}
		js = bytes.TrimSpace(js)
		if len(js) == 0 || bytes.Equal(js, []byte("null")) {
			continue // empty or comment-only documents are not counted
		}
		index++
		var v any
		if err := json.Unmarshal(js, &v); err != nil {
			r.ps.add(origin, "", "malformed document: %v", err)
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			r.ps.add(origin, "", "document is a %s, not a mapping: each document must be one Resource (apiVersion, kind, metadata, spec)", jsonKind(v))
			continue
		}
		r.docs = append(r.docs, document{origin: origin, obj: obj})
	}
}

type rawDocument struct {
	text []byte
	line int // 1-based line of the document's first line in the file
}

// splitDocuments splits at "---" lines, remembering where each document
// starts so YAML errors can give file line numbers.
func splitDocuments(data []byte) []rawDocument {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []rawDocument
	var cur bytes.Buffer
	start := 1
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, l := range lines {
		trimmed := bytes.TrimRight(l, "\r\n")
		if bytes.Equal(trimmed, []byte("---")) || bytes.HasPrefix(trimmed, []byte("--- ")) || bytes.HasPrefix(trimmed, []byte("---\t")) {
			out = append(out, rawDocument{text: append([]byte(nil), cur.Bytes()...), line: start})
			cur.Reset()
			start = i + 1
			// Content after "--- " on the same line belongs to the next document.
			if rest := bytes.TrimSpace(trimmed[3:]); len(rest) > 0 {
				cur.Write(rest)
				cur.WriteByte('\n')
			} else {
				start = i + 2
			}
			continue
		}
		cur.Write(l)
	}
	out = append(out, rawDocument{text: cur.Bytes(), line: start})
	return out
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// yamlMessage turns a YAML library error into one line with file line numbers.
func yamlMessage(err error, firstLine int) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	msg = strings.ReplaceAll(msg, "yaml: unmarshal errors:", "")
	msg = strings.TrimPrefix(strings.TrimSpace(msg), "yaml: ")
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
	case float64:
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
