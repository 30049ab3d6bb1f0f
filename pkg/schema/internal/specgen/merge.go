package specgen

import (
	"os"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/apiversion"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
)

// GenerateMerged builds the index from both sources: the Bicep type index
// decides which (type, api-version) pairs exist and what their bodies
// hold; the Swagger adds what only it carries (array identifiers,
// create-only mutability, PATCH support and model, defaults, arm-id,
// status codes), from the exact api-version when it describes the same
// resource, else from the nearest one that does (recorded per version as
// FactsFrom). Pairs only the Swagger knows are kept as the Swagger
// describes them.
func GenerateMerged(src Source, bicepPath string) ([]*format.Blob, Stats, error) {
	sw, st, err := readSwagger(src)
	if err != nil {
		return nil, st, err
	}
	bt, err := ReadBicep(bicepPath)
	if err != nil {
		return nil, st, err
	}
	merged := mergeSources(bt, sw)
	out := Stats{Types: len(merged), Fallbacks: st.Fallbacks}
	for _, vs := range merged {
		out.Pairs += len(vs)
	}
	return encodeAll(merged, out), out, nil
}

// RunMerged generates the merged index into dir.
func RunMerged(src Source, bicepPath, dir string) (Stats, error) {
	blobs, st, err := GenerateMerged(src, bicepPath)
	if err != nil {
		return st, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, err
	}
	return st, format.WriteIndex(dir, blobs)
}

func mergeSources(bt, sw map[string]map[string]*version) map[string]map[string]*version {
	out := map[string]map[string]*version{}
	for lt, bvs := range bt {
		svs := sw[lt]
		for ver, v := range bvs {
			if from := swaggerFor(v, ver, svs); from != "" {
				addSwaggerFacts(v, svs[from], from == ver)
				v.factsFrom = from
				if from == ver {
					v.flags |= format.VFlagSwagger
				}
			}
		}
		out[lt] = bvs
	}
	for lt, svs := range sw {
		bvs := out[lt]
		if bvs == nil {
			out[lt] = svs
			continue
		}
		for ver, v := range svs {
			if _, ok := bvs[ver]; !ok {
				bvs[ver] = v
			}
		}
	}
	return out
}

// swaggerFor picks the Swagger api-version whose facts the Bicep version
// v (api-version ver) takes: among the Swagger versions of its type that
// describe the same resource, the exact one, else the nearest. Every
// Swagger fact is about one resource: a create-only path taken from
// another plans a replace where an update would do, its defaults and
// array identifiers make plans noisy or silent, and its PATCH, ETag,
// long-running and status codes are that resource's operations. "" when
// no Swagger describes the resource (FactsFrom then says so).
func swaggerFor(v *version, ver string, svs map[string]*version) string {
	var known []string
	for k, s := range svs {
		if sameResource(v, s) {
			known = append(known, k)
		}
	}
	sort.Strings(known)
	return apiversion.Nearest(known, ver)
}

// addSwaggerFacts copies onto a Bicep version what only the Swagger of
// the same resource says (swaggerFor picked it). Facts from another
// api-version are marked so explain can say where they came from.
func addSwaggerFacts(v, s *version, exact bool) {
	const swaggerVersionFlags = format.VFlagEtag | format.VFlagPutLRO | format.VFlagDeleteLRO | format.VFlagPatch
	v.flags |= s.flags & swaggerVersionFlags
	v.putStatus, v.delStatus = s.putStatus, s.delStatus
	for _, p := range s.patch {
		if _, ok := v.props[p]; ok {
			v.patch = append(v.patch, p)
		}
	}
	for path, bp := range v.props {
		// The Bicep index has no float type and writes integer for the
		// Swagger's number (format double or float): the Swagger knows.
		if sp, ok := s.props[path]; ok && bp.Type == "integer" && sp.Type == "number" {
			bp.Type = "number"
			v.props[path] = bp
		}
	}
	const swaggerPropFlags = format.FlagCreateOnly | format.FlagARMID | format.FlagPositional | format.FlagHasIdentifiers | format.FlagHasDefault | format.FlagWriteOnly
	for path, bp := range v.props {
		sp, ok := s.props[path]
		if !ok || sp.Flags&swaggerPropFlags == 0 {
			continue
		}
		if bp.Flags&format.FlagReadOnly == 0 {
			// Write-only too: the Swagger generator also infers it from a
			// member the PUT model has and the GET model lacks, which the
			// Bicep index does not record.
			bp.Flags |= sp.Flags & (format.FlagCreateOnly | format.FlagHasDefault | format.FlagWriteOnly)
			bp.Default = sp.Default
		}
		bp.Flags |= sp.Flags & (format.FlagARMID | format.FlagPositional | format.FlagHasIdentifiers)
		bp.Identifiers = sp.Identifiers
		if !exact {
			bp.Flags |= format.FlagFromSwagger
		}
		v.props[path] = bp
	}
}

// sameResource reports whether the Swagger version s describes the
// resource the Bicep version v does. A Swagger whose paths all fix the
// name describes only resources of those names: Microsoft.Insights
// 2015-07-01 and 2016-09-01 have only .../diagnosticSettings/service
// (create-only location, a PATCH), which says nothing about the
// diagnosticSettings the user names (2017-05-01-preview to
// 2021-05-01-preview). Such a Swagger matches only when v's names are
// (some of) those fixed names.
func sameResource(v, s *version) bool {
	if s.namedByParam || len(s.fixedNames) == 0 {
		return true
	}
	for _, n := range v.props["name"].Enum {
		for _, f := range s.fixedNames {
			if strings.EqualFold(n, f) {
				return true
			}
		}
	}
	return false
}
