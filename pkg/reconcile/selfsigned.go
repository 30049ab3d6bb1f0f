package reconcile

// The webhook's certificate without cert-manager: the controller keeps a
// CA and a serving certificate in one Secret of its namespace, writes the
// CAs into its ValidatingWebhookConfiguration's caBundle and serves with
// the certificate. Every replica may run it: the Secret is written with
// its resourceVersion, so when two replicas rotate at once one write wins
// and the other reads it.
//
// Rotation keeps every request trusted. The serving certificate lives
// Validity and is renewed at 2/3 of its life. A CA lives 4×Validity; a new
// one joins the bundle when the newest has less than half its life left,
// and it signs a serving certificate only once the old CA could no longer
// cover one (so it has been in caBundle for at least Validity first). A CA
// leaves the bundle when it expires, after the last certificate it signed.

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// Keys of the self-signed Secret. ca.crt holds every CA still trusted,
// ca.key their keys in the same order.
const (
	SecretCACert = "ca.crt"
	SecretCAKey  = "ca.key"
)

// DefaultCertValidity is the serving certificate's life when none is given.
const DefaultCertValidity = 30 * 24 * time.Hour

// caLives is a CA's life in serving certificate lives.
const caLives = 4

// SelfSigned keeps the webhook's certificate in a Secret and its CAs in
// the webhook configuration.
type SelfSigned struct {
	Client kubernetes.Interface
	// Namespace and Secret name the Secret holding the CA and certificate.
	Namespace, Secret string
	// WebhookConfig is the ValidatingWebhookConfiguration whose caBundle
	// is kept.
	WebhookConfig string
	// MutatingWebhookConfig, if set, is the MutatingWebhookConfiguration
	// (the finalizer) whose caBundle is kept too.
	MutatingWebhookConfig string
	// DNSNames and IPs are the serving certificate's names.
	DNSNames []string
	IPs      []net.IP
	// Validity is the serving certificate's life (DefaultCertValidity if 0).
	Validity time.Duration
	// Now is the clock (time.Now if nil); tests move it.
	Now func() time.Time

	mu   sync.Mutex
	cert *tls.Certificate
}

// GetCertificate serves the certificate of the last Sync.
func (s *SelfSigned) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cert == nil {
		return nil, errors.New("the webhook's self-signed certificate is not loaded yet")
	}
	return s.cert, nil
}

// Run syncs every interval until ctx ends, reporting failures to logf.
func (s *SelfSigned) Run(ctx context.Context, every time.Duration, logf func(string, ...any)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Sync(ctx); err != nil && ctx.Err() == nil {
				logf("webhook certificate: %v", err)
			}
		}
	}
}

// SyncInterval is how often Run should look: often enough to renew well
// before 2/3 of a life, at most a minute apart.
func (s *SelfSigned) SyncInterval() time.Duration {
	return min(s.validity()/20, time.Minute)
}

// Sync creates, reuses or rotates the Secret, writes its CAs into the
// webhook configuration and loads the serving certificate.
func (s *SelfSigned) Sync(ctx context.Context) error {
	sec, err := s.syncSecret(ctx)
	if err != nil {
		return fmt.Errorf("secret %s/%s: %w", s.Namespace, s.Secret, err)
	}
	if err := s.syncBundle(ctx, sec.Data[SecretCACert]); err != nil {
		return fmt.Errorf("validatingwebhookconfiguration %s: %w", s.WebhookConfig, err)
	}
	if s.MutatingWebhookConfig != "" {
		if err := s.syncMutatingBundle(ctx, sec.Data[SecretCACert]); err != nil {
			return fmt.Errorf("mutatingwebhookconfiguration %s: %w", s.MutatingWebhookConfig, err)
		}
	}
	c, err := tls.X509KeyPair(sec.Data[corev1.TLSCertKey], sec.Data[corev1.TLSPrivateKeyKey])
	if err != nil {
		return fmt.Errorf("secret %s/%s: %w", s.Namespace, s.Secret, err)
	}
	s.mu.Lock()
	s.cert = &c
	s.mu.Unlock()
	return nil
}

func (s *SelfSigned) validity() time.Duration {
	if s.Validity > 0 {
		return s.Validity
	}
	return DefaultCertValidity
}

func (s *SelfSigned) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// syncSecret returns the Secret after this replica's rotation or another's.
func (s *SelfSigned) syncSecret(ctx context.Context) (*corev1.Secret, error) {
	secrets := s.Client.CoreV1().Secrets(s.Namespace)
	for range 5 {
		sec, err := secrets.Get(ctx, s.Secret, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			data, _, err := rotate(nil, s.now(), s.validity(), s.DNSNames, s.IPs)
			if err != nil {
				return nil, err
			}
			sec = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: s.Secret, Namespace: s.Namespace}, Type: corev1.SecretTypeTLS, Data: data}
			created, err := secrets.Create(ctx, sec, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				continue // another replica made it: use theirs
			}
			return created, err
		}
		if err != nil {
			return nil, err
		}
		data, changed, err := rotate(sec.Data, s.now(), s.validity(), s.DNSNames, s.IPs)
		if err != nil || !changed {
			return sec, err
		}
		sec.Data = data
		updated, err := secrets.Update(ctx, sec, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			continue // another replica rotated first: read what it wrote
		}
		return updated, err
	}
	return nil, errors.New("rotated by other replicas five times in a row; will try again")
}

// syncBundle sets every webhook's caBundle to bundle, guarded by the
// configuration's resourceVersion.
func (s *SelfSigned) syncBundle(ctx context.Context, bundle []byte) error {
	vwcs := s.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	vwc, err := vwcs.Get(ctx, s.WebhookConfig, metav1.GetOptions{})
	if err != nil {
		return err
	}
	var have [][]byte
	for _, w := range vwc.Webhooks {
		have = append(have, w.ClientConfig.CABundle)
	}
	patch := bundlePatch(vwc.ResourceVersion, have, bundle)
	if patch == nil {
		return nil
	}
	_, err = vwcs.Patch(ctx, s.WebhookConfig, types.JSONPatchType, patch, metav1.PatchOptions{})
	return err
}

func (s *SelfSigned) syncMutatingBundle(ctx context.Context, bundle []byte) error {
	mwcs := s.Client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	mwc, err := mwcs.Get(ctx, s.MutatingWebhookConfig, metav1.GetOptions{})
	if err != nil {
		return err
	}
	var have [][]byte
	for _, w := range mwc.Webhooks {
		have = append(have, w.ClientConfig.CABundle)
	}
	patch := bundlePatch(mwc.ResourceVersion, have, bundle)
	if patch == nil {
		return nil
	}
	_, err = mwcs.Patch(ctx, s.MutatingWebhookConfig, types.JSONPatchType, patch, metav1.PatchOptions{})
	return err
}

// bundlePatch is the JSON patch setting every webhook's caBundle (have,
// in order) to bundle, or nil when all are.
func bundlePatch(resourceVersion string, have [][]byte, bundle []byte) []byte {
	ops := []map[string]any{{"op": "test", "path": "/metadata/resourceVersion", "value": resourceVersion}}
	for i, b := range have {
		if !bytes.Equal(b, bundle) {
			ops = append(ops, map[string]any{"op": "add", "path": fmt.Sprintf("/webhooks/%d/clientConfig/caBundle", i), "value": base64.StdEncoding.EncodeToString(bundle)})
		}
	}
	if len(ops) == 1 {
		return nil
	}
	patch, _ := json.Marshal(ops)
	return patch
}

// ca is one CA of the bundle.
type ca struct {
	cert *x509.Certificate
	key  crypto.Signer
}

// rotate returns the Secret's data at now: CAs expired dropped, a new CA
// when the newest is past half its life, a new serving certificate when
// the current one is past 2/3 of its life, names other names, or its CA
// left the bundle. changed says whether anything did.
func rotate(data map[string][]byte, now time.Time, validity time.Duration, dns []string, ips []net.IP) (map[string][]byte, bool, error) {
	if len(dns) == 0 && len(ips) == 0 {
		return nil, false, errors.New("a serving certificate needs a DNS name or an IP")
	}
	cas := parseCAs(data[SecretCACert], data[SecretCAKey])
	kept := slices.DeleteFunc(slices.Clone(cas), func(c ca) bool { return !now.Before(c.cert.NotAfter) })
	changed := len(kept) != len(cas) || len(cas) == 0
	if newest := newestCA(kept); newest == nil || newest.cert.NotAfter.Sub(now) < caLives*validity/2 {
		c, err := newCA(now, caLives*validity)
		if err != nil {
			return nil, false, err
		}
		kept, changed = append(kept, c), true
	}
	certPEM, keyPEM := data[corev1.TLSCertKey], data[corev1.TLSPrivateKeyKey]
	if needsRenewal(certPEM, keyPEM, kept, now, dns, ips) {
		signer := oldestCovering(kept, now.Add(validity))
		var err error
		if certPEM, keyPEM, err = issue(signer, now, validity, dns, ips); err != nil {
			return nil, false, err
		}
		changed = true
	}
	if !changed {
		return data, false, nil
	}
	out := map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM}
	for _, c := range kept {
		kb, err := x509.MarshalECPrivateKey(c.key.(*ecdsa.PrivateKey))
		if err != nil {
			return nil, false, err
		}
		out[SecretCACert] = append(out[SecretCACert], pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.cert.Raw})...)
		out[SecretCAKey] = append(out[SecretCAKey], pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})...)
	}
	return out, true, nil
}

// parseCAs pairs the bundle's certificates with their keys; a pair that
// does not parse is dropped (a new CA replaces it).
func parseCAs(certs, keys []byte) []ca {
	var out []ca
	for {
		var cb, kb *pem.Block
		cb, certs = pem.Decode(certs)
		kb, keys = pem.Decode(keys)
		if cb == nil || kb == nil {
			return out
		}
		c, err1 := x509.ParseCertificate(cb.Bytes)
		k, err2 := x509.ParseECPrivateKey(kb.Bytes)
		if err1 == nil && err2 == nil && c.IsCA {
			out = append(out, ca{c, k})
		}
	}
}

func newestCA(cas []ca) *ca {
	var n *ca
	for i := range cas {
		if n == nil || cas[i].cert.NotAfter.After(n.cert.NotAfter) {
			n = &cas[i]
		}
	}
	return n
}

// oldestCovering is the CA expiring first that outlives until, or the
// newest when none does.
func oldestCovering(cas []ca, until time.Time) ca {
	var best *ca
	for i := range cas {
		c := &cas[i]
		if !c.cert.NotAfter.Before(until) && (best == nil || c.cert.NotAfter.Before(best.cert.NotAfter)) {
			best = c
		}
	}
	if best == nil {
		best = newestCA(cas)
	}
	return *best
}

func needsRenewal(certPEM, keyPEM []byte, cas []ca, now time.Time, dns []string, ips []net.IP) bool {
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		return true
	}
	b, _ := pem.Decode(certPEM)
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		return true
	}
	if life := c.NotAfter.Sub(c.NotBefore); !now.Before(c.NotBefore.Add(life * 2 / 3)) {
		return true
	}
	if !slices.Equal(c.DNSNames, dns) || !slices.EqualFunc(c.IPAddresses, ips, net.IP.Equal) {
		return true
	}
	return !slices.ContainsFunc(cas, func(a ca) bool { return c.CheckSignatureFrom(a.cert) == nil })
}

// backdate is how far before now a certificate starts, for clocks a little
// behind: a minute, or a tenth of a short life.
func backdate(life time.Duration) time.Duration { return min(time.Minute, life/10) }

func newCA(now time.Time, life time.Duration) (ca, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return ca{}, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "kubectl-azure webhook CA " + now.UTC().Format(time.RFC3339)},
		NotBefore: now.Add(-backdate(life)), NotAfter: now.Add(life), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return ca{}, err
	}
	c, err := x509.ParseCertificate(der)
	return ca{c, key}, err
}

// issue makes a serving certificate signed by c, PEM encoded.
func issue(c ca, now time.Time, life time.Duration, dns []string, ips []net.IP) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: firstName(dns, ips)},
		NotBefore: now.Add(-backdate(life)), NotAfter: now.Add(life), DNSNames: dns, IPAddresses: ips,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, &key.PublicKey, c.key)
	if err != nil {
		return nil, nil, err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), nil
}
