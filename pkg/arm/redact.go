package arm

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Body redaction for -v 8 logs. A value is hidden when any of these says
// so:
//   - its property name is credential-like (secret.Name, plus the wider
//     isSecretName: a log is the wrong place to find a false negative);
//   - it lies under a secret container (secret.Container: protectedSettings …);
//   - it lies on a path the schema marks secret for the resource's type
//     and api-version (Options.SensitivePaths), or, without that hook or
//     when it knows nothing, on a path of defaultSensitive;
//   - it is in the response of a list* action (listKeys, listSecrets …),
//     whose whole point is to return credentials;
//   - it is a string with an embedded credential (connection strings,
//     SAS signatures), which redactText rewrites.
// secret.Scrub then runs over the whole log text.

// sensitiveRule names secret paths of one type; names, when set, limits
// it to resources of those names (sites/config/appsettings).
type sensitiveRule struct {
	names []string
	paths []string
}

// defaultSensitive covers the types whose secrets sit under neutral names
// ("value", arbitrary app-setting keys), from their REST API references:
// a Key Vault secret's properties.value; App Service appsettings,
// connectionstrings and auth settings (sites and slots), whose properties
// are a free-form map of the user's settings, and the same settings written
// inline in a site's siteConfig.
var defaultSensitive = map[string][]sensitiveRule{
	"microsoft.keyvault/vaults/secrets":           {{paths: []string{"properties.value"}}},
	"microsoft.keyvault/managedhsms/secrets":      {{paths: []string{"properties.value"}}},
	"microsoft.web/sites/config":                  {{names: webSecretConfigs, paths: []string{"properties.*"}}},
	"microsoft.web/sites/slots/config":            {{names: webSecretConfigs, paths: []string{"properties.*"}}},
	"microsoft.apimanagement/service/namedvalues": {{paths: []string{"properties.value"}}},
	// The same settings inline in a site's siteConfig.
	"microsoft.web/sites":       {{paths: webInlineSecrets}},
	"microsoft.web/sites/slots": {{paths: webInlineSecrets}},
}

var webInlineSecrets = []string{"properties.siteConfig.appSettings[].value", "properties.siteConfig.connectionStrings[].connectionString"}

var webSecretConfigs = []string{"appsettings", "connectionstrings", "authsettings", "authsettingsv2", "publishingcredentials", "azurestorageaccounts"}

// bodyCtx is what redaction knows about a request: its resource type,
// api-version, resource name, and whether it is a list* action.
type bodyCtx struct {
	c          *Client
	typ        string
	name       string
	apiVersion string
	listAction bool
}

func (c *Client) bodyContext(method string, u *url.URL) bodyCtx {
	bc := bodyCtx{c: c}
	if u == nil {
		return bc
	}
	bc.apiVersion = u.Query().Get("api-version")
	path := strings.TrimRight(u.Path, "/")
	if method == http.MethodPost {
		if i := strings.LastIndex(path, "/"); i >= 0 {
			action := path[i+1:]
			bc.listAction = strings.HasPrefix(strings.ToLower(action), "list")
			path = path[:i]
		}
	}
	if id, err := armid.Parse(path); err == nil {
		bc.typ, bc.name = id.Type(), id.Name()
	} else if id, err := armid.Parse(path + "/x"); err == nil {
		// A collection path: its items' type.
		bc.typ = id.Type()
	}
	return bc
}

// pathsFor returns the secret paths of one resource.
func (bc bodyCtx) pathsFor(typ, name string) []string {
	if typ == "" {
		return nil
	}
	var out []string
	if f := bc.c.opts.SensitivePaths; f != nil {
		out = f(typ, bc.apiVersion)
	}
	for _, r := range defaultSensitive[strings.ToLower(typ)] {
		if len(r.names) == 0 || containsFold(r.names, name) {
			out = append(out, r.paths...)
		}
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// redact returns data with secrets replaced; non-JSON text goes through
// redactText.
func (bc bodyCtx) redact(data []byte, response bool) string {
	var v any
	if err := decodeJSON(data, &v); err != nil {
		return redactText(string(data))
	}
	if response && bc.listAction {
		v = redactAll(v)
	} else if m, ok := v.(map[string]any); ok {
		if items, ok := m["value"].([]any); ok && bc.name == "" {
			// A list page: each item is a resource of its own type.
			for i, it := range items {
				items[i] = bc.redactResource(it)
			}
		} else {
			v = bc.redactResource(m)
		}
	}
	out, err := encodeJSON(redactValue(v))
	if err != nil {
		return redactText(string(data))
	}
	return string(out)
}

func (bc bodyCtx) redactResource(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	typ, name := bc.typ, bc.name
	if t, ok := m["type"].(string); ok && t != "" {
		typ = t
	}
	if n, ok := m["name"].(string); ok && n != "" && name == "" {
		name = n
	}
	for _, p := range bc.pathsFor(typ, name) {
		if segs := splitSchemaPath(p); len(segs) > 0 {
			redactPath(m, segs)
		}
	}
	return m
}

// splitSchemaPath splits a schema path ("properties.secrets[].value",
// "properties.*", as pkg/schema writes them; "[*]" is accepted too) into
// [properties secrets value]; array markers are dropped, since arrays are
// descended into wherever they appear. A path that does not parse gives
// nil, which hides nothing: the name rules of redactValue still apply.
func splitSchemaPath(p string) []string {
	segs, err := bodypath.Parse(p)
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range segs {
		if s.Kind == bodypath.Member {
			out = append(out, s.Name)
		}
	}
	return out
}

// redactPath hides the values at path below v ("*" matches any key).
func redactPath(v any, path []string) any {
	if len(path) == 0 {
		if v == nil {
			return nil
		}
		return redacted
	}
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if path[0] == "*" || strings.EqualFold(k, path[0]) {
				t[k] = redactPath(val, path[1:])
			}
		}
	case []any:
		for i := range t {
			t[i] = redactPath(t[i], path)
		}
	}
	return v
}

// redactAll hides every string and number leaf, keeping the shape.
func redactAll(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			t[k] = redactAll(val)
		}
		return t
	case []any:
		for i := range t {
			t[i] = redactAll(t[i])
		}
		return t
	case string, json.Number:
		return redacted
	}
	return v
}

// redactValue applies the name rules everywhere in a body.
func redactValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, val := range t {
			switch {
			case val == nil:
				m[k] = nil
			case secret.Container(k), secret.Name(k, val), isSecretName(k) && !isBool(val):
				m[k] = redacted
			default:
				m[k] = redactValue(val)
			}
		}
		// {"name": "DB_PASSWORD", "value": "..."} pairs (app settings,
		// container env) hide the secret behind a generic "value".
		if n, ok := t["name"].(string); ok && (isSecretName(n) || secret.CredentialName(n)) {
			if _, has := m["value"]; has {
				m["value"] = redacted
			}
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i := range t {
			out[i] = redactValue(t[i])
		}
		return out
	case string:
		return redactText(t)
	}
	return v
}

func isBool(v any) bool { _, ok := v.(bool); return ok }

// bodySecrets returns the string values of a request body that the log
// would hide (see redactValue and the sensitive paths), so an error
// quoting the body can hide them too.
func (c *Client) bodySecrets(method, rawURL string, body map[string]any) []string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	data, err := encodeJSON(body)
	if err != nil {
		return nil
	}
	var orig, red any
	if decodeJSON(data, &orig) != nil {
		return nil
	}
	bc := c.bodyContext(method, u)
	red = redactValue(bc.redactResource(bodypath.Copy(orig)))
	var out []string
	collectRedacted(orig, red, &out)
	return out
}

// collectRedacted appends the string leaves of orig where red was
// replaced by the redaction marker (all strings below a redacted node).
func collectRedacted(orig, red any, out *[]string) {
	if s, ok := red.(string); ok && s == redacted {
		allStrings(orig, out)
		return
	}
	switch o := orig.(type) {
	case map[string]any:
		r, _ := red.(map[string]any)
		for k, v := range o {
			collectRedacted(v, r[k], out)
		}
	case []any:
		r, _ := red.([]any)
		for i := range o {
			if i < len(r) {
				collectRedacted(o[i], r[i], out)
			}
		}
	case string:
		// Partly redacted strings (connection strings) are left to
		// redactText, which runs on error text too.
	}
}

func allStrings(v any, out *[]string) {
	switch t := v.(type) {
	case string:
		*out = append(*out, t)
	case map[string]any:
		for _, x := range t {
			allStrings(x, out)
		}
	case []any:
		for _, x := range t {
			allStrings(x, out)
		}
	}
}
