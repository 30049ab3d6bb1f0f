package manifest

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names that look like others: ARM accepts some Unicode names, so a name
// of Cyrillic "а" among Latin letters is valid, and a reviewer reading
// "stdеmo001" cannot tell it from the account it imitates. A name, group
// or reference that mixes scripts, or holds a letter made to look Latin,
// is a warning (not an error) at its file and line.

// latinLookalikes are letters of other scripts drawn like Latin ones.
var latinLookalikes = map[rune]bool{}

func init() {
	for _, r := range "" +
		"аеорсухѕіјԁԛԝһӏвкмнтАВЕКМНОРСТХЅІЈҮԚԜ" + // Cyrillic
		"αβειικνορτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ" + // Greek
		"օոսհզգ" + // Armenian
		"ıɑɡɩʟ" { // Latin letters outside ASCII read as ASCII ones
		latinLookalikes[r] = true
	}
}

// confusable says why s may be mistaken for another name, or "".
func confusable(s string) string {
	if isASCII(s) {
		return ""
	}
	scripts := map[string]bool{}
	for _, r := range s {
		if !unicode.IsLetter(r) {
			continue
		}
		if r < utf8.RuneSelf {
			scripts["Latin"] = true
			continue
		}
		script := scriptOf(r)
		if script != "Common" && script != "Inherited" { // shared marks: no script of their own
			scripts[script] = true
		}
		switch {
		case latinLookalikes[r]:
			return fmt.Sprintf("%q holds %q (U+%04X, %s), which looks like a Latin letter: it may imitate another name", s, r, r, script)
		case isWideOrStyledLatin(r):
			return fmt.Sprintf("%q holds %q (U+%04X), a fullwidth or styled form of a Latin letter: it may imitate another name", s, r, r)
		}
	}
	if len(scripts) > 1 {
		names := make([]string, 0, len(scripts))
		for n := range scripts {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Sprintf("%q mixes letters of %s: it may imitate another name", s, strings.Join(names, " and "))
	}
	return ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isASCIIBytes is isASCII without copying a document's text.
func isASCIIBytes(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isWideOrStyledLatin reports fullwidth Latin letters and the
// mathematical alphanumeric symbols, which fonts draw as plain letters.
func isWideOrStyledLatin(r rune) bool {
	return (r >= 0xFF21 && r <= 0xFF3A) || (r >= 0xFF41 && r <= 0xFF5A) || (r >= 0x1D400 && r <= 0x1D7FF)
}

// scriptOf names the Unicode script of a letter.
func scriptOf(r rune) string {
	for _, name := range []string{"Latin", "Cyrillic", "Greek", "Armenian", "Han", "Hiragana", "Katakana", "Hangul", "Arabic", "Hebrew"} {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	for name, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			return name
		}
	}
	return "another script"
}

// checkConfusable warns about look-alike names in one document: its
// metadata.name and spec.name, its placement (spec.resourceGroup,
// spec.parent, spec.scope) and every ${ref:...} it holds.
func (l *loader) checkConfusable(d document) {
	if d.lines.text != nil && isASCIIBytes(d.lines.text) {
		return // the common case: nothing to look at
	}
	meta, _ := d.obj["metadata"].(map[string]any)
	spec, _ := d.obj["spec"].(map[string]any)
	// Names are checked whole; a body value is free text (a description
	// in Russian is fine), so only its references are.
	check := func(path string, v any, whole bool) {
		s, ok := v.(string)
		if !ok || isASCII(s) {
			return
		}
		if why := confusable(s); why != "" && whole && !strings.Contains(s, "${") {
			l.warn(d.origin, path, "%s; ARM accepts it, so check it is the name meant", why)
		}
		for _, ref := range refArgs(s) {
			if why := confusable(ref); why != "" {
				l.warn(d.origin, path, "the reference ${ref:%s}: %s; check it names the resource meant", ref, why)
			}
		}
	}
	check("metadata.name", meta["name"], true)
	for _, k := range []string{"name", "resourceGroup", "parent", "scope", "id"} {
		check("spec."+k, spec[k], true)
	}
	walkStrings(spec["body"], "spec.body", func(path string, v any) { check(path, v, false) })
}

// refArgs lists the arguments of the ${ref:...} placeholders in s.
func refArgs(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "${ref:")
		if i < 0 {
			return out
		}
		s = s[i+len("${ref:"):]
		j := strings.IndexByte(s, '}')
		if j < 0 {
			return out
		}
		out = append(out, s[:j])
		s = s[j+1:]
	}
}

// walkStrings calls fn for every string value and map key under v.
func walkStrings(v any, path string, fn func(path string, v any)) {
	switch t := v.(type) {
	case string:
		fn(path, t)
	case map[string]any:
		for k, c := range t {
			p := path + "." + k
			fn(p, k)
			walkStrings(c, p, fn)
		}
	case []any:
		for i, c := range t {
			walkStrings(c, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	}
}
