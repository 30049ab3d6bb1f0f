package reconcile

// The webhook's HTTPS server and its certificate. The certificate is read
// from files (a cert-manager Secret mounted into the pod) and read again
// when they change, so a renewal needs no restart. SelfSignedCA makes a
// CA and a serving certificate for installs without cert-manager.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// ServeWebhook serves h at WebhookPath (and the finalizer at MutatePath)
// over TLS on addr until ctx ends,
// with the certificate in certFile and keyFile; it returns the address it
// listens on.
func ServeWebhook(ctx context.Context, addr, certFile, keyFile string, h http.Handler) (string, error) {
	kp := &keyPair{cert: certFile, key: keyFile}
	if _, err := kp.get(nil); err != nil {
		return "", err
	}
	return ServeWebhookTLS(ctx, addr, kp.get, h)
}

// ServeWebhookTLS serves h at WebhookPath and FinalizerAdder at
// MutatePath over TLS on addr until ctx ends,
// with the certificate getCert returns (SelfSigned.GetCertificate).
func ServeWebhookTLS(ctx context.Context, addr string, getCert func(*tls.ClientHelloInfo) (*tls.Certificate, error), h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.Handle(WebhookPath, h)
	mux.Handle(MutatePath, FinalizerAdder{})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second,
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: getCert}}
	go func() { _ = srv.ServeTLS(ln, "", "") }()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	return ln.Addr().String(), nil
}

// keyPair is a certificate read again whenever its files change.
type keyPair struct {
	cert, key string
	mu        sync.Mutex
	mod       time.Time
	loaded    *tls.Certificate
}

func (k *keyPair) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	fi, err := os.Stat(k.cert)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.loaded != nil && fi.ModTime().Equal(k.mod) {
		return k.loaded, nil
	}
	c, err := tls.LoadX509KeyPair(k.cert, k.key)
	if err != nil {
		if k.loaded != nil {
			return k.loaded, nil // half-written during a renewal: keep the last good one
		}
		return nil, err
	}
	k.loaded, k.mod = &c, fi.ModTime()
	return k.loaded, nil
}

// Certs are a CA and a serving certificate it signed, PEM encoded.
type Certs struct {
	CA, Cert, Key []byte
}

// SelfSignedCA makes a CA and a serving certificate for the DNS names and
// IPs, valid for validity.
func SelfSignedCA(dnsNames []string, ips []net.IP, validity time.Duration) (*Certs, error) {
	if len(dnsNames) == 0 && len(ips) == 0 {
		return nil, errors.New("a serving certificate needs a DNS name or an IP")
	}
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "kubectl-azure webhook CA"},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(validity), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: firstName(dnsNames, ips)},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(validity), DNSNames: dnsNames, IPAddresses: ips,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &Certs{
		CA:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}),
	}, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}

func firstName(dns []string, ips []net.IP) string {
	if len(dns) > 0 {
		return dns[0]
	}
	return ips[0].String()
}
