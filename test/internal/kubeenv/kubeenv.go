// Package kubeenv starts a throwaway etcd and kube-apiserver on loopback for
// the suites that exercise the Kubernetes state backend through the CLI
// binary. The binaries come from hack/testenv/setup.sh, through the same
// environment variables pkg/state's own tests read.
package kubeenv

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
)

const (
	EnvAPIServer = "KUBECTL_AZURE_TEST_APISERVER"
	EnvEtcd      = "KUBECTL_AZURE_TEST_ETCD"
	EnvRequire   = "KUBECTL_AZURE_REQUIRE_TESTENV"
)

// Env is a running etcd + kube-apiserver.
type Env struct {
	Kubeconfig string
	Client     kubernetes.Interface
	dir        string
	procs      []*exec.Cmd
}

// Start starts the environment, or skips the test when the binaries are
// not configured; with KUBECTL_AZURE_REQUIRE_TESTENV=1 a missing
// environment fails the test instead, so CI cannot pass by skipping.
func Start(t *testing.T) *Env {
	t.Helper()
	apiserver, etcd := os.Getenv(EnvAPIServer), os.Getenv(EnvEtcd)
	missing := ""
	for _, p := range []struct{ env, path string }{{EnvAPIServer, apiserver}, {EnvEtcd, etcd}} {
		if fi, err := os.Stat(p.path); p.path == "" || err != nil || fi.IsDir() {
			missing += fmt.Sprintf(" %s=%q is not a binary;", p.env, p.path)
		}
	}
	if missing != "" {
		msg := "Kubernetes test environment unavailable:" + missing + ` run: eval "$(hack/testenv/setup.sh)"`
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s=1: %s", EnvRequire, msg)
		}
		t.Skip(msg)
	}
	e := &Env{dir: t.TempDir()}
	t.Cleanup(e.stop)
	if err := e.start(apiserver, etcd); err != nil {
		t.Fatal(err)
	}
	return e
}

// Namespace creates a fresh namespace.
func (e *Env) Namespace(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "crash-" + hex.EncodeToString(b)
	if _, err := e.Client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return name
}

// Flags returns kubeconfig flags for in-process state access.
func (e *Env) Flags() genericclioptions.RESTClientGetter {
	f := genericclioptions.NewConfigFlags(false)
	f.KubeConfig = &e.Kubeconfig
	return f
}

func (e *Env) stop() {
	for i := len(e.procs) - 1; i >= 0; i-- {
		p := e.procs[i]
		_ = p.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.Process.Kill()
			<-done
		}
	}
}

func port() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (e *Env) run(name, bin string, args ...string) error {
	log, err := os.Create(filepath.Join(e.dir, name+".log"))
	if err != nil {
		return err
	}
	c := exec.Command(bin, args...)
	c.Stdout, c.Stderr = log, log
	c.SysProcAttr = childAttr()
	if err := c.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	e.procs = append(e.procs, c)
	return nil
}

func (e *Env) logTail(name string) string {
	b, _ := os.ReadFile(filepath.Join(e.dir, name+".log"))
	if len(b) > 1500 {
		b = b[len(b)-1500:]
	}
	return string(b)
}

func (e *Env) start(apiserver, etcd string) error {
	cp, err1 := port()
	pp, err2 := port()
	sp, err3 := port()
	if err1 != nil || err2 != nil || err3 != nil {
		return fmt.Errorf("no free port: %v %v %v", err1, err2, err3)
	}
	etcdURL, peerURL := fmt.Sprintf("http://127.0.0.1:%d", cp), fmt.Sprintf("http://127.0.0.1:%d", pp)
	if err := e.run("etcd", etcd, "--name=t", "--data-dir="+filepath.Join(e.dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=t="+peerURL, "--unsafe-no-fsync", "--log-level=warn"); err != nil {
		return err
	}
	if err := wait(nil, etcdURL+"/health", "", 30*time.Second); err != nil {
		return fmt.Errorf("etcd not healthy: %v\n%s", err, e.logTail("etcd"))
	}
	ca, cert, key, err := serving()
	if err != nil {
		return err
	}
	sa, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	saDER, _ := x509.MarshalECPrivateKey(sa)
	tb := make([]byte, 16)
	_, _ = rand.Read(tb)
	token := hex.EncodeToString(tb)
	p := func(n string) string { return filepath.Join(e.dir, n) }
	for n, b := range map[string][]byte{
		"ca.crt": ca, "srv.crt": cert, "srv.key": key,
		"sa.key":     pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: saDER}),
		"tokens.csv": fmt.Appendf(nil, "%s,admin,admin,\"system:masters\"\n", token),
	} {
		if err := os.WriteFile(p(n), b, 0o600); err != nil {
			return err
		}
	}
	if err := e.run("kube-apiserver", apiserver, "--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", sp),
		"--tls-cert-file="+p("srv.crt"), "--tls-private-key-file="+p("srv.key"), "--cert-dir="+p("certs"),
		"--token-auth-file="+p("tokens.csv"), "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+p("sa.key"), "--service-account-signing-key-file="+p("sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24", "--endpoint-reconciler-type=none", "--profiling=false"); err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	base := fmt.Sprintf("https://127.0.0.1:%d", sp)
	if err := wait(&tls.Config{RootCAs: pool}, base+"/readyz", token, 120*time.Second); err != nil {
		return fmt.Errorf("kube-apiserver not ready: %v\n%s", err, e.logTail("kube-apiserver"))
	}
	e.Kubeconfig = p("kubeconfig")
	kc := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: t\n  cluster:\n    server: %s\n    certificate-authority-data: %s\nusers:\n- name: admin\n  user:\n    token: %s\ncontexts:\n- name: t\n  context: {cluster: t, user: admin}\ncurrent-context: t\n",
		base, base64.StdEncoding.EncodeToString(ca), token)
	if err := os.WriteFile(e.Kubeconfig, []byte(kc), 0o600); err != nil {
		return err
	}
	cfg, err := e.Flags().ToRESTConfig()
	if err != nil {
		return err
	}
	e.Client, err = kubernetes.NewForConfig(cfg)
	return err
}

func wait(tc *tls.Config, url, token string, timeout time.Duration) error {
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}
	var last error
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s: %s", url, resp.Status)
		}
		last = err
	}
	return last
}

// serving returns a throwaway CA and a 127.0.0.1 serving certificate it
// signed, so clients verify TLS as they would against a real cluster.
func serving() (caPEM, certPEM, keyPEM []byte, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	now := time.Now()
	caT := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "crash-test-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caT, caT, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	caCert, _ := x509.ParseCertificate(caDER)
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	srvT := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, srvT, caCert, &k.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	kd, _ := x509.MarshalECPrivateKey(k)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), nil
}
