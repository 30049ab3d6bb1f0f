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
	case webhookCertManager:
		if !o.src.Kube {
			return fmt.Errorf("--webhook %s validates Resource objects: it needs --source kubernetes://NAMESPACE", o.webhook)
		}
		return nil
	}
	return fmt.Errorf("--webhook %q: use %s or %s", o.webhook, webhookNone, webhookCertManager)
}

func (o *installOptions) webhookOn() bool { return o.webhook == webhookCertManager }

func (o *installOptions) webhookName() string { return o.name + "-webhook" }

// webhookObjects are printed after the Deployment.
func (o *installOptions) webhookObjects() []any {
	if !o.webhookOn() {
		return nil
	}
	name, ns := o.webhookName(), o.namespace
	svc := &corev1.Service{TypeMeta: typeMeta("v1", "Service"), ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: o.labels()},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app.kubernetes.io/instance": o.name},
			Ports: []corev1.ServicePort{{Name: "webhook", Port: 443, TargetPort: intstr.FromString("webhook")}}}}
	issuer := map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Issuer",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": o.labels()},
		"spec":     map[string]any{"selfSigned": map[string]any{}}}
	cert := map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": o.labels()},
		"spec": map[string]any{"secretName": name + "-tls", "dnsNames": []string{name + "." + ns + ".svc", name + "." + ns + ".svc.cluster.local"},
			"issuerRef": map[string]any{"kind": "Issuer", "name": name}}}
	path, port := reconcile.WebhookPath, int32(443)
	fail, none, timeout := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone, int32(10)
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{TypeMeta: typeMeta("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"),
		ObjectMeta: metav1.ObjectMeta{Name: o.name + "-" + ns, Labels: o.labels(), Annotations: map[string]string{certManagerInjectAnnotation: ns + "/" + name}},
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
	return []any{svc, issuer, cert, vwc}
}

// webhookPod adds the webhook's port, flags and certificate volume.
func (o *installOptions) webhookPod(c *corev1.Container, volumes []corev1.Volume) []corev1.Volume {
	if !o.webhookOn() {
		return volumes
	}
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: "webhook", ContainerPort: webhookPort})
	c.Args = append(c.Args, fmt.Sprintf("--webhook-addr=:%d", webhookPort), "--webhook-cert-dir="+webhookCertDir)
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "webhook-tls", MountPath: webhookCertDir, ReadOnly: true})
	return append(volumes, corev1.Volume{Name: "webhook-tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: o.webhookName() + "-tls"}}})
}
