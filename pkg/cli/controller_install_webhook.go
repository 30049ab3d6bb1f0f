package cli

// The validating webhook's objects in `controller install --webhook
// cert-manager`: a Service in front of every replica, the
// ValidatingWebhookConfiguration for Resource objects of the source
// namespace, and cert-manager's wiring (a self-signed Issuer, a Certificate
// whose Secret the pod mounts, the annotation that injects its CA into the
// configuration). cert-manager renews the Secret; the controller reads the
// files again when they change.

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-azure/kubectl-azure/config/crd"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
)

// Webhook modes of install.
const (
	webhookNone        = "none"
	webhookCertManager = "cert-manager"
	webhookSelfSigned  = "self-signed"
	webhookPort        = 9443
	webhookCertDir     = "/var/run/kubectl-azure-webhook"
	// cert-manager's cainjector reads this annotation (cert-manager
	// documentation, "CA Injector").
	certManagerInjectAnnotation = "cert-manager.io/inject-ca-from"
)

func (o *installOptions) validateWebhook() error {
	switch o.webhook {
	case webhookNone:
		return nil
	case webhookCertManager, webhookSelfSigned:
		if !o.src.Kube {
			return fmt.Errorf("--webhook %s validates Resource objects: it needs --source kubernetes://NAMESPACE", o.webhook)
		}
		return nil
	}
	return fmt.Errorf("--webhook %q: use %s, %s or %s", o.webhook, webhookNone, webhookCertManager, webhookSelfSigned)
}

func (o *installOptions) webhookOn() bool { return o.webhook != webhookNone }

func (o *installOptions) webhookName() string { return o.name + "-webhook" }

// webhookConfigName is the ValidatingWebhookConfiguration's: cluster-wide,
// so it carries the install's namespace.
func (o *installOptions) webhookConfigName() string { return o.name + "-" + o.namespace }

// webhookSecretName holds the certificate, cert-manager's or the
// controller's own.
func (o *installOptions) webhookSecretName() string { return o.webhookName() + "-tls" }

func (o *installOptions) webhookDNSNames() []string {
	name, ns := o.webhookName(), o.namespace
	return []string{name + "." + ns + ".svc", name + "." + ns + ".svc.cluster.local"}
}

// webhookGrants are what --webhook self-signed does: keep its one Secret
// (RBAC cannot limit create by name) and write caBundle into its one
// webhook configuration.
func (o *installOptions) webhookGrants() []grant {
	if o.webhook != webhookSelfSigned {
		return nil
	}
	const group, vwcs = "admissionregistration.k8s.io", "validatingwebhookconfigurations"
	ns, sec, vwc := o.namespace, o.webhookSecretName(), o.webhookConfigName()
	const mwcs = "mutatingwebhookconfigurations"
	return []grant{{ns, "", "secrets", "create", ""}, {ns, "", "secrets", "get", sec}, {ns, "", "secrets", "update", sec},
		{"", group, vwcs, "get", vwc}, {"", group, vwcs, "patch", vwc}, {"", group, mwcs, "get", vwc}, {"", group, mwcs, "patch", vwc}}
}

// webhookObjects are printed after the Deployment.
func (o *installOptions) webhookObjects() []any {
	if !o.webhookOn() {
		return nil
	}
	name, ns := o.webhookName(), o.namespace
	svc := &corev1.Service{TypeMeta: typeMeta("v1", "Service"), ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: o.labels()},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app.kubernetes.io/instance": o.name},
			Ports: []corev1.ServicePort{{Name: "webhook", Port: 443, TargetPort: intstr.FromString("webhook")}}}}
	vwc, mwc := o.webhookConfig(), o.finalizerWebhookConfig()
	if o.webhook == webhookSelfSigned {
		return []any{svc, vwc, mwc} // the controller makes the certificate and fills caBundle
	}
	vwc.Annotations = map[string]string{certManagerInjectAnnotation: ns + "/" + name}
	mwc.Annotations = map[string]string{certManagerInjectAnnotation: ns + "/" + name}
	issuer := map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Issuer",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": o.labels()},
		"spec":     map[string]any{"selfSigned": map[string]any{}}}
	cert := map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": o.labels()},
		"spec": map[string]any{"secretName": o.webhookSecretName(), "dnsNames": o.webhookDNSNames(),
			"issuerRef": map[string]any{"kind": "Issuer", "name": name}}}
	return []any{svc, issuer, cert, vwc, mwc}
}

// finalizerWebhookConfig stores new Resource objects with the controller's
// finalizer, which saves the controller a write per object. It is an
// optimisation, so it ignores failures: the controller adds the finalizer
// itself to objects stored without it.
func (o *installOptions) finalizerWebhookConfig() *admissionregistrationv1.MutatingWebhookConfiguration {
	v := o.webhookConfig().Webhooks[0]
	path, ignore, never := reconcile.MutatePath, admissionregistrationv1.Ignore, admissionregistrationv1.NeverReinvocationPolicy
	svc := *v.ClientConfig.Service
	svc.Path = &path
	return &admissionregistrationv1.MutatingWebhookConfiguration{TypeMeta: typeMeta("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"),
		ObjectMeta: metav1.ObjectMeta{Name: o.webhookConfigName(), Labels: o.labels()},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:         "finalizer." + v.Name,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &svc},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: v.Rules[0].Rule}},
			NamespaceSelector:       v.NamespaceSelector,
			FailurePolicy:           &ignore,
			SideEffects:             v.SideEffects,
			AdmissionReviewVersions: v.AdmissionReviewVersions,
			TimeoutSeconds:          v.TimeoutSeconds,
			ReinvocationPolicy:      &never,
		}}}
}

func (o *installOptions) webhookConfig() *admissionregistrationv1.ValidatingWebhookConfiguration {
	name, ns := o.webhookName(), o.namespace
	path, port := reconcile.WebhookPath, int32(443)
	fail, none, timeout := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone, int32(10)
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{TypeMeta: typeMeta("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"),
		ObjectMeta: metav1.ObjectMeta{Name: o.webhookConfigName(), Labels: o.labels()},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         crd.Resource + "." + crd.Group,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: ns, Name: name, Path: &path, Port: &port}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{crd.Group}, APIVersions: []string{crd.Version}, Resources: []string{crd.Resource}},
			}},
			// Only the namespace this controller reads: another team's
			// controller judges its own.
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": o.src.Namespace}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          &timeout,
		}}}
	return vwc
}

// webhookPod adds the webhook's port, flags and certificate volume.
func (o *installOptions) webhookPod(c *corev1.Container, volumes []corev1.Volume) []corev1.Volume {
	if !o.webhookOn() {
		return volumes
	}
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: "webhook", ContainerPort: webhookPort})
	c.Args = append(c.Args, fmt.Sprintf("--webhook-addr=:%d", webhookPort))
	if o.webhook == webhookSelfSigned {
		c.Args = append(c.Args, "--webhook-self-signed="+o.namespace+"/"+o.webhookSecretName(), "--webhook-configuration="+o.webhookConfigName(),
			"--webhook-mutating-configuration="+o.webhookConfigName())
		for _, n := range o.webhookDNSNames() {
			c.Args = append(c.Args, "--webhook-dns-name="+n)
		}
		return volumes
	}
	c.Args = append(c.Args, "--webhook-cert-dir="+webhookCertDir)
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "webhook-tls", MountPath: webhookCertDir, ReadOnly: true})
	return append(volumes, corev1.Volume{Name: "webhook-tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: o.webhookSecretName()}}})
}
