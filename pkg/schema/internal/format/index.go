package format

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MaxShardBytes keeps every shard well under the repository's 4 MB
// per-file limit.
const MaxShardBytes = 3 << 20

// WriteIndex writes blobs (already sorted by name) as shards plus
// index.tsv into dir, which must exist. Output depends only on the blobs,
// so two runs over the same specs produce identical files.
func WriteIndex(dir string, blobs []*Blob) error {
	var (
		entries []Entry
		shard   bytes.Buffer
		shardNo int
	)
	flush := func() error {
		if shard.Len() == 0 {
			return nil
		}
		name := fmt.Sprintf("s%03d.bin", shardNo)
		if err := os.WriteFile(filepath.Join(dir, name), shard.Bytes(), 0o644); err != nil {
			return err
		}
		shard.Reset()
		shardNo++
		return nil
	}
	for _, b := range blobs {
		enc, err := Encode(b)
		if err != nil {
			return fmt.Errorf("encode %s: %w", b.Name, err)
		}
		if shard.Len() > 0 && shard.Len()+len(enc) > MaxShardBytes {
			if err := flush(); err != nil {
				return err
			}
		}
		vs := make([]string, len(b.Versions))
		for i, v := range b.Versions {
			vs[i] = v.Version
		}
		entries = append(entries, Entry{
			Name:     b.Name,
			Shard:    fmt.Sprintf("s%03d.bin", shardNo),
			Offset:   int64(shard.Len()),
			Length:   int64(len(enc)),
			Versions: vs,
		})
		shard.Write(enc)
	}
	if err := flush(); err != nil {
		return err
	}
	var idx bytes.Buffer
	idx.WriteString(Version + "\n")
	for _, e := range entries {
		fmt.Fprintf(&idx, "%s\t%s\t%d\t%d\t%s\n", e.Name, e.Shard, e.Offset, e.Length, strings.Join(e.Versions, ","))
	}
	return os.WriteFile(filepath.Join(dir, IndexFile), idx.Bytes(), 0o644)
}

// ParseIndex reads index.tsv. It is on the path of the first lookup, so
// it slices one string instead of scanning and splitting: versions stay
// comma-joined in RawVersions until someone asks for them.
func ParseIndex(data []byte) ([]Entry, error) {
	text := string(data)
	line, text, _ := strings.Cut(text, "\n")
	if line != Version {
		return nil, fmt.Errorf("schema index has an unknown format (want %q); regenerate it with `make schema`", Version)
	}
	out := make([]Entry, 0, strings.Count(text, "\n"))
	for n := 2; text != ""; n++ {
		line, text, _ = strings.Cut(text, "\n")
		var f [5]string
		rest := line
		for i := 0; i < 4; i++ {
			var ok bool
			f[i], rest, ok = strings.Cut(rest, "\t")
			if !ok {
				return nil, fmt.Errorf("schema index line %d is malformed; regenerate it with `make schema`", n)
			}
		}
		f[4] = rest
		off, err1 := strconv.ParseInt(f[2], 10, 64)
		size, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil || f[4] == "" {
			return nil, fmt.Errorf("schema index line %d is malformed; regenerate it with `make schema`", n)
		}
		out = append(out, Entry{Name: f[0], Shard: f[1], Offset: off, Length: size, RawVersions: f[4]})
	}
	return out, nil
}

// VersionList returns the entry's api-versions, oldest first.
func (e *Entry) VersionList() []string {
	if e.Versions == nil && e.RawVersions != "" {
		return strings.Split(e.RawVersions, ",")
	}
	return e.Versions
}
