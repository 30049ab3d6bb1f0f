package expr

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Shape is what is known of the text of a value known only at deploy
// time, so that uri() can place it without knowing it.
type Shape int

const (
	// ShapeAny: nothing is known; uri() cannot place it.
	ShapeAny Shape = iota
	// ShapeSegment: letters, digits and '-' only (a GUID, a hash): it
	// never changes how the URI around it resolves.
	ShapeSegment
	// ShapeQuery: empty or a query starting with '?' (a SAS token).
	ShapeQuery
)

// Shaped is an Unknown that knows its Shape.
type Shaped interface {
	Shape() Shape
}

func shapeOf(v any) Shape {
	switch x := v.(type) {
	case *Hash:
		return ShapeSegment
	case Shaped:
		return x.Shape()
	}
	return ShapeAny
}

// fURI is uri(base, relative): RFC 3986 reference resolution, as .NET's
// Uri(Uri, string) does it. A relative part with deploy-time values is
// resolved with a stand-in for each and the values put back after; that
// is exact only for values whose Shape says where they land, and any
// other is known only at deploy time.
func fURI(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, 2); err != nil {
		return nil, err
	}
	base, err := strArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	if _, known := Known(args[1]); !known {
		return uriUnknown(c, base, args[1])
	}
	rel, err := strArg(c, args, 1)
	if err != nil {
		return nil, err
	}
	return resolveURI(base, rel)
}

func resolveURI(base, rel string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("bad base URI %q: %v", base, err)
	}
	r, err := url.Parse(rel)
	if err != nil {
		return "", fmt.Errorf("bad relative URI %q: %v", rel, err)
	}
	return b.ResolveReference(r).String(), nil
}

// uriUnknown resolves a relative part with deploy-time values in it.
func uriUnknown(c *Ctx, base string, rel any) (any, error) {
	parts := []any{rel}
	if cc, ok := rel.(*Concat); ok {
		parts = cc.Parts
	}
	tag := standInTag(base, parts)
	var text strings.Builder
	var unknowns []any
	var standIns []string
	for i, p := range parts {
		if s, ok := p.(string); ok {
			text.WriteString(s)
			continue
		}
		stand := tag + strconv.Itoa(len(unknowns)) + "z"
		switch shapeOf(p) {
		case ShapeSegment:
		case ShapeQuery:
			if !queryPlaceable(base, text.String(), parts[i+1:]) {
				return nil, deferred(c, p)
			}
			stand = "?" + stand
		default:
			return nil, deferred(c, p)
		}
		text.WriteString(stand)
		unknowns = append(unknowns, p)
		standIns = append(standIns, stand)
	}
	out, err := resolveURI(base, text.String())
	if err != nil {
		return nil, err
	}
	return putBack(c, out, standIns, unknowns)
}

// queryPlaceable: a query-shaped value may be empty, so what follows it
// must not be a path ARM would resolve differently without it, and an
// empty relative part before it would keep the base's query.
func queryPlaceable(base, before string, after []any) bool {
	for _, p := range after {
		s, ok := p.(string)
		if !ok || strings.Contains(s, "/") {
			return false
		}
	}
	return before != "" || !strings.Contains(base, "?")
}

// standInTag is a run of lower-case letters that occurs in no literal,
// so a stand-in is found again exactly where the resolution put it.
func standInTag(base string, parts []any) string {
	all := strings.ToLower(base)
	for _, p := range parts {
		if s, ok := p.(string); ok {
			all += strings.ToLower(s)
		}
	}
	tag := "zqv"
	for strings.Contains(all, tag) {
		tag += "q"
	}
	return tag
}

// putBack splits the resolved URI at its stand-ins, in order, each found
// once.
func putBack(c *Ctx, out string, standIns []string, unknowns []any) (any, error) {
	var parts []any
	for i, s := range standIns {
		at := strings.Index(out, s)
		if at < 0 || strings.Contains(out[at+len(s):], s) {
			return nil, deferred(c, unknowns[i])
		}
		if at > 0 {
			parts = append(parts, out[:at])
		}
		parts = append(parts, unknowns[i])
		out = out[at+len(s):]
	}
	if out != "" {
		parts = append(parts, out)
	}
	return joinParts(parts), nil
}
