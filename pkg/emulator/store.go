package emulator

import (
	"sort"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// resource is one live ARM object.
type resource struct {
	ID         string // casing of the first PUT, echoed back in id fields
	Type       string
	APIVersion string
	Body       map[string]any // exactly what GET returns
	Etag       string         // "" when the type has none
	Verbatim   bool           // seeded through the admin API: quirks never touch it
	LastOp     string         // the latest long-running operation; only it may settle the state
	// Derived marks children the server made as part of a parent's write
	// (inline subnets, a storage account's default services, an NSG's
	// default rules). The admin dump leaves them out unless asked, so it
	// lists what clients wrote.
	Derived bool
	// Secrets keeps write-only values an action hands back (a container
	// app's configuration.secrets for listSecrets); GET never shows them.
	Secrets []any
	// KeyGen counts regenerations per key name (lower-cased): a key's
	// value is derived from the ID, its name and this count, so
	// regenerateKey changes exactly the key it names.
	KeyGen  map[string]int
	Created time.Time
	Changed time.Time // the last client write
}

// store holds live resources keyed by lower-cased ID. The Server's mutex
// guards it.
type store struct {
	res map[string]*resource
	// indexed holds, for the few types every write or delete must find
	// (management locks, diagnostic settings, what holds subnet addresses), the keys of their
	// resources, so those checks do not scan the whole store.
	indexed map[string]map[string]bool
	// changed collects the keys put or removed since the list cache last
	// looked (nil: no cache, nothing collected).
	changed map[string]bool
}

// indexedTypes are the lower-cased types store.indexed tracks.
var indexedTypes = []string{"microsoft.authorization/locks", "microsoft.insights/diagnosticsettings", "microsoft.network/networkinterfaces",
	"microsoft.network/loadbalancers", "microsoft.containerinstance/containergroups"}

func newStore() *store {
	s := &store{res: map[string]*resource{}, indexed: map[string]map[string]bool{}}
	for _, t := range indexedTypes {
		s.indexed[t] = map[string]bool{}
	}
	return s
}

func (s *store) get(id string) *resource { return s.res[armid.Key(id)] }

func (s *store) put(r *resource) {
	k := armid.Key(r.ID)
	s.res[k] = r
	if s.changed != nil {
		s.changed[k] = true
	}
	if idx := s.indexed[strings.ToLower(r.Type)]; idx != nil {
		idx[k] = true
	}
}

// ofType returns the resources of an indexed type.
func (s *store) ofType(lowerType string) []*resource {
	var out []*resource
	for k := range s.indexed[lowerType] {
		if r := s.res[k]; r != nil {
			out = append(out, r)
		}
	}
	return out
}

// removeTree deletes a resource and everything under it: child resources
// and extension resources scoped to it. It returns how many were removed.
func (s *store) removeTree(id string) int {
	k := armid.Key(id)
	n := 0
	for key := range s.res {
		if key == k || strings.HasPrefix(key, k+"/") {
			for _, idx := range s.indexed {
				delete(idx, key)
			}
			delete(s.res, key)
			if s.changed != nil {
				s.changed[key] = true
			}
			n++
		}
	}
	return n
}

// children lists resources of type typ whose parent is parentID, sorted by ID
// so that list output is stable.
func (s *store) children(parentID, typ string) []*resource {
	var out []*resource
	for _, r := range s.res {
		p, ok := armid.ParsePath(r.ID)
		if !ok || !strings.EqualFold(p.Type(), typ) || !strings.EqualFold(p.ParentID(), parentID) {
			continue
		}
		out = append(out, r)
	}
	sortResources(out)
	return out
}

// inSubscription lists every resource of type typ that sits directly in
// the subscription or in one of its resource groups, sorted by ID: what
// ARM's subscription-wide list GET /subscriptions/{s}/providers/{ns}/{type}
// returns for a type that lives in resource groups (storage accounts,
// virtual networks, NSGs, identities...). Children and extension resources
// scoped to another resource are not included, as ARM's are not.
func (s *store) inSubscription(sub, typ string) []*resource {
	var out []*resource
	subID := "/subscriptions/" + sub
	for _, r := range s.res {
		p, ok := armid.ParsePath(r.ID)
		if !ok || p.Kind != armid.PathResource || len(p.Names) != 1 || !strings.EqualFold(p.Subscription, sub) || !strings.EqualFold(p.Type(), typ) {
			continue
		}
		if p.ResourceGroup == "" {
			if !strings.EqualFold(p.Scope, subID) {
				continue
			}
		} else if !strings.EqualFold(p.Scope, subID+"/resourceGroups/"+p.ResourceGroup) {
			continue
		}
		out = append(out, r)
	}
	sortResources(out)
	return out
}

// topLevel lists the resources directly in a resource group (group != "")
// or a whole subscription, as ARM's generic /resources list does: top-level
// resources only, no child or extension resources.
func (s *store) topLevel(sub, group string) []*resource {
	var out []*resource
	for _, r := range s.res {
		p, ok := armid.ParsePath(r.ID)
		if !ok || p.Kind != armid.PathResource || len(p.Names) != 1 || !strings.EqualFold(p.Subscription, sub) || untracked(p) {
			continue
		}
		if group != "" && !strings.EqualFold(p.ResourceGroup, group) {
			continue
		}
		// Top-level means the scope is the group or subscription itself.
		want := "/subscriptions/" + p.Subscription
		if p.ResourceGroup != "" {
			want += "/resourceGroups/" + p.ResourceGroup
		}
		if !strings.EqualFold(p.Scope, want) {
			continue
		}
		out = append(out, r)
	}
	sortResources(out)
	return out
}

func (s *store) subscriptions() []string {
	seen := map[string]string{strings.ToLower(DefaultSubscription): DefaultSubscription}
	for _, r := range s.res {
		p, ok := armid.ParsePath(r.ID)
		if ok && p.Subscription != "" {
			seen[strings.ToLower(p.Subscription)] = p.Subscription
		}
	}
	var out []string
	for _, v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func sortResources(rs []*resource) {
	// Keys computed once: lower-casing inside the comparison dominated a
	// 1,000-item list.
	type keyed struct {
		key string
		r   *resource
	}
	ks := make([]keyed, len(rs))
	for i, r := range rs {
		ks[i] = keyed{armid.Key(r.ID), r}
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].key < ks[j].key })
	for i := range ks {
		rs[i] = ks[i].r
	}
}

// untracked reports whether p is a resource ARM's generic lists never
// show: a template deployment is a record of an operation, not a tracked
// resource (az resource list does not list them).
func untracked(p armid.Path) bool {
	return len(p.Types) == 1 && strings.EqualFold(p.Provider, "Microsoft.Resources") && strings.EqualFold(p.Types[0], "deployments")
}
