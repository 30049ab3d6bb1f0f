package arm

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Body redaction for -v 8 logs. A value is hidden when the one rule says
// so (secret.Rule for the resource's type and name: credential names,
// containers, the type's secret paths, plus the paths the schema marks
// secret for the type and api-version, Options.SensitivePaths), and, since
// a log is the wrong place to find a false negative, also when:
//   - its property name is merely credential-like (secret.LikeCredential);
//   - it is the value of a {"name": "DB_PASSWORD", "value": ...} pair;
//   - it is in the response of a list* action (listKeys, listSecrets …),
//     whose whole point is to return credentials;
//   - it is a string with an embedded credential (connection strings,
//     SAS signatures), which redactText rewrites;
//   - it is a number or boolean whose text the run registered as secret.
// The run's registry (Options.Secrets) then scrubs the whole log text.

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

// ruleFor returns the secret rule of one resource: its type's rule plus
// the paths the schema marks secret (Options.SensitivePaths).
func (bc bodyCtx) ruleFor(typ, name string) *secret.Rule {
	var extra []string
	if f := bc.c.opts.SensitivePaths; f != nil && typ != "" {
		extra = f(typ, bc.apiVersion)
	}
	return secret.For(typ, name, nil, extra...)
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
	out, err := encodeJSON(redactRegistered(redactValue(v), bc.c.opts.Secrets))
	if err != nil {
		return redactText(string(data))
	}
	return string(out)
}

// redactRegistered hides every number or boolean leaf whose text is a
// secret the run registered: a valueFrom value written as a number (a
// retention of 700 days from the environment) comes back from the provider
// as a bare JSON token, which the registry's text scrubbing cannot tell
// from any other 700 (it replaces a value that short only where quoted).
func redactRegistered(v any, reg *secret.Registry) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			t[k] = redactRegistered(val, reg)
		}
	case []any:
		for i := range t {
			t[i] = redactRegistered(t[i], reg)
		}
	case json.Number:
		if reg.Registered(t.String()) {
			return redacted
		}
	case bool:
		if reg.Registered(strconv.FormatBool(t)) {
			return redacted
		}
	}
	return v
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
	return redactByRule(m, nil, bc.ruleFor(typ, name))
}

// redactByRule hides every scalar the rule calls sensitive, keeping the
// shape (an object below a secret path keeps its members, hidden).
func redactByRule(v any, p bodypath.Path, r *secret.Rule) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			t[k] = redactByRule(val, append(p[:len(p):len(p)], bodypath.Field(k)), r)
		}
		return t
	case []any:
		for i := range t {
			t[i] = redactByRule(t[i], append(p[:len(p):len(p)], bodypath.At(i)), r)
		}
		return t
	case nil:
		return nil
	}
	if r.At(p, v) {
		return redacted
	}
	return v
}

// redactAll hides every string and number leaf, keeping the shape and
// the timestamps (a key's creationTime is not the key). It returns new
// containers and leaves v as it was.
func redactAll(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, val := range t {
			m[k] = redactAll(val)
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i := range t {
			out[i] = redactAll(t[i])
		}
		return out
	case string:
		if isTimestamp(t) {
			return t
		}
		return redacted
	case json.Number:
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
			case secret.Container(k), secret.Name(k, val):
				m[k] = redacted
			case secret.LikeCredential(k) && !isBool(val) && !isTimeName(k):
				// A merely credential-like name (keys, key1): hide what
				// could be a credential below it, but not a timestamp
				// (keyCreationTime.key1, keys[].creationTime).
				m[k] = redactAll(val)
			default:
				m[k] = redactValue(val)
			}
		}
		// {"name": "DB_PASSWORD", "value": "..."} pairs (app settings,
		// container env) hide the secret behind a generic "value".
		if n, ok := t["name"].(string); ok && secret.LikeCredential(n) {
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

// isTimeName reports whether a member name says it holds a time
// (creationTime, tokenExpiryTime, key_expiry_time), so the merely
// credential-like part of it (token, key) does not make it a credential.
// Lower-case words ending in "time" (runtime, lifetime) do not count.
func isTimeName(name string) bool {
	return strings.HasSuffix(name, "Time") || strings.HasSuffix(strings.ToLower(name), "_time")
}

// isTimestamp reports whether s is an RFC 3339 time: never a credential,
// whatever the property's name.
func isTimestamp(s string) bool {
	if len(s) < len("2006-01-02T15:04:05Z") || len(s) > 40 {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
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
