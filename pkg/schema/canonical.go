package schema

// Member names in another case than the schema's. Resource providers read
// request bodies with case-insensitive JSON readers (Newtonsoft in the
// .NET RPs), so minimumTLSVersion sets minimumTlsVersion; the GET answers
// with the schema's spelling. Validation matches members that way
// (Type.member) and warns, so a plan is never silent about a name Azure
// will spell differently; CanonicalPath gives the spelling to write.

// KindCase: a member name matches a declared one only ignoring case.
const KindCase IssueKind = "name-case"

// CanonicalName is the schema's spelling of the member name under the
// object at parent (a schema path), or name itself when the schema
// declares it as written, declares no such member, or the object is a
// map (its keys are data, such as tags).
func (t *Type) CanonicalName(parent Path, name string) string {
	if t == nil || t.Properties[string(parent.Member(name))] != nil {
		return name
	}
	alt := t.memberFold(parent, name)
	if alt == "" {
		return name
	}
	_, n := alt.Split()
	return n
}

// CanonicalPath spells each member of a concrete body path ("properties",
// "minimumTLSVersion"; items as "[0]") as the schema does; segments the
// schema does not know, and everything below them, are kept as written.
func (t *Type) CanonicalPath(concrete []string) []string {
	out := make([]string, len(concrete))
	copy(out, concrete)
	var cur Path
	for i, seg := range concrete {
		if IsItem(seg) {
			cur = cur.Item()
			if t.Properties[string(cur)] == nil {
				return out
			}
			continue
		}
		next, p := t.member(cur, seg)
		if p == nil {
			return out
		}
		if _, n := next.Split(); n != "*" {
			out[i] = n
		}
		cur = next
	}
	return out
}

// caseMismatch warns when a body member matched its declared property
// only ignoring case (sp is where member found it). A finding the value
// already has at that path (from issue from on) gets the note instead:
// at most one finding per path.
func (v *validator) caseMismatch(path []string, sp Path, written string, from int) {
	_, declared := sp.Split()
	if declared == written || declared == "*" || declared == "[]" {
		return
	}
	at := JoinPath(path)
	for i := from; i < len(v.issues); i++ {
		if v.issues[i].Path == at {
			v.issues[i].Message += "; the schema spells the name " + declared
			return
		}
	}
	is := v.add(path, Warning, KindCase, "name case: %s %s spells it %s; the provider reads names ignoring case and Azure answers with %s, so write it so", v.t.Name, v.t.APIVersion, declared, declared)
	is.Suggestions = []string{declared}
}

// RenameMember renames, in place, the member a concrete body path names
// (its last segment) to to, the schema's spelling from a name-case
// finding's Suggestions. It does nothing, and reports false, when the
// path does not lead to an object member or the object already has a
// member named to (both spellings written: the user must pick one).
func RenameMember(body map[string]any, concrete []string, to string) bool {
	if len(concrete) == 0 || IsItem(concrete[len(concrete)-1]) {
		return false
	}
	var cur any = body
	for _, seg := range concrete[:len(concrete)-1] {
		switch x := cur.(type) {
		case map[string]any:
			cur = x[seg]
		case []any:
			i, ok := itemIndex(seg)
			if !ok || i >= len(x) {
				return false
			}
			cur = x[i]
		default:
			return false
		}
	}
	obj, ok := cur.(map[string]any)
	from := concrete[len(concrete)-1]
	if !ok || from == to {
		return false
	}
	v, has := obj[from]
	if _, taken := obj[to]; !has || taken {
		return false
	}
	delete(obj, from)
	obj[to] = v
	return true
}

// itemIndex reads an item segment "[3]".
func itemIndex(seg string) (int, bool) {
	if !IsItem(seg) {
		return 0, false
	}
	n := 0
	for _, c := range seg[1 : len(seg)-1] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
