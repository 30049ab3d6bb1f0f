// Package format is the on-disk layout of the schema index, shared by the
// generator (which writes it) and the registry (which reads it).
//
// An index directory holds:
//
//	index.tsv    one line per resource type: name, shard file, offset,
//	             length, comma-separated api-versions (ascending).
//	sNNN.bin     shards: concatenated per-type blobs, each independently
//	             flate-compressed, so one type decodes without touching
//	             its neighbours (the lazy, per-type lookup budget).
//
// A blob holds every api-version of one type. Property paths and property
// records are stored once per type and referenced by index from each
// version: most versions of a type repeat most of the previous one, and
// this dedupe is where most of the size goes.
package format

// Version is bumped whenever the encoding changes, so that a cache written
// by an older binary is regenerated instead of misread.
const Version = "kubectl-azure-schema 3"

// IndexFile is the name of the directory file in an index.
const IndexFile = "index.tsv"

// Prop flags.
const (
	FlagReadOnly = 1 << iota
	FlagCreateOnly
	FlagSecret
	FlagWriteOnly
	FlagEnumClosed
	FlagARMID
	FlagPositional
	FlagHasIdentifiers
	FlagHasDefault
)

// Version flags.
const (
	VFlagPatch = 1 << iota
	VFlagEtag
	VFlagPutLRO
	VFlagDeleteLRO
)

// Prop is one property record as stored.
type Prop struct {
	Flags       uint64
	Type        string
	Default     string // JSON text; meaningful with FlagHasDefault
	Enum        []string
	Identifiers []string
}

// PathProp binds a path (index into Blob.Paths) to a record (index into
// Blob.Props).
type PathProp struct {
	Path int
	Prop int
}

// APIVersion is one api-version of a type.
type APIVersion struct {
	Version    string
	Flags      uint64
	PatchPaths []int // indexes into Blob.Paths, ascending
	Props      []PathProp
}

// Blob is everything known about one resource type.
type Blob struct {
	Name     string
	Paths    []string
	Props    []Prop
	Versions []APIVersion
}

// Entry is one line of the index file.
type Entry struct {
	Name     string
	Shard    string
	Offset   int64
	Length   int64
	Versions []string
	// RawVersions is Versions comma-joined, as ParseIndex leaves it.
	RawVersions string
}
