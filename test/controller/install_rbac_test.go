package controller

import (
	"bytes"
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
)

// applyInstall prints `controller install` with args and creates every
// object it prints on the cluster, as kubectl apply -f - would.
func applyInstall(t *testing.T, cs kubernetes.Interface, args ...string) {
	t.Helper()
	applyInstallOut(t, cs, args...)
}

// applyInstallOut is applyInstall returning the printed YAML; the
// cluster-scoped objects it creates are deleted when the test ends.
func applyInstallOut(t *testing.T, cs kubernetes.Interface, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := cli.Main(append([]string{"controller", "install", "-o", "yaml"}, args...),
		genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}); code != 0 {
		t.Fatalf("install: exit %d\n%s", code, errOut.String())
	}
	ctx := t.Context()
	for _, doc := range strings.Split(out.String(), "\n---\n") {
		if applyPrintedCRD(t, doc) {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		switch o := obj.(type) {
		case *corev1.Namespace:
			_, err = cs.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				err = nil
			}
		case *corev1.ServiceAccount:
			_, err = cs.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.Role:
			_, err = cs.RbacV1().Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = cs.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *appsv1.Deployment:
			_, err = cs.AppsV1().Deployments(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Service:
			_, err = cs.CoreV1().Services(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRole:
			_, err = cs.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
			t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(context.Background(), o.Name, metav1.DeleteOptions{}) })
		case *rbacv1.ClusterRoleBinding:
			_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
			t.Cleanup(func() {
				_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), o.Name, metav1.DeleteOptions{})
			})
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			_, err = cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, o, metav1.CreateOptions{})
			t.Cleanup(func() {
				_ = cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), o.Name, metav1.DeleteOptions{})
			})
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			_, err = cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, o, metav1.CreateOptions{})
			t.Cleanup(func() {
				_ = cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(context.Background(), o.Name, metav1.DeleteOptions{})
			})
		default:
			t.Fatalf("install printed a %T", obj)
		}
		if err != nil {
			t.Fatalf("creating the printed %T: %v", obj, err)
		}
	}
	return out.String()
}

// TestInstalledRBACIsLeastPrivilege applies the printed install to the
// real kube-apiserver and asks it, as the controller's ServiceAccount,
// what it may do: get the state's key Secret and the listed Secret, and
// no other Secret anywhere; write nothing in the source's namespace. Then
// it runs what the controller does there as that ServiceAccount: the
// state (creating its key, locking), the ConfigMap source, an Event.
func TestInstalledRBACIsLeastPrivilege(t *testing.T) {
	env := statetest.Shared(t)
	stateNS, srcNS, instNS := env.NewNamespace(t), env.NewNamespace(t), env.NewNamespace(t)
	const name = "azure-ctl"
	applyInstall(t, env.Clientset, "--name", name, "--install-namespace", instNS,
		"--source", "configmap://"+srcNS+"?selector=app=infra", "--state-ref", "kubernetes://"+stateNS+"/prod",
		"--client-id", "11111111-2222-3333-4444-555555555555", "--secret", srcNS+"/db")
	ctx := t.Context()
	user := "system:serviceaccount:" + instNS + ":" + name
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + instNS, "system:authenticated"}
	can := func(verb, group, resource, ns, objName string) bool {
		t.Helper()
		r, err := env.Clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups, ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: verb, Group: group, Resource: resource, Name: objName}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return r.Status.Allowed
	}
	for _, c := range []struct {
		verb, group, resource, ns, name string
		want                            bool
	}{
		{"get", "", "secrets", stateNS, "azstate-prod-key", true},
		{"get", "", "secrets", srcNS, "db", true},
		{"create", "", "secrets", stateNS, "", true}, // the key, once: RBAC cannot name what is created
		{"get", "", "secrets", stateNS, "other", false},
		{"get", "", "secrets", stateNS, "azstate-staging-key", false},
		{"get", "", "secrets", srcNS, "other", false},
		{"get", "", "secrets", instNS, "other", false},
		{"get", "", "secrets", "default", "other", false},
		{"list", "", "secrets", stateNS, "", false},
		{"watch", "", "secrets", srcNS, "", false},
		{"update", "", "secrets", stateNS, "azstate-prod-key", false},
		{"delete", "", "secrets", stateNS, "azstate-prod-key", false},
		{"create", "", "secrets", srcNS, "", false},
		{"list", "", "configmaps", srcNS, "", true},
		{"watch", "", "configmaps", srcNS, "", true},
		{"create", "", "configmaps", srcNS, "", false},
		{"update", "", "configmaps", srcNS, "infra", false},
		{"delete", "", "configmaps", srcNS, "infra", false},
		{"update", "", "configmaps", stateNS, "azstate-prod-x", true},
		{"get", "coordination.k8s.io", "leases", stateNS, "azstate-prod-lock", true},
		{"update", "coordination.k8s.io", "leases", stateNS, "kubectl-azure-controller-prod", true},
		{"update", "coordination.k8s.io", "leases", stateNS, "someone-elses", false},
		{"create", "", "events", stateNS, "", true},
		{"create", "", "events", srcNS, "", false},
		{"get", "", "pods", instNS, "", false},
	} {
		if got := can(c.verb, c.group, c.resource, c.ns, c.name); got != c.want {
			t.Errorf("can %s %s %s/%s: %v, want %v", c.verb, c.resource, c.ns, c.name, got, c.want)
		}
	}

	// What the controller does, as the ServiceAccount.
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig, flags.Impersonate, flags.ImpersonateGroup = &env.Kubeconfig, &user, &groups
	st, err := state.Open(ctx, "kubernetes://"+stateNS+"/prod", state.Options{KubeConfig: flags})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.SecretKey(ctx); err != nil { // creates the key, then reads it
		t.Fatalf("the state's key as the ServiceAccount: %v", err)
	}
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatalf("the state's lock as the ServiceAccount: %v", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	sa := kubernetes.NewForConfigOrDie(cfg)
	src := &reconcile.ConfigMapSource{Client: sa, Namespace: srcNS, Selector: "app=infra", Dir: t.TempDir(),
		LoadDir: func(context.Context, string) (*manifest.Set, error) { return nil, nil }}
	if err := src.Start(ctx); err != nil {
		t.Fatalf("the ConfigMap source as the ServiceAccount: %v", err)
	}
	// Leader election takes its Lease as client-go does: create, get, update.
	rl, err := resourcelock.New(resourcelock.LeasesResourceLock, stateNS, "kubectl-azure-controller-prod", sa.CoreV1(), sa.CoordinationV1(),
		resourcelock.ResourceLockConfig{Identity: "replica-a"})
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	rec := resourcelock.LeaderElectionRecord{HolderIdentity: "replica-a", LeaseDurationSeconds: 10, AcquireTime: now, RenewTime: now}
	if err := rl.Create(ctx, rec); err != nil {
		t.Fatalf("the leader Lease as the ServiceAccount: %v", err)
	}
	if _, _, err := rl.Get(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rl.Update(ctx, rec); err != nil {
		t.Fatalf("renewing the leader Lease as the ServiceAccount: %v", err)
	}
	var evErr error
	reconcile.KubeEvents(sa, stateNS, "prod", "test", func(err error) { evErr = err })(reconcile.Event{Reason: "DriftDetected", ID: "/subscriptions/x"})
	if evErr != nil {
		t.Errorf("an Event as the ServiceAccount: %v", evErr)
	}
	if _, err := sa.CoreV1().Secrets(stateNS).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "planted"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sa.CoreV1().Secrets(stateNS).Get(ctx, "planted", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the ServiceAccount read a Secret it created that is not the key: %v", err)
	}
}
