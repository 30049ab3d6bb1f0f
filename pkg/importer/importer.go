package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// SchemaSource is what the importer needs from the schema registry;
// *schema.Registry implements it.
type SchemaSource interface {
	Lookup(typ, apiVersion string) (*schema.Type, schema.Resolution)
	Versions(typ string) []string
}

// Importer reads resources from ARM and turns them into manifests.
type Importer struct {
	ARM     *arm.Client
	Schemas SchemaSource                 // nil: heuristics only, every api-version must be pinned or listed by ARM
	Plugins func(typ string) diff.Plugin // nil: no per-type knowledge
	// Validator is the schema check pkg/manifest applies when loading; nil
	// means manifest.DefaultSchemaValidator, the one diff and apply use.
	Validator manifest.SchemaValidator
	Options   Options
	// Warn receives one line per warning; nil discards them.
	Warn io.Writer
	// State, when set, is the state the import records into: Read keeps
	// secret every path an existing record of a resource holds hashed, so
	// the manifest reads it from valueFrom instead of printing it.
	State state.Store

	versions    sync.Map // lower(type) -> *typeVersions
	warnedOnce  sync.Map
	betterCache sync.Map // type, version, undeclared paths -> betterVersion's answer
}

// Resource is one imported resource and its manifest.
type Resource struct {
	ID         string
	Type       string // as written in spec.type, without @api-version
	APIVersion string
	Name       string
	// Live is the GET body (for children: the collection item, which is
	// the same model); Etag its etag.
	Live map[string]any
	Etag string
	// Body is the emitted spec.body (references as ${ref:...}); Resolved
	// is that body as pkg/manifest loads it, which is what state records.
	Body     map[string]any
	Resolved map[string]any
	// Placement is the spec field that places the resource and its value.
	Placement Placement
	// Secrets are the secret paths left out of Body.
	Secrets []string
	// Placeholders are the secret values GET returned; Body reads each
	// from an environment variable instead (valueFrom.env).
	Placeholders []Placeholder
	// SecretPaths are the body paths the loaded manifest fills from
	// valueFrom: state hashes them.
	SecretPaths []string
	// Dropped are inline child collections left to the child resources.
	Dropped []string
	// Invalid are live values left out because the schema rejects them
	// ("path: why"); Unknown the paths left out because the schema does
	// not declare them.
	Invalid []string
	Unknown []string
	// inline maps an inline collection path to the lower-cased names of
	// its items imported as children.
	inline map[string]map[string]bool
	// YAML is the rendered manifest document.
	YAML []byte
	// File is a readable file name for --output-dir; Origin is where the
	// manifest was written (file#doc), recorded in state.
	File   string
	Origin string

	schema  *schema.Type
	plugin  diff.Plugin
	parsed  armid.ID
	refName string // TYPE/NAME when unique in the run, else ""
	// prior are the secret patterns of the record State already holds
	// for this resource (hashedPatterns): they stay secret.
	prior []string
	order int
}

// Placement is spec.resourceGroup, spec.parent, spec.scope or spec.id.
type Placement struct {
	Field string // "resourceGroup", "parent", "scope", "id" or "" (resource groups)
	Value string
}

// Result is what one import produced.
type Result struct {
	Resources []*Resource
	// Failed are the resources that could not be read; the others were
	// imported anyway.
	Failed []error
	// Subscription is the one ${subscriptionId} and spec.resourceGroup
	// stand for ("" when nothing needed one).
	Subscription string

	envValues map[string]string // placeholder variable -> live secret
}

// SecretVariables lists, per environment variable the manifests read
// secrets from, the resource and path it stands for ("ID path"), sorted by
// variable.
func (res *Result) SecretVariables() []SecretVariable {
	var out []SecretVariable
	for _, r := range res.Resources {
		for _, p := range r.Placeholders {
			out = append(out, SecretVariable{Name: p.env["env"].(string), ID: r.ID, Path: p.Path})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SecretVariable is an environment variable an imported manifest reads a
// secret from.
type SecretVariable struct {
	Name, ID, Path string
}

// Read fetches every requested resource (and with Children their child
// collections), minimises the bodies, rewrites references, renders the
// manifests and checks that they load. It writes nothing anywhere.
func (im *Importer) Read(ctx context.Context) (*Result, error) {
	if im.ARM == nil {
		return nil, errors.New("importer: no ARM client")
	}
	targets, err := im.targets(ctx)
	if err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		if im.Options.ResourceGroup != "" {
			return nil, fmt.Errorf("resource group %s holds no resources to import", im.Options.ResourceGroup)
		}
		return nil, errors.New("nothing to import: give one or more ARM IDs, or --resource-group RG")
	}
	res := &Result{}
	fetched := im.fetchAll(ctx, targets)
	// ARM's group listing includes some child resources (SQL databases, VM
	// extensions) that --children finds again under their parent.
	seen := map[string]bool{}
	for _, f := range fetched {
		if f.err != nil {
			res.Failed = append(res.Failed, f.err)
			continue
		}
		for _, r := range f.resources {
			if k := armid.Key(r.ID); !seen[k] {
				seen[k] = true
				res.Resources = append(res.Resources, r)
			}
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(res.Resources) == 0 {
		return res, errors.Join(res.Failed...)
	}
	leaveImportedChildren(res.Resources)
	if err := im.priorSecrets(ctx, res.Resources); err != nil {
		return nil, err
	}
	res.Subscription = im.subscription(res.Resources)
	// A manifest the loader refuses (a name it cannot hold, a value the
	// schema forbids) costs that resource, not the run: it is reported as
	// failed and the rest are rebuilt without it, so no reference points
	// at a manifest that is not there.
	for attempt := 0; ; attempt++ {
		im.build(res)
		if err := res.render(); err != nil {
			return res, err
		}
		bad, err := resolve(ctx, res, im.Validator)
		if err == nil {
			im.noteSecrets(res)
			return res, nil
		}
		if len(bad) == 0 || len(bad) == len(res.Resources) || attempt >= 3 {
			return res, err
		}
		var keep []*Resource
		for i, r := range res.Resources {
			if msg, ok := bad[i]; ok {
				res.Failed = append(res.Failed, fmt.Errorf("%s cannot be written as a manifest, so it was not imported: %s", r.ID, msg))
				continue
			}
			keep = append(keep, r)
		}
		res.Resources = keep
	}
}

// target is one resource to read.
type target struct {
	id  string
	typ string
}

func (im *Importer) targets(ctx context.Context) ([]target, error) {
	var out []target
	seen := map[string]bool{}
	add := func(id string) error {
		id = strings.TrimSuffix(strings.TrimSpace(id), "/")
		pid, err := armid.Parse(id)
		if err != nil {
			return fmt.Errorf("%w; give the full ID as the portal's JSON view or `az resource show --query id` prints it", err)
		}
		if pid.IsSubscription() {
			return fmt.Errorf("%s is a subscription: import its resource groups or resources instead", armid.Printable(id))
		}
		// Parse decoded any %XX escapes: ARM and the manifest use the
		// decoded form.
		id = pid.String()
		k := strings.ToLower(id)
		if !seen[k] {
			seen[k] = true
			out = append(out, target{id: id, typ: pid.Type()})
		}
		return nil
	}
	for _, id := range im.Options.IDs {
		if err := add(id); err != nil {
			return nil, err
		}
	}
	if rg := im.Options.ResourceGroup; rg != "" {
		sub := im.Options.Subscription
		if sub == "" {
			return nil, fmt.Errorf("--resource-group %s needs a subscription: pass --subscription ID or set AZURE_SUBSCRIPTION_ID", rg)
		}
		items, err := im.ARM.ListResourceGroup(ctx, sub, rg)
		if err != nil {
			return nil, fmt.Errorf("listing resource group %s: %w", rg, err)
		}
		// The group itself comes first: its manifest is what the others
		// are placed in, and pruning the set must know it is managed.
		if err := add("/subscriptions/" + sub + "/resourceGroups/" + rg); err != nil {
			return nil, fmt.Errorf("--resource-group %q: %w", rg, err)
		}
		var ids []string
		for _, it := range items {
			if id, _ := it["id"].(string); id != "" {
				ids = append(ids, id)
			}
		}
		sort.Slice(ids, func(i, j int) bool { return strings.ToLower(ids[i]) < strings.ToLower(ids[j]) })
		for _, id := range ids {
			if err := add(id); err != nil {
				im.warnf("skipping %s listed in %s: %v", id, rg, err)
			}
		}
	}
	return out, nil
}

// fetched is one target's outcome: the resource and its children, or why not.
type fetched struct {
	resources []*Resource
	err       error
}

func (im *Importer) fetchAll(ctx context.Context, targets []target) []fetched {
	out := make([]fetched, len(targets))
	n := im.Options.Concurrency
	if n <= 0 {
		n = arm.DefaultConcurrency
	}
	// Each target keeps its own outcome, so the group never cancels.
	var g errgroup.Group
	g.SetLimit(n)
	for i, t := range targets {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				out[i].err = err
				return nil
			}
			out[i].resources, out[i].err = im.fetchOne(ctx, t)
			return nil
		})
	}
	_ = g.Wait()
	order := 0
	for i := range out {
		for _, r := range out[i].resources {
			r.order = order
			order++
		}
	}
	return out
}

// fetchOne GETs one resource and, with Children, lists its children.
func (im *Importer) fetchOne(ctx context.Context, t target) ([]*Resource, error) {
	var resp *arm.Response
	ver, err := im.withVersion(ctx, t.id, t.typ, func(v string) error {
		var gerr error
		resp, gerr = im.ARM.Get(ctx, t.id, v)
		return gerr
	})
	if err != nil {
		if arm.IsNotFound(err) {
			return nil, fmt.Errorf("%s was not found: check the ID (and --subscription); nothing was imported for it", t.id)
		}
		return nil, fmt.Errorf("reading %s: %w", t.id, err)
	}
	// A version that does not declare a property the resource has would
	// leave it out: read it with one that does, when one exists.
	name := ""
	if pid, err := armid.Parse(t.id); err == nil {
		name = pid.Name()
	}
	if im.Options.pinned(t.typ) == "" && !strings.EqualFold(t.typ, armid.ResourceGroupType) {
		// A version whose name rule refuses this resource's name would
		// write a manifest apply refuses: read it with one that takes it.
		if v := im.nameVersion(t.typ, ver, name); v != "" {
			if again, err := im.ARM.Get(ctx, t.id, v); err == nil {
				im.warnOnce(t.typ+"\x00name\x00"+v, "%s: reading with api-version %s, whose schema allows the name %s (%s allows only %s)", t.typ, v, name, ver, strings.Join(im.fixedNames(t.typ, ver), ", "))
				ver, resp = v, again
			}
		}
		if better := im.betterVersion(t.typ, ver, name, resp.Body); better != "" {
			if again, err := im.ARM.Get(ctx, t.id, better); err == nil {
				im.warnOnce(t.typ+"\x00"+better, "%s: reading with api-version %s, whose schema declares every property the resources have (%s does not)", t.typ, better, ver)
				ver, resp = better, again
			}
		}
	}
	r := newResource(t.id, t.typ, ver, resp.Body, resp.ETag)
	out := []*Resource{r}
	if im.Options.Children {
		out = append(out, im.children(ctx, r)...)
	}
	return out, nil
}

func newResource(id, typ, ver string, body map[string]any, etag string) *Resource {
	if body == nil {
		body = map[string]any{}
	}
	pid, _ := armid.Parse(id)
	if etag == "" {
		etag, _ = body["etag"].(string)
	}
	return &Resource{ID: id, Type: typ, APIVersion: ver, Name: pid.Name(), Live: body, Etag: etag, parsed: pid}
}

// leaveImportedChildren takes a child imported as its own resource (a
// subnet's ID given beside its vnet's) out of its parent's inline
// collection, as --children does: declared in both places, the two
// manifests would fight over it and the load refuses them.
func leaveImportedChildren(rs []*Resource) {
	byKey := make(map[string]*Resource, len(rs))
	for _, r := range rs {
		byKey[armid.Key(r.ID)] = r
	}
	for _, r := range rs {
		id, err := armid.Parse(r.ID)
		if err != nil {
			continue
		}
		pid, ok := id.Parent()
		if !ok {
			continue
		}
		parent := byKey[pid.Key()]
		if parent == nil {
			continue
		}
		seg := id.Types[len(id.Types)-1]
		for _, cc := range childCollectionsOf(parent.Type) {
			if cc.Inline == "" || !strings.EqualFold(cc.Segment, seg) {
				continue
			}
			if parent.inline == nil {
				parent.inline = map[string]map[string]bool{}
			}
			if parent.inline[cc.Inline] == nil {
				parent.inline[cc.Inline] = map[string]bool{}
			}
			parent.inline[cc.Inline][strings.ToLower(id.Name())] = true
		}
	}
}

// children lists r's child collections, recursively. A collection that
// cannot be listed stays inline in its parent, with a warning.
func (im *Importer) children(ctx context.Context, r *Resource) []*Resource {
	var out []*Resource
	for _, cc := range childCollectionsOf(r.Type) {
		typ := r.Type + "/" + cc.Segment
		coll := r.ID + "/" + cc.Segment
		var items []map[string]any
		ver, err := im.withVersion(ctx, coll, typ, func(v string) error {
			var lerr error
			items, lerr = im.ARM.List(ctx, coll, v)
			return lerr
		})
		if err != nil {
			im.warnf("%s: could not list %s (%v); they stay inline in %s", r.ID, cc.Segment, firstLine(err), r.Name)
			continue
		}
		for _, it := range items {
			name, _ := it["name"].(string)
			id, _ := it["id"].(string)
			if name == "" && id != "" {
				name = id[strings.LastIndex(id, "/")+1:]
			}
			if name == "" || cc.skips(name) {
				continue
			}
			cid := coll + "/" + name
			if id != "" && strings.EqualFold(strings.TrimSuffix(id, "/"), cid) {
				cid = strings.TrimSuffix(id, "/")
			}
			if cc.Inline != "" {
				if r.inline == nil {
					r.inline = map[string]map[string]bool{}
				}
				if r.inline[cc.Inline] == nil {
					r.inline[cc.Inline] = map[string]bool{}
				}
				r.inline[cc.Inline][strings.ToLower(name)] = true
			}
			c := newResource(cid, typ, ver, it, "")
			out = append(out, c)
			out = append(out, im.children(ctx, c)...)
		}
	}
	return out
}

// typeVersions is the api-version state of one resource type in this run.
type typeVersions struct {
	mu         sync.Mutex // held while the first resource of the type probes versions
	settled    string
	candidates []string
	err        error
	loaded     bool
}

// withVersion runs call with the type's api-version: the pinned one, else
// the newest stable version the schema knows, trying older ones while ARM
// rejects the version. The first success settles the version for every
// other resource of the type.
func (im *Importer) withVersion(ctx context.Context, id, typ string, call func(v string) error) (string, error) {
	v, _ := im.versions.LoadOrStore(strings.ToLower(typ), &typeVersions{})
	tv := v.(*typeVersions)
	tv.mu.Lock()
	if tv.settled != "" {
		ver := tv.settled
		tv.mu.Unlock()
		return ver, call(ver)
	}
	defer tv.mu.Unlock()
	if !tv.loaded {
		tv.candidates, tv.err = im.candidates(ctx, id, typ)
		tv.loaded = true
	}
	if tv.err != nil {
		return "", tv.err
	}
	var rejected []string
	var last error
	for i, ver := range tv.candidates {
		if i >= im.maxAttempts() {
			break
		}
		err := call(ver)
		if err == nil {
			tv.settled = ver
			if len(rejected) > 0 {
				im.warnf("%s: ARM rejected api-version %s; using %s", typ, strings.Join(rejected, ", "), ver)
			}
			return ver, nil
		}
		if !rejectsVersion(err) || im.Options.pinned(typ) != "" {
			return ver, err
		}
		rejected = append(rejected, ver)
		last = err
	}
	return "", fmt.Errorf("ARM rejected api-version %s for %s (%v); pin one it accepts with --api-version %s=VERSION",
		strings.Join(rejected, ", "), typ, firstLine(last), typ)
}

func (im *Importer) maxAttempts() int {
	if im.Options.MaxVersionAttempts > 0 {
		return im.Options.MaxVersionAttempts
	}
	return DefaultOptions().MaxVersionAttempts
}

// candidates lists the api-versions to try for a type, best first.
func (im *Importer) candidates(ctx context.Context, id, typ string) ([]string, error) {
	if v := im.Options.pinned(typ); v != "" {
		return []string{v}, nil
	}
	if strings.EqualFold(typ, armid.ResourceGroupType) {
		return []string{ResourceGroupAPIVersion}, nil
	}
	var known []string
	if im.Schemas != nil {
		known = im.Schemas.Versions(typ)
	}
	if len(known) == 0 {
		listed, err := im.providerVersions(ctx, id, typ)
		if err != nil || len(listed) == 0 {
			why := "ARM did not list its api-versions"
			if err != nil {
				why += " (" + firstLine(err) + ")"
			}
			return nil, fmt.Errorf("%s is not in the schema index and %s: pin one with --api-version %s=VERSION", typ, why, typ)
		}
		known = listed
	}
	return orderVersions(known), nil
}

// orderVersions puts stable versions first, newest first, then previews.
func orderVersions(vs []string) []string {
	var stable, preview []string
	for _, v := range vs {
		if strings.Contains(strings.ToLower(v), "preview") {
			preview = append(preview, v)
		} else {
			stable = append(stable, v)
		}
	}
	desc := func(s []string) { sort.Slice(s, func(i, j int) bool { return s[i] > s[j] }) }
	desc(stable)
	desc(preview)
	return append(stable, preview...)
}

// providerVersions asks ARM's provider metadata which api-versions a type
// supports, for types the schema index does not know.
func (im *Importer) providerVersions(ctx context.Context, id, typ string) ([]string, error) {
	ns, rest, ok := strings.Cut(typ, "/")
	if !ok {
		return nil, fmt.Errorf("%q is not a resource type", typ)
	}
	sub := im.Options.Subscription
	if pid, err := armid.Parse(id); err == nil && pid.Subscription != "" {
		sub = pid.Subscription
	}
	path := "/providers/" + ns
	if sub != "" {
		path = "/subscriptions/" + sub + path
	}
	resp, err := im.ARM.Get(ctx, path, ProviderAPIVersion)
	if err != nil {
		return nil, err
	}
	rts, _ := resp.Body["resourceTypes"].([]any)
	for _, x := range rts {
		m, _ := x.(map[string]any)
		if rt, _ := m["resourceType"].(string); strings.EqualFold(rt, rest) {
			var out []string
			vs, _ := m["apiVersions"].([]any)
			for _, v := range vs {
				if s, ok := v.(string); ok {
					out = append(out, s)
				}
			}
			return out, nil
		}
	}
	return nil, nil
}

// rejectsVersion reports whether ARM refused the api-version itself
// (rather than the request): worth trying an older one.
func rejectsVersion(err error) bool {
	var ae *arm.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest {
		return false
	}
	switch strings.ToLower(ae.Code) {
	case "invalidapiversionparameter", "noregisteredproviderfound", "invalidresourcetype", "unsupportedapiversion", "invalidapiversion":
		return true
	}
	return strings.Contains(strings.ToLower(ae.Message), "api-version")
}

// subscription picks the subscription the manifests are written for.
func (im *Importer) subscription(rs []*Resource) string {
	if im.Options.Subscription != "" {
		return im.Options.Subscription
	}
	sub := ""
	for _, r := range rs {
		s := r.parsed.Subscription
		if s == "" {
			continue
		}
		if sub != "" && !strings.EqualFold(sub, s) {
			im.warnf("the resources span subscriptions %s and %s: IDs outside one subscription are written in full; pass --subscription to choose which one the manifests are for", sub, s)
			return ""
		}
		sub = s
	}
	return sub
}

// noteSecrets tells the user which variables to set before the next diff.
func (im *Importer) noteSecrets(res *Result) {
	for _, v := range res.SecretVariables() {
		im.notef("%s: %s is secret, so the manifest reads it from the environment variable %s: set %s (or change it to valueFrom.secretKeyRef) before diff or apply",
			v.ID, v.Path, v.Name, v.Name)
	}
}

func (im *Importer) notef(format string, args ...any) {
	if im.Warn != nil {
		fmt.Fprintf(im.Warn, "note: "+format+"\n", args...)
	}
}

func (im *Importer) warnf(format string, args ...any) {
	if im.Warn != nil {
		fmt.Fprintf(im.Warn, "warning: "+format+"\n", args...)
	}
}

// warnOnce reports a warning the first time its key is seen.
func (im *Importer) warnOnce(key, format string, args ...any) {
	if _, dup := im.warnedOnce.LoadOrStore(strings.ToLower(key), true); !dup {
		im.warnf(format, args...)
	}
}

func firstLine(err error) string {
	if err == nil {
		return ""
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
