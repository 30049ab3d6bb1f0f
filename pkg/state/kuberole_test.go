package state

import (
	"time"

	"context"
	authorizationv1 "k8s.io/api/authorization/v1"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// verbGetter records the RBAC verb of every request (per resource) and
// whether any was refused.
type verbGetter struct {
	genericclioptions.RESTClientGetter
	mu      sync.Mutex
	used    map[string]map[string]bool // resource -> verbs
	refused []string
}

func (g *verbGetter) ToRESTConfig() (*rest.Config, error) {
	cfg, err := g.RESTClientGetter.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			parts := strings.Split(strings.TrimSuffix(r.URL.Path, "/"), "/")
			res, named := "?", false
			for i, p := range parts {
				if p == "namespaces" && i+2 < len(parts) {
					res, named = parts[i+2], i+3 < len(parts)
				}
			}
			verb := map[string]string{"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}[r.Method]
			if r.Method == "GET" {
				verb = "get"
				if !named {
					verb = "list"
				}
				if r.URL.Query().Get("watch") == "true" {
					verb = "watch"
				}
			}
			resp, err := rt.RoundTrip(r)
			g.mu.Lock()
			defer g.mu.Unlock()
			if g.used[res] == nil {
				g.used[res] = map[string]bool{}
			}
			g.used[res][verb] = true
			if err == nil && resp.StatusCode == http.StatusForbidden {
				g.refused = append(g.refused, verb+" "+res)
			}
			return resp, err
		})
	})
	return cfg, nil
}

// docsRole is the Role docs/state.md gives as the minimum permissions.
func docsRole(t *testing.T) *rbacv1.Role {
	b, err := os.ReadFile("../../docs/state.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		if !strings.Contains(m[1], "kind: Role\n") {
			continue
		}
		var role rbacv1.Role
		if err := yaml.UnmarshalStrict([]byte(m[1]), &role); err != nil {
			t.Fatalf("docs/state.md's Role does not parse: %v", err)
		}
		return &role
	}
	t.Fatal("docs/state.md shows no Role")
	return nil
}

// TestKubeDocumentedRoleIsExact runs everything the backend does as a user
// bound only to the Role docs/state.md documents: nothing may be refused,
// and the Role may grant no verb the backend never uses.
func TestKubeDocumentedRoleIsExact(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	role := docsRole(t)
	role.Namespace = ns
	if _, err := e.Clientset.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const user = "state-role-test"
	if _, err := e.Clientset.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "state", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: user}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The authorizer learns of a new binding from its informers, a moment
	// after the create returns: wait until it allows the user in.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		sar, err := e.Clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: "list", Resource: "configmaps"}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sar.Status.Allowed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the RoleBinding did not take effect within 10s")
		}
	}
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig, flags.Impersonate = &e.Kubeconfig, new(string)
	*flags.Impersonate = user
	g := &verbGetter{RESTClientGetter: flags, used: map[string]map[string]bool{}}
	st, err := Open(ctx, KubernetesScheme+ns+"/roled", Options{KubeConfig: g})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other := strings.Replace(testID, "stdemo001", "stdemo002", 1)
	big := testRecord(other)
	big.LastApplied["pad"] = randomHex(journalMax) // incompressible: too large for the journal
	steps := []func() error{
		func() error { _, err := st.Intents(ctx); return err },
		func() error { _, err := st.SecretKey(ctx); return err }, // creates the set's key
		func() error {
			// A run: lock, settle, intents, records, commit, delete, unlock.
			unlock, err := st.Lock(ctx, "", 0)
			if err != nil {
				return err
			}
			for _, f := range []func() error{
				func() error { _, err := st.Intents(ctx); return err },
				func() error { return st.BeginIntent(ctx, Intent{ID: testID, Op: OpPut, Record: testRecord(testID)}) },
				func() error { return st.Put(ctx, testRecord(testID)) },
				func() error { return st.BeginIntent(ctx, Intent{ID: other, Op: OpPut, Record: big}) },
				func() error { return st.CommitIntent(ctx, other) },
				func() error { return st.BeginIntent(ctx, Intent{ID: testID, Op: OpDelete}) },
				func() error { return st.Delete(ctx, testID) },
			} {
				if err := f(); err != nil {
					return err
				}
			}
			return unlock()
		},
		// One-off commands without the run lock.
		func() error { return st.Put(ctx, testRecord(testID)) },
		func() error { _, err := st.Get(ctx, testID); return err },
		func() error { _, err := st.List(ctx); return err },
		func() error { return st.CommitIntent(ctx, testID) },
		func() error { _, err := st.(LockInspector).LockHolder(ctx); return err },
		func() error { _, err := st.(ForceUnlocker).ForceUnlock(ctx); return err },
		func() error { return st.Delete(ctx, testID) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d with the documented Role: %v", i, err)
		}
	}
	if len(g.refused) > 0 {
		t.Fatalf("requests refused under the documented Role: %v", g.refused)
	}
	granted := map[string]map[string]bool{}
	for _, r := range role.Rules {
		for _, res := range r.Resources {
			if granted[res] == nil {
				granted[res] = map[string]bool{}
			}
			for _, v := range r.Verbs {
				granted[res][v] = true
			}
		}
	}
	for res, verbs := range granted {
		for v := range verbs {
			if !g.used[res][v] {
				t.Errorf("docs/state.md's Role grants %s on %s, which the backend never uses", v, res)
			}
		}
	}
	var used []string
	for res, verbs := range g.used {
		for v := range verbs {
			used = append(used, v+" "+res)
			if !granted[res][v] {
				t.Errorf("the backend uses %s on %s, which docs/state.md's Role does not grant", v, res)
			}
		}
	}
	sort.Strings(used)
	t.Logf("verbs used: %s", strings.Join(used, ", "))
}
