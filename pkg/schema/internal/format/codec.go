package format

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// A blob is a compressed header (name, paths, property records, the list
// of api-versions with their flags and section sizes) followed by one
// compressed section per api-version. A lookup decompresses the header
// and the one section it needs, which keeps the first lookup of the
// largest types (network resources: 50 versions of 4,000 paths) within
// budget. Paths are sorted and front-coded: consecutive paths share most
// of their prefix.

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrs(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendStr(b, s)
	}
	return b
}

// appendPairs writes path-ascending pairs with the paths delta-coded.
func appendPairs(b []byte, ps []PathProp) []byte {
	b = binary.AppendUvarint(b, uint64(len(ps)))
	prev := 0
	for _, pp := range ps {
		b = binary.AppendUvarint(b, uint64(pp.Path-prev))
		b = binary.AppendUvarint(b, uint64(pp.Prop))
		prev = pp.Path
	}
	return b
}

func appendInts(b []byte, xs []int) []byte {
	b = binary.AppendUvarint(b, uint64(len(xs)))
	for _, x := range xs {
		b = binary.AppendUvarint(b, uint64(x))
	}
	return b
}

// appendLimits writes the optional parts of a record, each only when its
// flag says it is there.
func appendLimits(b []byte, p *Prop) []byte {
	if p.Flags&FlagHasMinLength != 0 {
		b = binary.AppendVarint(b, p.MinLength)
	}
	if p.Flags&FlagHasMaxLength != 0 {
		b = binary.AppendVarint(b, p.MaxLength)
	}
	if p.Flags&FlagHasMinValue != 0 {
		b = binary.AppendVarint(b, p.MinValue)
	}
	if p.Flags&FlagHasMaxValue != 0 {
		b = binary.AppendVarint(b, p.MaxValue)
	}
	if p.Flags&FlagHasPattern != 0 {
		b = appendStr(b, p.Pattern)
	}
	if p.Flags&FlagDiscriminator != 0 {
		b = appendStr(b, p.Discriminator)
	}
	if p.Flags&FlagVariants != 0 {
		b = appendStrs(b, p.Variants)
	}
	return b
}

func deflate(raw []byte) ([]byte, error) {
	var out bytes.Buffer
	w, err := flate.NewWriter(&out, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func inflate(b []byte) ([]byte, error) {
	raw, err := io.ReadAll(flate.NewReader(bytes.NewReader(b)))
	if err != nil {
		return nil, fmt.Errorf("decompress schema blob: %w", err)
	}
	return raw, nil
}

// Encode serialises and compresses a blob.
func Encode(b *Blob) ([]byte, error) {
	sections := make([][]byte, len(b.Versions))
	for i, v := range b.Versions {
		var raw []byte
		raw = binary.AppendUvarint(raw, uint64(len(v.PatchPaths)))
		prev := 0
		for _, p := range v.PatchPaths {
			raw = binary.AppendUvarint(raw, uint64(p-prev)) // ascending: small deltas
			prev = p
		}
		raw = appendPairs(raw, v.Props)
		raw = appendInts(raw, v.PutStatus)
		raw = appendInts(raw, v.DeleteStatus)
		c, err := deflate(raw)
		if err != nil {
			return nil, err
		}
		sections[i] = c
	}
	var h []byte
	h = appendStr(h, b.Name)
	h = binary.AppendUvarint(h, uint64(len(b.Paths)))
	prev := ""
	for _, p := range b.Paths {
		n := 0
		for n < len(p) && n < len(prev) && p[n] == prev[n] {
			n++
		}
		h = binary.AppendUvarint(h, uint64(n))
		h = appendStr(h, p[n:])
		prev = p
	}
	h = binary.AppendUvarint(h, uint64(len(b.Props)))
	for _, p := range b.Props {
		h = binary.AppendUvarint(h, p.Flags)
		h = appendStr(h, p.Type)
		if p.Flags&FlagHasDefault != 0 {
			h = appendStr(h, p.Default)
		}
		h = appendStrs(h, p.Enum)
		h = appendStrs(h, p.Identifiers)
		h = appendLimits(h, &p)
	}
	h = binary.AppendUvarint(h, uint64(len(b.Versions)))
	for i, v := range b.Versions {
		h = appendStr(h, v.Version)
		h = binary.AppendUvarint(h, v.Flags)
		h = appendStr(h, v.FactsFrom)
		h = binary.AppendUvarint(h, uint64(len(sections[i])))
	}
	hc, err := deflate(h)
	if err != nil {
		return nil, err
	}
	// Descriptions and every version's path bindings share one stream:
	// consecutive versions bind nearly the same paths, which one deflate
	// window compresses far better than a copy per version section.
	d := appendStrs(nil, b.Descriptions)
	for _, v := range b.Versions {
		d = appendPairs(d, v.Descs)
	}
	dc, err := deflate(d)
	if err != nil {
		return nil, err
	}
	out := binary.AppendUvarint(nil, uint64(len(hc)))
	out = append(out, hc...)
	out = binary.AppendUvarint(out, uint64(len(dc)))
	out = append(out, dc...)
	for _, s := range sections {
		out = append(out, s...)
	}
	return out, nil
}

var errCorrupt = errors.New("schema index blob is corrupt")

type reader struct {
	b   []byte
	err error
}

func (r *reader) num() uint64 { return varint(r, binary.Uvarint) }

func (r *reader) snum() int64 { return varint(r, binary.Varint) }

// varint reads one number with decode (binary.Uvarint or binary.Varint);
// after the first failure every read returns 0 and r.err says why.
func varint[T uint64 | int64](r *reader, decode func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, n := decode(r.b)
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) limits(p *Prop) {
	if p.Flags&FlagHasMinLength != 0 {
		p.MinLength = r.snum()
	}
	if p.Flags&FlagHasMaxLength != 0 {
		p.MaxLength = r.snum()
	}
	if p.Flags&FlagHasMinValue != 0 {
		p.MinValue = r.snum()
	}
	if p.Flags&FlagHasMaxValue != 0 {
		p.MaxValue = r.snum()
	}
	if p.Flags&FlagHasPattern != 0 {
		p.Pattern = r.str()
	}
	if p.Flags&FlagDiscriminator != 0 {
		p.Discriminator = r.str()
	}
	if p.Flags&FlagVariants != 0 {
		p.Variants = r.strs()
	}
}

// pairs reads what appendPairs wrote, checking indexes against the
// table sizes.
func (r *reader) pairs(paths, targets int) ([]PathProp, error) {
	n := r.count()
	if n == 0 {
		return nil, r.err
	}
	out := make([]PathProp, n)
	prev := 0
	for j := range out {
		prev += int(r.num())
		pi := int(r.num())
		if prev >= paths || pi >= targets {
			return nil, errCorrupt
		}
		out[j] = PathProp{Path: prev, Prop: pi}
	}
	return out, r.err
}

func (r *reader) ints() []int {
	n := r.count()
	if n == 0 {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = int(r.num())
	}
	return out
}

func (r *reader) bytes() []byte {
	n := r.num()
	if r.err != nil {
		return nil
	}
	if uint64(len(r.b)) < n {
		r.err = errCorrupt
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *reader) str() string { return string(r.bytes()) }

// count reads a length and rejects values that cannot fit in what is left,
// so a corrupt blob fails instead of allocating wildly.
func (r *reader) count() int {
	n := r.num()
	if n > uint64(len(r.b)) {
		r.err = errCorrupt
		return 0
	}
	return int(n)
}

func (r *reader) strs() []string {
	n := r.count()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

// Lazy is a blob whose header is decoded and whose api-version sections
// are decoded on demand.
type Lazy struct {
	*Blob
	descs    []byte // compressed Descriptions, decoded by LoadDescriptions
	sections [][]byte
	paths    []byte // front-coded Paths; Blob.Paths[i] is "" until materialised
}

// materialise fills Blob.Paths[i] for every i with need[i], slicing them
// all out of one string.
func (l *Lazy) materialise(need []bool) error {
	r := &reader{b: l.paths}
	var prev, buf []byte
	var ends []int
	var idx []int
	for i := range l.Paths {
		shared := int(r.num())
		suffix := r.bytes()
		if r.err != nil {
			return r.err
		}
		if shared > len(prev) {
			return errCorrupt
		}
		prev = append(prev[:shared], suffix...)
		if need[i] && l.Paths[i] == "" {
			buf = append(buf, prev...)
			ends = append(ends, len(buf))
			idx = append(idx, i)
		}
	}
	all := string(buf)
	start := 0
	for j, i := range idx {
		l.Paths[i] = all[start:ends[j]]
		start = ends[j]
	}
	return nil
}

// DecodeHeader decodes the header of a blob produced by Encode; Versions
// carry Version and Flags, and Section fills in the rest for one of them.
func DecodeHeader(b []byte) (*Lazy, error) {
	r := &reader{b: b}
	hc := r.bytes()
	dc := r.bytes()
	if r.err != nil {
		return nil, r.err
	}
	rest := r.b
	raw, err := inflate(hc)
	if err != nil {
		return nil, err
	}
	r = &reader{b: raw}
	out := &Blob{Name: r.str()}
	n := r.count()
	lz := &Lazy{Blob: out, descs: dc}
	// Paths stay front-coded until a section needs them: the largest
	// types carry 20,000 paths across their versions, and one version
	// uses a fraction of them.
	pathsStart := r.b
	for i := 0; i < n; i++ {
		r.num()
		r.bytes()
	}
	if r.err != nil {
		return nil, r.err
	}
	lz.paths = pathsStart[:len(pathsStart)-len(r.b)]
	out.Paths = make([]string, n)
	out.Props = make([]Prop, r.count())
	for i := range out.Props {
		p := &out.Props[i]
		p.Flags = r.num()
		p.Type = r.str()
		if p.Flags&FlagHasDefault != 0 {
			p.Default = r.str()
		}
		p.Enum = r.strs()
		p.Identifiers = r.strs()
		r.limits(p)
	}
	out.Versions = make([]APIVersion, r.count())
	for i := range out.Versions {
		v := &out.Versions[i]
		v.Version = r.str()
		v.Flags = r.num()
		v.FactsFrom = r.str()
		size := r.num()
		if r.err != nil {
			return nil, r.err
		}
		if size > uint64(len(rest)) {
			return nil, errCorrupt
		}
		lz.sections = append(lz.sections, rest[:size])
		rest = rest[size:]
	}
	if r.err != nil {
		return nil, r.err
	}
	return lz, nil
}

// Section decodes the properties and PATCH paths of Versions[i].
func (l *Lazy) Section(i int) error {
	if i < 0 || i >= len(l.sections) {
		return errCorrupt
	}
	raw, err := inflate(l.sections[i])
	if err != nil {
		return err
	}
	r := &reader{b: raw}
	v := &l.Versions[i]
	v.PatchPaths = nil
	if n := r.count(); n > 0 {
		v.PatchPaths = make([]int, n)
	}
	prev := 0
	for j := range v.PatchPaths {
		prev += int(r.num())
		if prev >= len(l.Paths) {
			return errCorrupt
		}
		v.PatchPaths[j] = prev
	}
	if v.Props, err = r.pairs(len(l.Paths), len(l.Props)); err != nil {
		return err
	}
	v.PutStatus = r.ints()
	v.DeleteStatus = r.ints()
	if r.err != nil {
		return r.err
	}
	need := make([]bool, len(l.Paths))
	for _, p := range v.PatchPaths {
		need[p] = true
	}
	for _, pp := range v.Props {
		need[pp.Path] = true
	}
	return l.materialise(need)
}

// LoadDescriptions decodes the description table and every version's
// Descs (explain only), and materialises the paths they name.
func (l *Lazy) LoadDescriptions() error {
	if l.Descriptions != nil || l.descs == nil {
		return nil
	}
	raw, err := inflate(l.descs)
	if err != nil {
		return err
	}
	r := &reader{b: raw}
	d := r.strs()
	if r.err != nil {
		return r.err
	}
	need := make([]bool, len(l.Paths))
	for i := range l.Versions {
		v := &l.Versions[i]
		if v.Descs, err = r.pairs(len(l.Paths), len(d)); err != nil {
			return err
		}
		for _, pp := range v.Descs {
			need[pp.Path] = true
		}
	}
	if err := l.materialise(need); err != nil {
		return err
	}
	if d == nil {
		d = []string{}
	}
	l.Descriptions = d
	l.descs = nil
	return nil
}
