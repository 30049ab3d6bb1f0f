package manifest

import (
	"fmt"
	"strings"
)

// exprPart is one piece of a parsed string: literal text or one ${...}.
type exprPart struct {
	lit  string
	fn   string       // "" (literal), "subscriptionId", "tenantId", "ref", "guid", "uniqueString", "resourceGroupId"
	arg  string       // the ref target and path, for "ref"; the group name, for "resourceGroupId"
	args [][]exprPart // the arguments, for "guid" and "uniqueString"
	raw  string       // the placeholder as written, for messages
}

// parseExpr splits s into literals and placeholders. "$${" writes a
// literal "${". Placeholders nest inside function arguments:
// ${guid:${ref:rg},reader}.
func parseExpr(s string) ([]exprPart, error) {
	var out []exprPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, exprPart{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "$${"):
			lit.WriteString("${")
			i += 3
		case strings.HasPrefix(s[i:], "${"):
			end, err := closingBrace(s, i+2)
			if err != nil {
				return nil, err
			}
			p, err := parseCall(s[i+2 : end])
			if err != nil {
				return nil, err
			}
			p.raw = s[i : end+1]
			flush()
			out = append(out, p)
			i = end + 1
		default:
			lit.WriteByte(s[i])
			i++
		}
	}
	flush()
	return out, nil
}

// closingBrace returns the index of the "}" closing a placeholder whose
// body starts at from, skipping nested placeholders.
func closingBrace(s string, from int) (int, error) {
	depth := 1
	for j := from; j < len(s); {
		switch {
		case strings.HasPrefix(s[j:], "$${"):
			// A literal ${...} inside an argument is balanced too.
			depth++
			j += 3
		case strings.HasPrefix(s[j:], "${"):
			depth++
			j += 2
		case s[j] == '}':
			depth--
			if depth == 0 {
				return j, nil
			}
			j++
		default:
			j++
		}
	}
	return 0, fmt.Errorf("unterminated placeholder %q: close it with }, or write $${ for a literal ${", s[from-2:])
}

func parseCall(inner string) (exprPart, error) {
	name, arg, hasArg := strings.Cut(inner, ":")
	switch {
	case name == "subscriptionId" && !hasArg:
		return exprPart{fn: "subscriptionId"}, nil
	case name == "tenantId" && !hasArg:
		return exprPart{fn: "tenantId"}, nil
	case (strings.EqualFold(name, "subscriptionId") || strings.EqualFold(name, "tenantId")) && !hasArg:
		// Placeholders are exact, as every other name in a manifest is.
		exact := "subscriptionId"
		if strings.EqualFold(name, "tenantId") {
			exact = "tenantId"
		}
		return exprPart{}, fmt.Errorf("${%s}: placeholders are case-sensitive; write ${%s}", inner, exact)
	case name == "ref" && hasArg:
		if strings.Contains(arg, "${") {
			return exprPart{}, fmt.Errorf("${%s}: a reference names a resource literally; placeholders cannot build it", inner)
		}
		if strings.TrimSpace(arg) == "" {
			return exprPart{}, fmt.Errorf("${ref:} names no resource; write ${ref:NAME} or ${ref:NAME.PATH}")
		}
		return exprPart{fn: "ref", arg: arg}, nil
	case (name == "guid" || name == "uniqueString") && hasArg:
		if strings.TrimSpace(arg) == "" {
			// ARM's guid() and uniqueString() take at least one argument;
			// a name hashed over nothing is the same in every deployment.
			return exprPart{}, fmt.Errorf("${%s} has no argument: write ${%s:ARG,...}, e.g. ${%s:${ref:rg-demo}}", inner, name, name)
		}
		var args [][]exprPart
		for _, a := range splitArgs(arg) {
			p, err := parseExpr(a)
			if err != nil {
				return exprPart{}, err
			}
			args = append(args, p)
		}
		return exprPart{fn: name, args: args}, nil
	case name == "secret" && hasArg:
		if strings.Contains(arg, "${") || strings.TrimSpace(arg) == "" {
			return exprPart{}, fmt.Errorf("${%s}: name one of the template's secrets, e.g. ${secret:key}", inner)
		}
		return exprPart{fn: name, arg: strings.TrimSpace(arg)}, nil
	case name == "resourceGroupId" && hasArg:
		if strings.Contains(arg, "${") || strings.TrimSpace(arg) == "" {
			return exprPart{}, fmt.Errorf("${%s}: write the resource group's name, e.g. ${resourceGroupId:rg-demo}", inner)
		}
		return exprPart{fn: name, arg: strings.TrimSpace(arg)}, nil
	case strings.EqualFold(name, "uniqueString") || strings.EqualFold(name, "guid") || strings.EqualFold(name, "ref") || strings.EqualFold(name, "resourceGroupId"):
		return exprPart{}, fmt.Errorf("${%s}: write ${ref:NAME}, ${guid:ARG,...}, ${uniqueString:ARG,...} or ${resourceGroupId:NAME}, spelt exactly so, with their arguments after the colon", inner)
	}
	return exprPart{}, fmt.Errorf("unknown placeholder ${%s}: use ${ref:NAME}, ${ref:NAME.PATH}, ${ref:TYPE/NAME}, ${guid:ARG,...}, ${subscriptionId} or ${tenantId}, or write $${ for a literal ${", inner)
}

// splitArgs splits function arguments at commas outside nested placeholders.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for j := 0; j < len(s); j++ {
		switch {
		case strings.HasPrefix(s[j:], "$${"):
			depth++
			j += 2
		case strings.HasPrefix(s[j:], "${"):
			depth++
			j++
		case s[j] == '}' && depth > 0:
			depth--
		case s[j] == ',' && depth == 0:
			out = append(out, s[start:j])
			start = j + 1
		}
	}
	return append(out, s[start:])
}

// refCandidates lists the ways to split a ${ref:...} argument into a
// resource and a path, longest resource first: names may contain dots,
// and the longest prefix that names a managed resource wins.
func refCandidates(arg string) (prefixes []string) {
	for k := len(arg); k > 0; k-- {
		if k == len(arg) || arg[k] == '.' || arg[k] == '[' {
			prefixes = append(prefixes, arg[:k])
		}
	}
	return prefixes
}
