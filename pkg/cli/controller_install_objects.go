package cli

import (
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/config/crd"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Workload identity's webhook reads these (Azure Workload Identity
// documentation, "Service account labels and annotations").
const (
	wiClientIDAnnotation = "azure.workload.identity/client-id"
	wiUseLabel           = "azure.workload.identity/use"
)

// objects are the install's objects, in the order kubectl should apply
// them: Namespaces, then what lives in them.
func (o *installOptions) objects() []any {
	var objs []any
	for _, ns := range o.namespaces() {
		objs = append(objs, &corev1.Namespace{TypeMeta: typeMeta("v1", "Namespace"), ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: o.labels()}})
	}
	sa := &corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount"), ObjectMeta: o.meta(o.namespace)}
	if o.auth == arm.AuthWorkloadIdentity {
		sa.Annotations = map[string]string{wiClientIDAnnotation: o.clientID}
	}
	objs = append(objs, sa)
	roles := o.roles()
	for _, ns := range slices.Sorted(maps.Keys(roles)) {
		if ns == "" {
			continue // cluster-scoped: a ClusterRole below
		}
		objs = append(objs, &rbacv1.Role{TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "Role"), ObjectMeta: o.meta(ns), Rules: roles[ns]},
			&rbacv1.RoleBinding{TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "RoleBinding"), ObjectMeta: o.meta(ns),
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: o.name},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: o.name, Namespace: o.namespace}}})
	}
	if rules := roles[""]; len(rules) > 0 {
		meta := metav1.ObjectMeta{Name: o.webhookConfigName(), Labels: o.labels()}
		objs = append(objs, &rbacv1.ClusterRole{TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "ClusterRole"), ObjectMeta: meta, Rules: rules},
			&rbacv1.ClusterRoleBinding{TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"), ObjectMeta: meta,
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: meta.Name},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: o.name, Namespace: o.namespace}}})
	}
	objs = append(objs, o.deployment())
	objs = append(objs, o.webhookObjects()...)
	if o.metricsExposed() {
		port, _ := strconv.Atoi(o.metrics)
		objs = append(objs, &corev1.Service{TypeMeta: typeMeta("v1", "Service"), ObjectMeta: o.meta(o.namespace),
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app.kubernetes.io/instance": o.name},
				Ports: []corev1.ServicePort{{Name: "metrics", Port: int32(port), TargetPort: intstr.FromString("metrics")}}}})
	}
	return objs
}

// metricsExposed: /metrics listens beyond the pod's loopback.
func (o *installOptions) metricsExposed() bool { return !isLoopbackHost(o.metricsHost) }

func isLoopbackHost(h string) bool { return h != "" && netIP(h).IsLoopback() }

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

func (o *installOptions) labels() map[string]string {
	return map[string]string{"app.kubernetes.io/name": "kubectl-azure", "app.kubernetes.io/component": "controller", "app.kubernetes.io/instance": o.name}
}

func (o *installOptions) meta(ns string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: o.name, Namespace: ns, Labels: o.labels()}
}

// namespaces are every namespace the install puts objects in or the
// controller works in.
func (o *installOptions) namespaces() []string {
	set := map[string]bool{o.namespace: true, o.stateNS: true, o.leaseNamespace(): true}
	if o.src.Namespace != "" {
		set[o.src.Namespace] = true
	}
	return slices.Sorted(maps.Keys(set))
}

func (o *installOptions) leaseNamespace() string {
	if o.leaseNS != "" {
		return o.leaseNS
	}
	return o.stateNS
}

// grant is one verb on one kind of object in one namespace; name "" is
// every object of the kind.
type grant struct{ ns, group, resource, verb, name string }

// grants are what the controller does, per namespace:
//   - state: the records' ConfigMaps (names are hashes of IDs: any name),
//     its lock Lease, its key Secret, and Events on the records. RBAC
//     cannot limit create by name, so create is granted on Secrets and
//     Leases; get and update are limited to the key and the Leases, so
//     the controller reads no Secret but its key.
//   - leases: the leader Lease, the same way.
//   - source: list and watch ConfigMaps, or Resource objects (the
//     informer); for Resource objects also patch their status (a merge
//     patch, so neither get nor update is needed), patch the objects
//     themselves (their finalizer: RBAC cannot narrow patch to metadata)
//     and create Events on them.
//   - each --secret: get on that Secret alone.
//   - --webhook self-signed: its certificate's Secret and its webhook
//     configuration (cluster-scoped, ns ""), see webhookGrants.
func (o *installOptions) grants() []grant {
	ns := o.stateNS
	var g []grant
	for _, v := range []string{"get", "list", "create", "update", "delete"} {
		g = append(g, grant{ns, "", "configmaps", v, ""})
	}
	g = append(g, grant{ns, "", "secrets", "create", ""}, grant{ns, "", "secrets", "get", state.KeySecretName(o.set)},
		grant{ns, "", "events", "create", ""})
	g = append(g, leaseGrants(ns, state.LockLeaseName(o.set))...)
	g = append(g, leaseGrants(o.leaseNamespace(), leaderLeaseName(o.set))...)
	switch {
	case o.src.Kube:
		g = append(g, grant{o.src.Namespace, crd.Group, crd.Resource, "list", ""}, grant{o.src.Namespace, crd.Group, crd.Resource, "watch", ""},
			grant{o.src.Namespace, crd.Group, crd.Resource, "patch", ""},
			grant{o.src.Namespace, crd.Group, crd.Resource + "/status", "patch", ""}, grant{o.src.Namespace, "", "events", "create", ""})
	case o.src.Namespace != "":
		g = append(g, grant{o.src.Namespace, "", "configmaps", "list", ""}, grant{o.src.Namespace, "", "configmaps", "watch", ""})
	}
	for _, s := range o.allowed {
		g = append(g, grant{s.Namespace, "", "secrets", "get", s.Name})
	}
	return append(g, o.webhookGrants()...)
}

func leaseGrants(ns, name string) []grant {
	const group = "coordination.k8s.io"
	return []grant{{ns, group, "leases", "create", ""}, {ns, group, "leases", "get", name}, {ns, group, "leases", "update", name}}
}

// roles turns grants into one Role per namespace: per kind of object, the
// verbs on every object in one rule, and the verbs limited to names in
// rules of their own (a verb granted on every object needs no names).
func (o *installOptions) roles() map[string][]rbacv1.PolicyRule {
	type kind struct{ ns, group, resource string }
	verbs := map[kind]map[string][]string{} // verb -> names ("" = all)
	for _, g := range o.grants() {
		k := kind{g.ns, g.group, g.resource}
		if verbs[k] == nil {
			verbs[k] = map[string][]string{}
		}
		verbs[k][g.verb] = append(verbs[k][g.verb], g.name)
	}
	roles := map[string][]rbacv1.PolicyRule{}
	kinds := slices.SortedFunc(maps.Keys(verbs), func(a, b kind) int {
		return strings.Compare(a.ns+"/"+a.group+"/"+a.resource, b.ns+"/"+b.group+"/"+b.resource)
	})
	for _, k := range kinds {
		var all []string
		named := map[string][]string{} // names joined -> verbs
		for _, v := range slices.Sorted(maps.Keys(verbs[k])) {
			names := verbs[k][v]
			if slices.Contains(names, "") {
				all = append(all, v)
				continue
			}
			slices.Sort(names)
			key := strings.Join(slices.Compact(names), ",")
			named[key] = append(named[key], v)
		}
		if len(all) > 0 {
			roles[k.ns] = append(roles[k.ns], rbacv1.PolicyRule{APIGroups: []string{k.group}, Resources: []string{k.resource}, Verbs: all})
		}
		for _, key := range slices.Sorted(maps.Keys(named)) {
			roles[k.ns] = append(roles[k.ns], rbacv1.PolicyRule{APIGroups: []string{k.group}, Resources: []string{k.resource},
				Verbs: named[key], ResourceNames: strings.Split(key, ",")})
		}
	}
	return roles
}

// args are the controller's command line in the pod.
func (o *installOptions) args() []string {
	args := []string{"controller", "--source=" + o.source, "--state=" + o.state, "--drift-policy=" + o.policy,
		"--read-budget=" + o.readBudget, "--leader-elect", "--metrics-addr=" + o.metricsAddr,
		"--health-addr=:" + strconv.Itoa(o.healthPort), "--status-file=/var/run/kubectl-azure/status.json", "--auth=" + o.auth}
	if o.g.Set != "" {
		args = append(args, "--set="+o.g.Set)
	}
	if o.g.Subscription != "" {
		args = append(args, "--subscription="+o.g.Subscription)
	}
	if o.leaseNS != "" {
		args = append(args, "--leader-elect-namespace="+o.leaseNS)
	}
	for _, s := range o.allowed {
		args = append(args, "--secret="+s.String())
	}
	for _, e := range o.allowEnv {
		args = append(args, "--allow-env="+e)
	}
	return args
}

func (o *installOptions) deployment() *appsv1.Deployment {
	replicas := int32(o.replicas)
	podLabels := o.labels()
	if o.auth == arm.AuthWorkloadIdentity {
		podLabels[wiUseLabel] = "true"
	}
	no, yes := false, true
	c := corev1.Container{
		Name: "controller", Image: o.image, Args: o.args(),
		Ports:          []corev1.ContainerPort{{Name: "health", ContainerPort: int32(o.healthPort)}},
		ReadinessProbe: httpProbe("/readyz"), LivenessProbe: httpProbe("/healthz"),
		Resources: corev1.ResourceRequirements{Requests: resources("50m", "64Mi"), Limits: resources("", "256Mi")},
		SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: &no, ReadOnlyRootFilesystem: &yes,
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
		VolumeMounts: []corev1.VolumeMount{{Name: "run", MountPath: "/var/run/kubectl-azure"}, {Name: "tmp", MountPath: "/tmp"}},
	}
	if o.metricsExposed() {
		port, _ := strconv.Atoi(o.metrics)
		c.Ports = append(c.Ports, corev1.ContainerPort{Name: "metrics", ContainerPort: int32(port)})
	}
	if o.auth == arm.AuthEnv {
		c.EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: o.credentials}}}}
	}
	volumes := []corev1.Volume{emptyDir("run"), emptyDir("tmp")}
	if o.src.Dir != "" {
		// A placeholder: replace it with a git-sync sidecar's volume.
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "manifests", MountPath: o.src.Dir, ReadOnly: true})
		volumes = append(volumes, emptyDir("manifests"))
	}
	volumes = o.webhookPod(&c, volumes)
	return &appsv1.Deployment{TypeMeta: typeMeta("apps/v1", "Deployment"), ObjectMeta: o.meta(o.namespace),
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/instance": o.name}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{ServiceAccountName: o.name,
					SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: &yes, SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
					Containers:      []corev1.Container{c}, Volumes: volumes}}}}
}

func httpProbe(p string) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: p, Port: intstr.FromString("health")}}}
}

func emptyDir(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
}

func resources(cpu, memory string) corev1.ResourceList {
	l := corev1.ResourceList{corev1.ResourceMemory: mustQuantity(memory)}
	if cpu != "" {
		l[corev1.ResourceCPU] = mustQuantity(cpu)
	}
	return l
}

// writeYAMLStream marshals each object and separates them with ---,
// dropping the empty fields Go's zero values add (creationTimestamp: null,
// status: {}), which are noise in a manifest meant to be read.
func writeYAMLStream(w io.Writer, objs []any) error {
	for i, obj := range objs {
		b, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		var m map[string]any
		if err := yaml.Unmarshal(b, &m); err != nil {
			return err
		}
		dropEmpty(m)
		if b, err = yaml.Marshal(m); err != nil {
			return err
		}
		sep := "---\n"
		if i == 0 {
			sep = ""
		}
		if _, err := fmt.Fprintf(w, "%s%s", sep, b); err != nil {
			return err
		}
	}
	return nil
}

// dropEmpty removes null values and empty maps below m, except where an
// empty map means something (emptyDir: {}, cert-manager's selfSigned: {}).
func dropEmpty(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			dropEmpty(x)
			if len(x) == 0 && k != "emptyDir" && k != "selfSigned" {
				delete(m, k)
			}
		case []any:
			for _, it := range x {
				if im, ok := it.(map[string]any); ok {
					dropEmpty(im)
				}
			}
		}
	}
}

func netIP(h string) net.IP { return net.ParseIP(h) }

func mustQuantity(s string) kresource.Quantity { return kresource.MustParse(s) }
