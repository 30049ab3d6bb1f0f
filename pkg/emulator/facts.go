package emulator

import (
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

type etagStyle int

const (
	etagStrong etagStyle = iota
	etagWeak
	etagNone
)

// typeFacts is everything the server needs to know about one type and
// api-version, merged from options, the schema and the corpus profile.
type typeFacts struct {
	typeName   string
	putLRO     bool
	deleteLRO  bool
	putStatus  int
	patch      PatchMode
	etag       etagStyle
	systemData bool
	schema     *schema.Type
	profile    *TypeProfile
}

func (s *Server) facts(typ, apiVersion string) typeFacts {
	f := typeFacts{typeName: typ, patch: PatchFull, deleteLRO: true, systemData: true}
	if s.opts.Schema != nil {
		if t, res := s.opts.Schema.Lookup(typ, apiVersion); res.Found && t != nil {
			f.schema = t
		}
	}
	f.profile = s.profile.lookup(typ)
	if tp := f.profile; tp != nil {
		if tp.Type != "" {
			f.typeName = tp.Type
		}
		f.putStatus = tp.PutStatus
		f.systemData = tp.SystemData
		switch tp.Etag {
		case "weak":
			f.etag = etagWeak
		case "strong":
			f.etag = etagStrong
		default:
			f.etag = etagNone
		}
	}
	if t := f.schema; t != nil {
		f.putLRO, f.deleteLRO = t.PutLRO, t.DeleteLRO
		if !t.PatchSupported {
			f.patch = PatchAbsent
		} else if tagsOnly(t.PatchPaths) {
			f.patch = PatchTagsOnly
		}
	} else if f.putStatus == http.StatusAccepted {
		// Without a spec, an RP seen answering 202 to a create is long-running.
		f.putLRO = true
	}
	if strings.EqualFold(typ, "Microsoft.Resources/resourceGroups") {
		// ARM itself: synchronous create, long-running delete.
		f.typeName, f.putLRO, f.deleteLRO, f.patch = "Microsoft.Resources/resourceGroups", false, true, PatchFull
	}
	for k, d := range s.opts.LROByType {
		if strings.EqualFold(k, typ) && d > 0 {
			f.putLRO, f.deleteLRO = true, true
		}
	}
	for k, m := range s.opts.PatchModes {
		if strings.EqualFold(k, typ) {
			f.patch = m
		}
	}
	return f
}

// tagsOnly reports whether a PATCH model accepts nothing but tags.
func tagsOnly(paths []string) bool {
	if len(paths) == 0 {
		return false
	}
	for _, p := range paths {
		if p != "tags" && !strings.HasPrefix(p, "tags.") {
			return false
		}
	}
	return true
}
