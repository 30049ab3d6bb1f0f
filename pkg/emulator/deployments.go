package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

// Template deployments (Microsoft.Resources/deployments) deploy: the
// template is evaluated with the same evaluator as `kubectl azure convert`,
// and each resource is written through this emulator's own ARM, in the
// order dependsOn and parents give, so what a deployment makes is exactly
// what the same template converted and applied makes. The deployment
// itself answers as ARM's does: 201 with provisioningState Accepted, then
// Running, then Succeeded with outputs and outputResources, or Failed with
// a DeploymentFailed error whose details name each failed resource
// (Deployments - Create Or Update, REST reference; the error shape of
// public deployment failures).
//
// A template whose values read the resources it deploys (reference(),
// list*()) is evaluated in rounds as they are deployed (deployrounds.go).
// What the emulator cannot do is said, never faked: a linked template
// (templateLink, parametersLink) is not fetched, and a function the
// evaluator lacks fails the deployment with EmulatorCannotEvaluate.

// deploymentUA names the emulator's own writes in the statistics.
const deploymentUA = "arm-emulator-deployment"

func isDeployment(p armid.Path) bool {
	return p.Kind == armid.PathResource && strings.EqualFold(p.Type(), "Microsoft.Resources/deployments")
}

// serveDeployment handles PUT of a deployment and its validate and
// whatIf actions. It is called with s.mu held.
func (s *Server) serveDeployment(r *http.Request, p armid.Path, apiVersion string, body map[string]any) (reply, bool) {
	if isDeployment(p) && r.Method == http.MethodPut {
		return s.startDeployment(r, p, apiVersion, body), true
	}
	if isDeployment(p) && r.Method == http.MethodGet {
		// A deployment under way tells its pollers when to ask again, as
		// ARM's does; without it clients wait their default 30 s.
		if d := s.store.get(p.Raw); d != nil {
			if st := provisioningState(d.Body); st == "Accepted" || st == "Running" {
				return reply{status: http.StatusOK, body: deepCopy(d.Body), retryAfter: "1"}, true
			}
		}
	}
	// POST .../deployments/{name}/validate parses as a collection of the
	// action's name under the deployment.
	if r.Method == http.MethodPost && p.Kind == armid.PathCollection && strings.EqualFold(p.Provider, "Microsoft.Resources") &&
		len(p.Types) == 2 && strings.EqualFold(p.Types[0], "deployments") {
		switch strings.ToLower(p.Types[1]) {
		case "validate":
			_, _, err := s.evaluateDeployment(p, body)
			// ARM validates a template that reads what it deploys
			// without deploying it: those reads are not checked here.
			if err != nil && !readsDeployed(err) {
				return reply{err: err}, true
			}
			return ok200(map[string]any{"properties": map[string]any{"provisioningState": "Succeeded", "mode": mode(body)}}), true
		case "whatif":
			return reply{err: newError(http.StatusBadRequest, "NotSupported",
				"The ARM emulator does not compute what-if results; use `kubectl azure diff` on the converted template instead.")}, true
		}
	}
	return reply{}, false
}

func mode(body map[string]any) string {
	m, _ := asMap(body["properties"])["mode"].(string)
	if m == "" {
		m = "Incremental"
	}
	return m
}

// evaluateDeployment evaluates a deployment body's template for the scope
// p names, as far as it can before anything is deployed.
func (s *Server) evaluateDeployment(p armid.Path, body map[string]any) ([]convert.Resource, map[string]any, *armError) {
	t, scope, aerr := s.prepareDeployment(p, body)
	if aerr != nil {
		return nil, nil, aerr
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, outs, err := t.Evaluate(ctx, scope)
	if err != nil {
		return nil, nil, templateError(err)
	}
	return res, outs, nil
}

// prepareDeployment parses a deployment body's template and gives the
// scope it evaluates in. It is called with s.mu held.
func (s *Server) prepareDeployment(p armid.Path, body map[string]any) (*convert.Template, convert.Scope, *armError) {
	var none convert.Scope
	props := asMap(body["properties"])
	if props == nil {
		return nil, none, newError(http.StatusBadRequest, "InvalidDeployment", "The deployment must have properties with a template.")
	}
	if props["templateLink"] != nil || props["parametersLink"] != nil {
		return nil, none, newError(http.StatusBadRequest, "InvalidTemplate",
			"The ARM emulator does not fetch linked templates (templateLink, parametersLink): send the template and parameters inline.")
	}
	m := mode(body)
	if !strings.EqualFold(m, "Incremental") && !strings.EqualFold(m, "Complete") {
		return nil, none, newError(http.StatusBadRequest, "InvalidDeploymentMode", "The deployment mode '%s' is not valid: use Incremental or Complete.", m)
	}
	tpl, ok := props["template"].(map[string]any)
	if !ok {
		return nil, none, newError(http.StatusBadRequest, "InvalidTemplate", "The deployment has no template: properties.template must be an object.")
	}
	raw, _ := json.Marshal(tpl)
	t, err := convert.Parse(p.Name()+".json", raw)
	if err != nil {
		return nil, none, templateError(err)
	}
	params := map[string]any{}
	for k, v := range asMap(props["parameters"]) {
		pv := asMap(v)
		if pv["reference"] != nil {
			return nil, none, newError(http.StatusBadRequest, "InvalidTemplate",
				"The ARM emulator does not resolve Key Vault references in parameters (parameter '%s'): pass the value.", k)
		}
		params[k] = pv["value"]
	}
	scope := convert.Scope{Subscription: p.Subscription, ResourceGroup: p.ResourceGroup, Tenant: emulatorTenant, Parameters: params}
	if p.ResourceGroup != "" {
		g := s.store.get("/subscriptions/" + p.Subscription + "/resourceGroups/" + p.ResourceGroup)
		if g == nil {
			return nil, none, newError(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", p.ResourceGroup)
		}
		scope.Location, _ = g.Body["location"].(string)
	} else if loc, ok := body["location"].(string); ok {
		scope.Location = loc
	}
	return t, scope, nil
}

// beyondEmulator says whether a template the evaluator refused may still
// be one ARM deploys: it needs values only a deployment has (reference(),
// list*(), names computed from them) or a function the evaluator lacks.
func beyondEmulator(e *armError) bool {
	for _, m := range []string{"known only while deploying", "known only at deploy time", "unknown function"} {
		if strings.Contains(e.Message, m) {
			return true
		}
	}
	return false
}

func templateError(err error) *armError {
	return newError(http.StatusBadRequest, "InvalidTemplate", "Deployment template validation failed: '%s'.", strings.TrimSpace(err.Error()))
}

// startDeployment stores the deployment as Accepted and deploys it in the
// background, as ARM does.
func (s *Server) startDeployment(r *http.Request, p armid.Path, apiVersion string, body map[string]any) reply {
	if prev := s.store.get(p.Raw); prev != nil {
		if st := provisioningState(prev.Body); st == "Accepted" || st == "Running" {
			return reply{err: newError(http.StatusConflict, "DeploymentActive",
				"The deployment '%s' cannot be saved, because this would overwrite an existing deployment which is still active.", p.Name())}
		}
	}
	resources, outputs, aerr := s.evaluateDeployment(p, body)
	var cannot *armError
	var reads *convert.Template
	var readScope convert.Scope
	switch {
	case aerr != nil && readsDeployed(aerr):
		// The template reads what it deploys (reference(), list*()):
		// it is evaluated again as its resources are deployed.
		reads, readScope, _ = s.prepareDeployment(p, body)
	case aerr != nil && beyondEmulator(aerr):
		// ARM would deploy this; the emulator cannot evaluate it. The
		// deployment is taken and then fails saying so, never refused as
		// if the template were wrong, and never reported as deployed.
		cannot, resources, outputs = aerr, nil, nil
	case aerr != nil:
		return reply{err: aerr}
	}
	now := s.now()
	props := asMap(deepCopy(body["properties"]))
	delete(props, "template")
	props["provisioningState"] = "Accepted"
	props["timestamp"] = now.UTC().Format(time.RFC3339Nano)
	props["correlationId"] = newGUID()
	props["mode"] = mode(body)
	props["parameters"] = typedParameters(asMap(props["parameters"]))
	props["outputResources"] = []any{}
	props["dependencies"] = []any{}
	res := &resource{ID: s.canonicalID(p), Type: "Microsoft.Resources/deployments", APIVersion: apiVersion, Created: now, Changed: now,
		Body: map[string]any{"id": s.canonicalID(p), "name": p.Name(), "type": "Microsoft.Resources/deployments", "properties": props}}
	if loc, ok := body["location"].(string); ok {
		res.Body["location"] = loc
	}
	if tags, ok := body["tags"].(map[string]any); ok {
		res.Body["tags"] = deepCopy(tags)
	}
	s.store.put(res)
	base := s.baseURL(r)
	switch {
	case cannot != nil:
		go s.setDeployment(res.ID, func(props map[string]any) { failDeployment(props, cannotEvaluate(cannot.Message)) })
	case reads != nil:
		go s.deployInRounds(base, res.ID, reads, readScope)
	default:
		go s.deploy(base, res.ID, resources, outputs)
	}
	// Polled at the deployment's URL until provisioningState is terminal.
	return reply{status: http.StatusCreated, body: deepCopy(res.Body), retryAfter: "1"}
}

func typedParameters(in map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range in {
		pv := asMap(v)
		out[k] = map[string]any{"type": jsonType(pv["value"]), "value": deepCopy(pv["value"])}
	}
	return out
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "String"
	case bool:
		return "Bool"
	case float64, json.Number, int, int64:
		return "Int"
	case []any:
		return "Array"
	case map[string]any:
		return "Object"
	}
	return "String"
}

// deploy writes resources in dependency order through the emulator's own
// handler and settles the deployment at id.
func (s *Server) deploy(base, id string, resources []convert.Resource, outputs map[string]any) {
	s.setDeployment(id, func(props map[string]any) { props["provisioningState"] = "Running" })
	start := time.Now()
	var written []any
	var failures []any
	for _, res := range orderResources(resources) {
		if err := s.deployOne(base, res); err != nil {
			failures = append(failures, map[string]any{"code": err.code, "message": err.message, "target": res.ID})
			// ARM stops starting resources that depend on a failed one;
			// this deploys in one line, so it stops at the first failure.
			break
		}
		written = append(written, map[string]any{"id": res.ID})
	}
	s.setDeployment(id, func(props map[string]any) {
		s.settle(props, start, written, failures, outputs)
	})
}

// settle writes a deployment's terminal state: Failed with ARM's
// DeploymentFailed error naming each failure, else Succeeded with the
// outputs typed as ARM reports them.
func (s *Server) settle(props map[string]any, start time.Time, written, failures []any, outputs map[string]any) {
	props["outputResources"] = written
	props["duration"] = isoDuration(time.Since(start))
	props["timestamp"] = s.now().UTC().Format(time.RFC3339Nano)
	if len(failures) > 0 {
		failDeployment(props, failures...)
		return
	}
	props["provisioningState"] = "Succeeded"
	typed := map[string]any{}
	for k, v := range outputs {
		typed[k] = map[string]any{"type": jsonType(v), "value": v}
	}
	props["outputs"] = typed
}

func failDeployment(props map[string]any, details ...any) {
	props["provisioningState"] = "Failed"
	props["error"] = map[string]any{
		"code":    "DeploymentFailed",
		"message": "At least one resource deployment operation failed. Please list deployment operations for details.",
		"details": details,
	}
}

func cannotEvaluate(msg string) map[string]any {
	return map[string]any{"code": "EmulatorCannotEvaluate", "message": "The ARM emulator cannot deploy this template: " + msg}
}

func (s *Server) setDeployment(id string, edit func(map[string]any)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.store.get(id)
	if d == nil {
		return // deleted meanwhile
	}
	body := deepCopy(d.Body)
	props := asMap(body["properties"])
	edit(props)
	cp := *d
	cp.Body = body
	cp.Changed = s.now()
	s.store.put(&cp)
}

type deployError struct{ code, message string }

// deployOne PUTs one resource and waits for it to settle, retrying what
// ARM's deployment engine retries (throttling, a parent busy).
func (s *Server) deployOne(base string, res convert.Resource) *deployError {
	raw, _ := json.Marshal(res.Body)
	url := res.ID + "?api-version=" + res.APIVersion
	deadline := time.Now().Add(5 * time.Minute)
	for attempt := 0; ; attempt++ {
		rec := s.internal(http.MethodPut, base, url, raw)
		if rec.Code < 300 {
			return s.waitSettled(base, url, deadline)
		}
		code, msg := errorOf(rec.Body.Bytes())
		retry := rec.Code == http.StatusTooManyRequests || code == "AnotherOperationInProgress" || rec.Code >= 500
		if !retry || time.Now().After(deadline) {
			return &deployError{code: code, message: msg}
		}
		time.Sleep(time.Duration(20*(attempt+1)) * time.Millisecond)
	}
}

// waitSettled polls a written resource until its provisioning state is
// terminal.
func (s *Server) waitSettled(base, url string, deadline time.Time) *deployError {
	for {
		rec := s.internal(http.MethodGet, base, url, nil)
		if rec.Code >= 300 {
			if rec.Code == http.StatusTooManyRequests && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			code, msg := errorOf(rec.Body.Bytes())
			return &deployError{code: code, message: msg}
		}
		var b map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &b)
		switch provisioningState(b) {
		case "", "Succeeded":
			return nil
		case "Failed", "Canceled":
			return &deployError{code: "ResourceDeploymentFailure", message: fmt.Sprintf("The resource write operation failed to complete successfully, because it reached terminal provisioning state '%s'.", provisioningState(b))}
		}
		if time.Now().After(deadline) {
			return &deployError{code: "DeploymentTimeout", message: "The resource did not settle in time."}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Server) internal(method, base, pathAndQuery string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "/", bytes.NewReader(body))
	// Names may hold spaces and other characters a request line cannot.
	path, query, _ := strings.Cut(pathAndQuery, "?")
	req.URL.Path, req.URL.RawQuery = path, query
	req.RequestURI = req.URL.RequestURI()
	req.Host = strings.TrimPrefix(strings.TrimPrefix(base, "https://"), "http://")
	req.Header.Set("User-Agent", deploymentUA)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	return rec
}

func errorOf(raw []byte) (string, string) {
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Error.Code == "" {
		return "ResourceDeploymentFailure", strings.TrimSpace(string(raw))
	}
	return e.Error.Code, e.Error.Message
}

// orderResources sorts resources so each comes after what it depends on
// (dependsOn by ID or name) and after its parent, keeping template order
// otherwise.
func orderResources(in []convert.Resource) []convert.Resource {
	idx := map[string]int{}
	byName := map[string]int{}
	for i, r := range in {
		idx[strings.ToLower(r.ID)] = i
		byName[strings.ToLower(r.Name)] = i
	}
	deps := make([][]int, len(in))
	for i, r := range in {
		for _, d := range r.DependsOn {
			k := strings.ToLower(strings.TrimSpace(d))
			if j, ok := idx[k]; ok && j != i {
				deps[i] = append(deps[i], j)
			} else if j, ok := byName[k]; ok && j != i {
				deps[i] = append(deps[i], j)
			} else if j, ok := byName[lastSegment(k)]; ok && j != i {
				deps[i] = append(deps[i], j)
			}
		}
		if id, err := armid.Parse(r.ID); err == nil {
			for p, ok := id.Parent(); ok; p, ok = p.Parent() {
				if j, found := idx[strings.ToLower(p.String())]; found && j != i {
					deps[i] = append(deps[i], j)
				}
			}
		}
	}
	var out []convert.Resource
	state := make([]int, len(in)) // 0 new, 1 visiting, 2 done
	var visit func(int)
	visit = func(i int) {
		if state[i] != 0 {
			return // done, or a cycle: ARM refuses those; keep going
		}
		state[i] = 1
		sort.Ints(deps[i])
		for _, j := range deps[i] {
			visit(j)
		}
		state[i] = 2
		out = append(out, in[i])
	}
	for i := range in {
		visit(i)
	}
	return out
}

func isoDuration(d time.Duration) string {
	return fmt.Sprintf("PT%.7fS", d.Seconds())
}

func deploymentPath(path string) bool {
	return strings.Contains(strings.ToLower(path), "/providers/microsoft.resources/deployments/")
}

// lenientJSON rewrites the lenient JSON ARM reads in a deployment's body
// into strict JSON: // and /* */ comments outside strings are blanked and
// bare property names are quoted. `az deployment group create -f` splices
// a template file's text into its request as it is, after a bare
// `template:` key (seen on the wire from azure-cli 2.45), and ARM answers
// 201.
func lenientJSON(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	inString, escaped := false, false
	lastSignificant := byte(0)
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			out = append(out, c)
			if escaped {
				escaped = false
			} else if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
			}
			continue
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
			continue
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			i += 2
			for i+1 < len(b) && !(b[i] == '*' && b[i+1] == '/') {
				i++
			}
			i++ // the closing '/'
			out = append(out, ' ')
			continue
		case isIdentStart(c) && (lastSignificant == '{' || lastSignificant == ','):
			j := i
			for j < len(b) && isIdentPart(b[j]) {
				j++
			}
			k := j
			for k < len(b) && (b[k] == ' ' || b[k] == '\t' || b[k] == '\r' || b[k] == '\n') {
				k++
			}
			if k < len(b) && b[k] == ':' {
				out = append(append(append(out, '"'), b[i:j]...), '"')
				i = j - 1
				lastSignificant = '"'
				continue
			}
		}
		out = append(out, c)
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			lastSignificant = c
		}
	}
	return out
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }
