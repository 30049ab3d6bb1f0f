package schema

import (
	"encoding/json"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
)

// buildType materialises one api-version of a decoded blob. Property
// records are shared between the paths (and versions) that have identical
// facts, so callers must treat *Property as read-only.
func buildType(b *format.Blob, v *format.APIVersion) *Type {
	props := make([]*Property, len(b.Props))
	t := &Type{
		Name:           b.Name,
		APIVersion:     v.Version,
		Properties:     make(map[string]*Property, len(v.Props)),
		PatchSupported: v.Flags&format.VFlagPatch != 0,
		HasEtag:        v.Flags&format.VFlagEtag != 0,
		PutLRO:         v.Flags&format.VFlagPutLRO != 0,
		DeleteLRO:      v.Flags&format.VFlagDeleteLRO != 0,
		PutStatus:      v.PutStatus,
		DeleteStatus:   v.DeleteStatus,
		FactsFrom:      v.FactsFrom,
		Detailed:       v.Flags&format.VFlagBicep != 0,
		x:              &typeExtra{},
	}
	for _, pp := range v.Props {
		path := b.Paths[pp.Path]
		if path == "" {
			// The body root's own record only says how it is
			// discriminated.
			t.Discriminator = b.Props[pp.Prop].Discriminator
			continue
		}
		p := props[pp.Prop]
		if p == nil {
			p = toProperty(&b.Props[pp.Prop])
			props[pp.Prop] = p
		}
		t.Properties[path] = p
	}
	if len(v.PatchPaths) > 0 {
		t.PatchPaths = make([]string, len(v.PatchPaths))
		for i, pi := range v.PatchPaths {
			t.PatchPaths[i] = b.Paths[pi]
		}
	}
	return t
}

func toProperty(fp *format.Prop) *Property {
	p := &Property{
		Type:       JSONType(fp.Type),
		ReadOnly:   fp.Flags&format.FlagReadOnly != 0,
		CreateOnly: fp.Flags&format.FlagCreateOnly != 0,
		Secret:     fp.Flags&format.FlagSecret != 0,
		WriteOnly:  fp.Flags&format.FlagWriteOnly != 0,
		EnumClosed: fp.Flags&format.FlagEnumClosed != 0,
		ARMID:      fp.Flags&format.FlagARMID != 0,
		Positional: fp.Flags&format.FlagPositional != 0,
		Enum:       fp.Enum,
		Required:   fp.Flags&format.FlagRequired != 0,
		Pattern:    fp.Pattern,
		Variants:   fp.Variants,

		Discriminator:      fp.Discriminator,
		FromNearestSwagger: fp.Flags&format.FlagFromSwagger != 0,
	}
	limit := func(flag uint64, v int64) *int64 {
		if fp.Flags&flag == 0 {
			return nil
		}
		return &v
	}
	p.MinLength = limit(format.FlagHasMinLength, fp.MinLength)
	p.MaxLength = limit(format.FlagHasMaxLength, fp.MaxLength)
	p.MinValue = limit(format.FlagHasMinValue, fp.MinValue)
	p.MaxValue = limit(format.FlagHasMaxValue, fp.MaxValue)
	if fp.Flags&format.FlagHasIdentifiers != 0 {
		p.Identifiers = fp.Identifiers
		if p.Identifiers == nil {
			p.Identifiers = []string{}
		}
	}
	if fp.Flags&format.FlagHasDefault != 0 {
		// Numbers stay exact: defaults are compared with bodies that
		// carry json.Number.
		dec := json.NewDecoder(strings.NewReader(fp.Default))
		dec.UseNumber()
		var d any
		if dec.Decode(&d) == nil {
			p.Default = d
		}
	}
	return p
}
