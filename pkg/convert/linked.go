package convert

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
)

// Link maps the URIs of linked templates to a local copy: a templateLink
// URI that starts with Prefix is read from Dir joined with the rest of
// the URI. Nothing is ever downloaded.
type Link struct {
	Prefix string
	Dir    string
}

// ParseLink reads a --linked-templates value, URL_PREFIX=DIR.
func ParseLink(s string) (Link, error) {
	i := strings.LastIndex(s, "=")
	if i <= 0 || i == len(s)-1 {
		return Link{}, fmt.Errorf("--linked-templates %q: want URL_PREFIX=DIR, e.g. https://raw.githubusercontent.com/OWNER/REPO/main/=./repo", s)
	}
	return Link{Prefix: s[:i], Dir: s[i+1:]}, nil
}

// linkedHint is what to do about a linked template that is not mapped.
const linkedHint = "give --linked-templates URL_PREFIX=DIR for a local copy of it, or inline it as properties.template"

// localFile is the file a link URI maps to, if any.
func (r *run) localFile(uri string) (string, bool) {
	for _, l := range r.links {
		if !strings.HasPrefix(uri, l.Prefix) {
			continue
		}
		rest := path.Clean("/" + strings.TrimPrefix(uri, l.Prefix))
		return filepath.Join(l.Dir, filepath.FromSlash(rest)), true
	}
	return "", false
}

// ownURI is the URI a template file is deployed from when it lies under
// a mapped directory: the prefix and its path below the directory.
func (r *run) ownURI(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return ""
	}
	for _, l := range r.links {
		dir, err := filepath.Abs(l.Dir)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(dir, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		return l.Prefix + filepath.ToSlash(rel)
	}
	return ""
}

// linkURI is a templateLink's URI without its query (a SAS token, which
// only authorises the download): a known string, or a string followed by
// a secure parameter taken to be the token.
func linkURI(v any) (string, bool) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case *expr.Concat:
		var b strings.Builder
		for i, p := range x.Parts {
			str, ok := p.(string)
			if ok {
				b.WriteString(str)
				continue
			}
			if _, secret := p.(*secretValue); !secret || i == 0 {
				return "", false
			}
			break
		}
		s = b.String()
	default:
		return "", false
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	return s, s != ""
}

// linked is the template a templateLink names, read from its local copy:
// the template, the file and the URI it stands for.
func (dd *doc) linked(link map[string]any, path string) (map[string]any, string, string, error) {
	d := dd.decl.d
	var file, uri string
	if rel, ok := expr.Member(link, "relativePath"); ok {
		v, err := dd.ctx.value(rel, joinPath(path, "relativePath"))
		if err != nil {
			return nil, "", "", err
		}
		s, ok := linkURI(v)
		if !ok {
			return nil, "", "", &evalError{path: path, msg: "a linked template whose relativePath is known only at deploy time is not converted", deferred: true}
		}
		file = filepath.Join(filepath.Dir(d.file), filepath.FromSlash(s))
		if d.uri != "" {
			uri = d.uri[:strings.LastIndex(d.uri, "/")+1] + s
		}
	} else {
		v, err := dd.ctx.value(memberOf(link, "uri"), joinPath(path, "uri"))
		if err != nil {
			return nil, "", "", err
		}
		s, ok := linkURI(v)
		if !ok {
			return nil, "", "", &evalError{path: path, msg: "a linked template whose URI is known only at deploy time is not converted: " + linkedHint, deferred: true}
		}
		if file, ok = d.r.localFile(s); !ok {
			return nil, "", "", &evalError{path: path, msg: fmt.Sprintf("a linked template (%s) is not converted: %s", s, linkedHint), deferred: true}
		}
		uri = s
	}
	tmpl, err := readJSONObject(file)
	if err != nil {
		return nil, "", "", dd.ctx.errorf(path, "the linked template: %v", err)
	}
	return tmpl, file, uri, nil
}

// linkedParams reads a parametersLink's file, mapped as templates are.
func (dd *doc) linkedParams(link map[string]any, path string) (map[string]any, error) {
	v, err := dd.ctx.value(memberOf(link, "uri"), joinPath(path, "uri"))
	if err != nil {
		return nil, err
	}
	s, ok := linkURI(v)
	if !ok {
		return nil, &evalError{path: path, msg: "a linked template's parametersLink known only at deploy time is not converted", deferred: true}
	}
	file, ok := dd.decl.d.r.localFile(s)
	if !ok {
		return nil, &evalError{path: path, msg: fmt.Sprintf("a linked template's parameters (%s) are not converted: %s", s, linkedHint), deferred: true}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, dd.ctx.errorf(path, "the linked parameters: %v", err)
	}
	return ParseParameters(file, data)
}

func readJSONObject(file string) (map[string]any, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	src, err := parseSource(file, data)
	if err != nil {
		return nil, fmt.Errorf("%s: not JSON: %v", file, err)
	}
	m, ok := src.value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: not an ARM template", file)
	}
	return m, nil
}
