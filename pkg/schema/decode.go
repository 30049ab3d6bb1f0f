package schema

import (
	"encoding/json"

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
	}
	for _, pp := range v.Props {
		p := props[pp.Prop]
		if p == nil {
			p = toProperty(&b.Props[pp.Prop])
			props[pp.Prop] = p
		}
		t.Properties[b.Paths[pp.Path]] = p
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
	}
	if fp.Flags&format.FlagHasIdentifiers != 0 {
		p.Identifiers = fp.Identifiers
		if p.Identifiers == nil {
			p.Identifiers = []string{}
		}
	}
	if fp.Flags&format.FlagHasDefault != 0 {
		var d any
		if json.Unmarshal([]byte(fp.Default), &d) == nil {
			p.Default = d
		}
	}
	return p
}
