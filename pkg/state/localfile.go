package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// The local state file's format: what state.json holds and how it is
// encoded and recognised. Nothing here touches the disk.

// localFormatVersion is bumped only on an incompatible file layout change.
const localFormatVersion = 1

// FileFormat is the marker every local state file carries in its "format"
// member; Open refuses a non-empty file without it.
const FileFormat = "kubectl-azure/state"

// localFile is the on-disk layout. Records stay encoded (RawMessage) in
// memory so every Get hands out a fresh copy and a Put re-encodes only the
// record it changes.
type localFile struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Serial  int64  `json:"serial"`  // bumped on every write of the file
	Lineage string `json:"lineage"` // random, fixed at creation: tells two state files apart
	// Resources and Intents are keyed by the lower-cased ARM ID.
	Resources map[string]json.RawMessage `json:"resources"`
	Intents   map[string]json.RawMessage `json:"intents,omitempty"`

	onDisk   bool // read from an existing, non-empty state.json
	replayed bool // journal entries were applied on top of it
}

func newLocalFile() *localFile {
	return &localFile{Format: FileFormat, Version: localFormatVersion, Lineage: randomHex(8), Resources: map[string]json.RawMessage{}}
}

// decodeFile parses a state file, refusing anything that is not one: an
// empty file is a new state; anything else must carry the format marker
// (or be a file of the first release, which had none but is recognisable
// by its lineage and resources members).
func decodeFile(path, backupPath string, b []byte) (*localFile, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		f := newLocalFile()
		return f, nil
	}
	// Only the member names matter here: skipping the values keeps a large
	// state from being copied once more just to be recognised.
	var members map[string]skipped
	if err := json.Unmarshal(trimmed, &members); err != nil {
		if !json.Valid(trimmed) && looksLikeState(trimmed) {
			return nil, &FormatError{Path: path, Found: fmt.Sprintf("a corrupt state file (%v)", err),
				Hint: "the previous version is in " + backupPath + ": inspect it and copy it over the state file"}
		}
		return nil, &FormatError{Path: path, Found: describeJSON(trimmed)}
	}
	if members == nil {
		return nil, &FormatError{Path: path, Found: "JSON null"}
	}
	var f localFile
	// Unmarshal, not a Decoder: a Decoder copies the whole file into its
	// own buffer first, and a large state is the peak of a large plan.
	if err := json.Unmarshal(trimmed, &f); err != nil {
		return nil, &FormatError{Path: path, Found: fmt.Sprintf("a JSON object whose members do not fit a state file (%v)", err)}
	}
	switch {
	case f.Format == FileFormat:
	case f.Format == "" && f.Lineage != "" && f.Version == 1 && has(members, "resources") && !has(members, "format"):
		f.Format = FileFormat // first release: upgraded on the next write
	case f.Format != "":
		return nil, &FormatError{Path: path, Found: fmt.Sprintf("a JSON object with \"format\": %q", armid.Printable(f.Format))}
	default:
		return nil, &FormatError{Path: path, Found: "a JSON object with " + describeKeys(members) + " and no \"format\": \"" + FileFormat + "\" marker"}
	}
	if f.Version > localFormatVersion || f.Version < 1 {
		return nil, &FormatError{Path: path, Found: fmt.Sprintf("state format version %d; this kubectl-azure reads version %d", f.Version, localFormatVersion),
			Hint: "upgrade kubectl-azure to the release that wrote it"}
	}
	if f.Resources == nil {
		f.Resources = map[string]json.RawMessage{}
	}
	f.onDisk = true
	return &f, nil
}

// looksLikeState reports whether invalid JSON was probably written as a
// state file (then it is damaged, not foreign).
func looksLikeState(b []byte) bool {
	return bytes.Contains(b, []byte(`"`+FileFormat+`"`)) ||
		(bytes.Contains(b, []byte(`"lineage"`)) || bytes.Contains(b, []byte(`"version"`))) && bytes.Contains(b, []byte(`"resources"`))
}

// describeJSON names what a non-object file holds, for the refusal message.
func describeJSON(b []byte) string {
	if !json.Valid(b) {
		head := string(b[:min(len(b), 24)])
		return fmt.Sprintf("not JSON: it starts with %q", armid.Printable(head))
	}
	switch b[0] {
	case '[':
		return "a JSON array"
	case '"':
		return "a JSON string"
	case 't', 'f':
		return "a JSON boolean"
	case 'n':
		return "JSON null"
	}
	return "a JSON number"
}

func has(m map[string]skipped, k string) bool {
	_, ok := m[k]
	return ok
}

func describeKeys(m map[string]skipped) string {
	if len(m) == 0 {
		return "no members"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, strconv.Quote(armid.Printable(k)))
	}
	sort.Strings(keys)
	if len(keys) > 5 {
		keys = append(keys[:5], "...")
	}
	return "members " + strings.Join(keys, ", ")
}

// encodeFile bumps the file serial and encodes f.
func encodeFile(f *localFile) ([]byte, error) {
	f.Serial++
	f.Version = localFormatVersion
	f.Format = FileFormat
	// One record per line, in key order: cheap to write (records are kept
	// encoded) and readable in a diff of two state files.
	var buf bytes.Buffer
	buf.Grow(64 + len(f.Resources)*1024)
	fmt.Fprintf(&buf, "{\n  \"format\": %q,\n  \"version\": %d,\n  \"serial\": %d,\n  \"lineage\": %q,\n", f.Format, f.Version, f.Serial, f.Lineage)
	writeMap := func(name string, m map[string]json.RawMessage, last bool) {
		fmt.Fprintf(&buf, "  %q: {", name)
		keys := sortedKeys(m)
		for i, k := range keys {
			kb, _ := json.Marshal(k)
			buf.WriteString("\n    ")
			buf.Write(kb)
			buf.WriteString(": ")
			buf.Write(m[k])
			if i < len(keys)-1 {
				buf.WriteByte(',')
			}
		}
		if len(keys) > 0 {
			buf.WriteString("\n  ")
		}
		buf.WriteString("}")
		if !last {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	writeMap("resources", f.Resources, false)
	writeMap("intents", f.Intents, true)
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
