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
const Version = "kubectl-azure-schema 4"

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
	FlagRequired
	FlagHasMinLength
	FlagHasMaxLength
	FlagHasMinValue
	FlagHasMaxValue
	FlagHasPattern
	// FlagVariants: the record carries the discriminator values whose
	// body declares the path (Variants); without it every variant does.
	FlagVariants
	// FlagDiscriminator: the path is a polymorphic object whose member
	// Discriminator selects the body.
	FlagDiscriminator
	// FlagFromSwagger: some Swagger-only facts (identifiers, create-only,
	// default, arm-id) were read from a nearer Swagger api-version rather
	// than the exact one (APIVersion.FactsFrom says which).
	FlagFromSwagger
)

// Version flags.
const (
	VFlagPatch = 1 << iota
	VFlagEtag
	VFlagPutLRO
	VFlagDeleteLRO
	// VFlagBicep: the version is in the Bicep type index (required,
	// write-only, sensitive, descriptions and limits are known).
	VFlagBicep
	// VFlagSwagger: a Swagger spec of this exact api-version exists.
	VFlagSwagger
)

// Prop is one property record as stored.
type Prop struct {
	Flags       uint64
	Type        string
	Default     string // JSON text; meaningful with FlagHasDefault
	Enum        []string
	Identifiers []string
	// Limits, meaningful with their FlagHas* bit.
	MinLength, MaxLength int64
	MinValue, MaxValue   int64
	Pattern              string
	// Discriminator names the member that selects a polymorphic body;
	// for the body root of name-keyed types it is "name" (the resource
	// name, not a body member).
	Discriminator string
	// Variants lists the discriminator values whose body declares this
	// path (sorted); meaningful with FlagVariants.
	Variants []string
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
	// Descs binds paths to Blob.Descriptions (ascending by path).
	Descs []PathProp
	// FactsFrom is the Swagger api-version the Swagger-only facts (PATCH,
	// identifiers, create-only, defaults, arm-id, status codes) come from:
	// Version itself, a neighbour, or "" when no Swagger describes the type.
	FactsFrom    string
	PutStatus    []int
	DeleteStatus []int
}

// Blob is everything known about one resource type.
type Blob struct {
	Name     string
	Paths    []string
	Props    []Prop
	Versions []APIVersion
	// Descriptions is the distinct description texts of every version,
	// stored in their own compressed section and decoded only on demand.
	Descriptions []string
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
