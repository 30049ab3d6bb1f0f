package specgen

import (
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/apiversion"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
)

// GenerateMerged builds the index from both sources: the Bicep type index
// decides which (type, api-version) pairs exist and what their bodies
// hold; the Swagger adds what only it carries (array identifiers,
// create-only mutability, PATCH support and model, defaults, arm-id,
// status codes), from the exact api-version when it has it, else from the
// nearest one (recorded per version as FactsFrom). Pairs only the Swagger
// knows are kept as the Swagger describes them.
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
		known := slices.Sorted(maps.Keys(svs))
		for ver, v := range bvs {
			if from := apiversion.Nearest(known, ver); from != "" {
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

// addSwaggerFacts copies onto a Bicep version what only the Swagger says.
// Facts from another api-version are marked so explain can say where they
// came from.
func addSwaggerFacts(v, s *version, exact bool) {
	const swaggerVersionFlags = format.VFlagEtag | format.VFlagPutLRO | format.VFlagDeleteLRO
	v.flags |= s.flags & swaggerVersionFlags
	v.putStatus, v.delStatus = s.putStatus, s.delStatus
	if exact || sameResource(v, s) {
		v.flags |= s.flags & format.VFlagPatch
		for _, p := range s.patch {
			if _, ok := v.props[p]; ok {
				v.patch = append(v.patch, p)
			}
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

// sameResource reports whether the Swagger version s, of another
// api-version, describes the resource the Bicep version v does, so its
// PATCH support can be borrowed. A Swagger whose paths all fix the name
// describes only resources of those names: Microsoft.Insights 2016-09-01
// has .../diagnosticSettings/service with a PATCH, while the
// diagnosticSettings the user names (2021-05-01-preview) have none. Its
// PATCH is taken only when v's names are (some of) those fixed names.
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
