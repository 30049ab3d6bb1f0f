package convert

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// The functions that read the deployment: parameters and variables, copy
// loops, IDs, reference() and list*(), and the scope objects. Each
// follows "Template functions" on Microsoft Learn.

func (e *evalCtx) funcs(name string) (expr.Func, bool) {
	switch name {
	case "parameters":
		return e.fParameters, true
	case "variables":
		return e.fVariables, true
	case "copyindex":
		return e.fCopyIndex, true
	case "resourceid":
		return e.fResourceID, true
	case "subscriptionresourceid":
		return e.fSubscriptionResourceID, true
	case "tenantresourceid":
		return e.fTenantResourceID, true
	case "extensionresourceid":
		return e.fExtensionResourceID, true
	case "managementgroupresourceid":
		return e.fManagementGroupResourceID, true
	case "reference":
		return e.fReference, true
	case "resourcegroup":
		return e.fResourceGroup, true
	case "subscription":
		return e.fSubscription, true
	case "tenant":
		return e.fTenant, true
	case "managementgroup":
		return e.fManagementGroup, true
	case "deployment":
		return e.fDeployment, true
	case "newguid", "utcnow":
		return e.fNonDeterministic(name), true
	case "pickzones":
		return func(c *expr.Ctx, _ []any) (any, error) {
			return nil, &expr.DeferredError{Func: c.Func, What: "the zones a region offers the subscription"}
		}, true
	case "providers":
		return func(c *expr.Ctx, _ []any) (any, error) {
			return nil, &expr.DeferredError{Func: c.Func, What: "what a resource provider registers for the subscription (its api-versions and locations)"}
		}, true
	}
	if strings.HasPrefix(name, "list") {
		return e.fList(name), true
	}
	if strings.Contains(name, ".") {
		if def, ok := e.d.paramSource().funcs[name]; ok {
			return e.userFunc(def), true
		}
		if def, ok := e.d.funcs[name]; ok {
			return e.userFunc(def), true
		}
	}
	return nil, false
}

func (e *evalCtx) fParameters(c *expr.Ctx, args []any) (any, error) {
	name, err := oneString(c, args)
	if err != nil {
		return nil, err
	}
	if e.fnParams != nil {
		if v, ok := expr.Member(e.fnParams, name); ok {
			return v, nil
		}
		return nil, fmt.Errorf("the function has no parameter %q", name)
	}
	return e.d.paramSource().param(name)
}

func (e *evalCtx) fVariables(c *expr.Ctx, args []any) (any, error) {
	name, err := oneString(c, args)
	if err != nil {
		return nil, err
	}
	return e.d.paramSource().variable(name)
}

func oneString(c *expr.Ctx, args []any) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("takes one name, got %d arguments", len(args))
	}
	s, ok := args[0].(string)
	if !ok {
		return "", fmt.Errorf("the name must be a string known when converting, got %s", expr.TypeName(args[0]))
	}
	return s, nil
}

// fCopyIndex is copyIndex([loopName], [offset]).
func (e *evalCtx) fCopyIndex(_ *expr.Ctx, args []any) (any, error) {
	loop, offset := "", int64(0)
	for _, a := range args {
		switch x := a.(type) {
		case string:
			loop = x
		case int64:
			offset = x
		default:
			return nil, fmt.Errorf("takes a loop name and an offset, got %s", expr.TypeName(a))
		}
	}
	i, ok := e.loop(loop)
	if !ok {
		if loop == "" {
			return nil, fmt.Errorf("is used outside a copy loop")
		}
		return nil, fmt.Errorf("there is no copy loop named %q around it", loop)
	}
	return i + offset, nil
}

// splitTypeArgs finds the resource type among an ID function's arguments:
// the first argument holding a "/".
func splitTypeArgs(args []any) (int, error) {
	for i, a := range args {
		if s, ok := a.(string); ok && strings.Contains(s, "/") {
			return i, nil
		}
	}
	return 0, fmt.Errorf("needs a resource type (Namespace/type)")
}

func checkNames(typ string, names []any) error {
	want := strings.Count(typ, "/")
	if len(names) < want {
		// ARM's own message: "the type 'T' requires 'N' resource name
		// argument(s)".
		return fmt.Errorf("the type %s requires %d resource name argument(s), got %d (%s)", typ, want, len(names), armRefuses)
	}
	if len(names) != want {
		return fmt.Errorf("type %s takes %d name(s), got %d", typ, want, len(names))
	}
	return nil
}

func (e *evalCtx) fResourceID(_ *expr.Ctx, args []any) (any, error) {
	sc := e.fnScope()
	i, err := splitTypeArgs(args)
	if err != nil {
		return nil, err
	}
	typ, names := strings.Trim(args[i].(string), "/"), args[i+1:]
	if err := checkNames(typ, names); err != nil {
		return nil, err
	}
	if strings.EqualFold(sc.scope, "subscription") && i == 0 || sc.scope == "managementGroup" || sc.scope == "tenant" {
		if sc.group == "" && i == 0 {
			// At subscription scope resourceId gives a subscription-level ID.
			return e.scopeID(typ, names), nil
		}
	}
	id := &idRef{kind: idGroup, sub: sc.sub, group: sc.group, typ: typ, names: names}
	switch i {
	case 1:
		id.group = args[0]
	case 2:
		id.sub, id.group = args[0], args[1]
	case 0:
	default:
		return nil, fmt.Errorf("takes at most a subscription and a group before the type")
	}
	return id, nil
}

// fnScope is the deployment whose subscription and group resourceGroup(),
// subscription() and resourceId() resolve to: an outer-scoped nested
// template resolves them to its parent's, even when it deploys to another
// group ("Deploy to a different resource group", Microsoft Learn).
func (e *evalCtx) fnScope() *deployment { return e.d.paramSource() }

func (e *evalCtx) scopeID(typ string, names []any) *idRef {
	sc := e.fnScope()
	switch sc.scope {
	case "tenant":
		return &idRef{kind: idTenant, typ: typ, names: names}
	case "managementGroup":
		return &idRef{kind: idMgmtGroup, mg: e.mgName(), typ: typ, names: names}
	}
	return &idRef{kind: idSubscription, sub: sc.sub, typ: typ, names: names}
}

// mgPlaceholder stands for the target management group, which manifests
// cannot name by a placeholder: rendering it is a problem.
const mgPlaceholder = "${managementGroup}"

func (e *evalCtx) mgName() any {
	if e.d.r.scope.ManagementGroup != "" {
		return e.d.r.scope.ManagementGroup
	}
	return &placeholder{text: mgPlaceholder}
}

func (e *evalCtx) fSubscriptionResourceID(_ *expr.Ctx, args []any) (any, error) {
	sc := e.fnScope()
	i, err := splitTypeArgs(args)
	if err != nil {
		return nil, err
	}
	typ, names := strings.Trim(args[i].(string), "/"), args[i+1:]
	if err := checkNames(typ, names); err != nil {
		return nil, err
	}
	id := &idRef{kind: idSubscription, sub: sc.sub, typ: typ, names: names}
	if i == 1 {
		id.sub = args[0]
	}
	return id, nil
}

func (e *evalCtx) fTenantResourceID(_ *expr.Ctx, args []any) (any, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("needs a resource type")
	}
	typ, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("the type must be a string")
	}
	typ = strings.Trim(typ, "/")
	if err := checkNames(typ, args[1:]); err != nil {
		return nil, err
	}
	return &idRef{kind: idTenant, typ: typ, names: args[1:]}, nil
}

func (e *evalCtx) fManagementGroupResourceID(_ *expr.Ctx, args []any) (any, error) {
	i, err := splitTypeArgs(args)
	if err != nil {
		return nil, err
	}
	typ, names := strings.Trim(args[i].(string), "/"), args[i+1:]
	if err := checkNames(typ, names); err != nil {
		return nil, err
	}
	id := &idRef{kind: idMgmtGroup, mg: e.mgName(), typ: typ, names: names}
	if i == 1 {
		id.mg = args[0]
	}
	return id, nil
}

func (e *evalCtx) fExtensionResourceID(_ *expr.Ctx, args []any) (any, error) {
	if len(args) < 3 {
		return nil, fmt.Errorf("takes a scope ID, a type and names")
	}
	typ, ok := args[1].(string)
	if !ok {
		return nil, fmt.Errorf("the type must be a string")
	}
	typ = strings.Trim(typ, "/")
	if err := checkNames(typ, args[2:]); err != nil {
		return nil, err
	}
	return &idRef{kind: idExtension, base: args[0], typ: typ, names: args[2:]}, nil
}

// fReference: a nested deployment's outputs are known (it is inlined);
// anything else is read from the resource at deploy time.
func (e *evalCtx) fReference(_ *expr.Ctx, args []any) (any, error) {
	if len(args) < 1 || len(args) > 3 {
		return nil, fmt.Errorf("takes a resource, an api-version and 'Full'")
	}
	full := false
	if len(args) == 3 {
		s, _ := args[2].(string)
		full = strings.EqualFold(s, "full")
	}
	if inner := e.d.findDeployment(args[0]); inner != nil {
		outs, err := inner.outputsOf()
		if err != nil {
			return nil, err
		}
		if full {
			return map[string]any{"properties": map[string]any{"outputs": outs}}, nil
		}
		return map[string]any{"outputs": outs}, nil
	}
	q := Read{Full: full}
	if len(args) > 1 {
		q.APIVersion, _ = args[1].(string)
	}
	if got, asked, err := e.read(args[0], q); asked {
		return got, err
	}
	v := &refValue{target: args[0], apiVersion: q.APIVersion, full: full, dep: e.d}
	if !full {
		v.path = []any{"properties"}
	}
	return v, nil
}

// findDeployment finds the nested deployment a reference() names.
func (d *deployment) findDeployment(target any) *deployment {
	want := ""
	switch t := target.(type) {
	case string:
		want = t
	case *idRef:
		if !strings.EqualFold(t.typ, "Microsoft.Resources/deployments") || len(t.names) != 1 {
			return nil
		}
		s, ok := expr.Known(t.names[0])
		if !ok {
			return nil
		}
		want, _ = s.(string)
	default:
		return nil
	}
	for _, dc := range d.decls {
		if dc.symbolic != "" && strings.EqualFold(dc.symbolic, want) || isDeploymentDecl(dc) {
			dc.expand()
			for _, dd := range dc.docs {
				if dd.inner == nil {
					continue
				}
				if strings.EqualFold(dd.inner.name, want) || strings.EqualFold(dc.symbolic, want) {
					return dd.inner
				}
			}
		}
	}
	return nil
}

func isDeploymentDecl(dc *decl) bool {
	t, _ := memberOf(dc.raw, "type").(string)
	return strings.EqualFold(t, "Microsoft.Resources/deployments")
}

// fList is listKeys() and the other list* actions.
func (e *evalCtx) fList(name string) expr.Func {
	return func(c *expr.Ctx, args []any) (any, error) {
		if len(args) < 1 || len(args) > 3 {
			return nil, fmt.Errorf("takes a resource, an api-version and an optional body")
		}
		q := Read{Action: c.Func}
		if len(args) > 1 {
			q.APIVersion, _ = args[1].(string)
		}
		if len(args) == 3 {
			q.Body = args[2]
		}
		if got, asked, err := e.read(args[0], q); asked {
			return got, err
		}
		a := &actionValue{target: args[0], name: c.Func, dep: e.d}
		if len(args) == 3 {
			// The body goes with the call when every part of it is known;
			// one with deploy-time parts would be a different call each plan.
			body, known := expr.DeepKnown(args[2])
			m, isMap := body.(map[string]any)
			if !known || !isMap {
				return nil, &expr.DeferredError{Func: c.Func, What: "an action called with a request body known only at deploy time"}
			}
			a.body = m
		}
		if len(args) > 1 {
			a.apiVersion, _ = args[1].(string)
		}
		return a, nil
	}
}

func (e *evalCtx) fResourceGroup(_ *expr.Ctx, args []any) (any, error) {
	sc := e.fnScope()
	if len(args) != 0 {
		return nil, fmt.Errorf("takes no arguments")
	}
	if sc.group == "" {
		return nil, fmt.Errorf("is not available in a %s deployment", sc.scope)
	}
	loc, err := e.d.r.groupLocation(sc.group)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"id":         &idRef{kind: idGroup, sub: sc.sub, group: sc.group},
		"name":       sc.group,
		"type":       "Microsoft.Resources/resourceGroups",
		"location":   loc,
		"properties": map[string]any{"provisioningState": "Succeeded"},
	}, nil
}

func (e *evalCtx) fSubscription(_ *expr.Ctx, args []any) (any, error) {
	sc := e.fnScope()
	if len(args) != 0 {
		return nil, fmt.Errorf("takes no arguments")
	}
	return map[string]any{
		"id":             concatParts([]any{"/subscriptions/", sc.sub}),
		"subscriptionId": sc.sub,
		"tenantId":       e.d.r.tenant,
	}, nil
}

func (e *evalCtx) fTenant(_ *expr.Ctx, args []any) (any, error) {
	if len(args) != 0 {
		return nil, fmt.Errorf("takes no arguments")
	}
	return map[string]any{
		"id":          concatParts([]any{"/tenants/", e.d.r.tenant}),
		"tenantId":    e.d.r.tenant,
		"countryCode": "US",
	}, nil
}

func (e *evalCtx) fManagementGroup(_ *expr.Ctx, args []any) (any, error) {
	mg := e.mgName()
	return map[string]any{
		"id":   concatParts([]any{"/providers/Microsoft.Management/managementGroups/", mg}),
		"name": mg,
		"type": "Microsoft.Management/managementGroups",
	}, nil
}

// fDeployment is deployment(): its name and location, and its
// templateLink when the template is a mapped local copy (--linked-templates).
func (e *evalCtx) fDeployment(_ *expr.Ctx, args []any) (any, error) {
	var link any = templateLink{}
	if e.d.uri != "" {
		link = map[string]any{"uri": e.d.uri, "contentVersion": memberOf(e.d.tmpl, "contentVersion")}
	}
	out := map[string]any{
		"name":       e.d.name,
		"properties": map[string]any{"template": map[string]any{"contentVersion": memberOf(e.d.tmpl, "contentVersion")}, "mode": "Incremental", "templateLink": link},
	}
	if e.d.scope != "resourceGroup" && e.d.r.scope.Location != "" {
		out["location"] = e.d.r.scope.Location
	}
	return out, nil
}

// fNonDeterministic: newGuid() and utcNow() differ on every deployment.
// As a parameter default the value of this conversion is written out
// (with a warning); anywhere else the manifest could never equal the
// deployment.
func (e *evalCtx) fNonDeterministic(name string) expr.Func {
	return func(c *expr.Ctx, args []any) (any, error) {
		if !e.inDefault {
			return nil, &expr.DeferredError{Func: c.Func, What: "a new value on every deployment; ARM allows it only in a parameter's default"}
		}
		e.d.r.problem(e.path, manifest.SeverityWarning, "%s() is evaluated once, now: the manifests hold this conversion's value; pass --param to choose one", c.Func)
		if name == "newguid" {
			var b [16]byte
			_, _ = rand.Read(b[:])
			b[6] = b[6]&0x0f | 0x40
			b[8] = b[8]&0x3f | 0x80
			return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
		}
		return utcNow(time.Now().UTC(), args)
	}
}

// utcNow formats the time with a .NET format string; the default is
// "yyyyMMddTHHmmssZ".
func utcNow(t time.Time, args []any) (any, error) {
	f := "yyyyMMddTHHmmssZ"
	if len(args) == 1 {
		f, _ = args[0].(string)
	}
	return expr.FormatDateTime(t, f), nil
}

// userFunc calls a template's own function: its body sees only its
// parameters.
func (e *evalCtx) userFunc(def map[string]any) expr.Func {
	return func(c *expr.Ctx, args []any) (any, error) {
		params, _ := memberOf(def, "parameters").([]any)
		if len(args) != len(params) {
			return nil, fmt.Errorf("takes %d argument(s), got %d", len(params), len(args))
		}
		bound := map[string]any{}
		for i, p := range params {
			pm, _ := p.(map[string]any)
			n, _ := memberOf(pm, "name").(string)
			bound[n] = args[i]
		}
		out, _ := memberOf(def, "output").(map[string]any)
		inner := &evalCtx{d: e.d, path: e.path, fnParams: bound}
		return inner.value(memberOf(out, "value"), e.path)
	}
}

// groupLocation is resourceGroup().location: the location of a group the
// same template creates, else --location.
func (r *run) groupLocation(group any) (any, error) {
	for _, d := range r.docs {
		if !strings.EqualFold(d.typ, "Microsoft.Resources/resourceGroups") {
			continue
		}
		if n, ok := expr.Known(d.name); ok && n == group {
			return d.ctx.value(memberOf(d.decl.raw, "location"), joinPath(d.path, "location"))
		}
	}
	if g, ok := group.(string); !ok || !strings.EqualFold(g, r.scope.ResourceGroup) {
		return nil, &expr.DeferredError{Func: "resourceGroup().location", What: fmt.Sprintf("the location of group %v, which this template does not create", describeTarget(group))}
	}
	if r.scope.Location == "" {
		return nil, fmt.Errorf("needs the group's location: give --location")
	}
	return r.scope.Location, nil
}

// templateLink is deployment().properties.templateLink of a template
// that is not a mapped local copy: it was not deployed from a URI, so
// nothing relative to one (the _artifactsLocation of linked scripts and
// templates) can be known.
type templateLink struct{}

func (templateLink) Access(any) (any, error) {
	return nil, &expr.DeferredError{Func: "deployment().properties.templateLink", What: "the URI a template is deployed from; give the parameter that uses it a value (--param), or map the template's directory with --linked-templates"}
}
func (templateLink) Describe() string { return "deployment().properties.templateLink" }
