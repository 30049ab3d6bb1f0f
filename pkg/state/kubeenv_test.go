package state

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
)

// A real etcd and kube-apiserver on loopback, started once per test binary
// from the binaries hack/testenv/setup.sh builds. Without them the
// Kubernetes tests skip, unless KUBECTL_AZURE_REQUIRE_TESTENV=1 (CI), where
// they fail.

const (
	envAPIServer = "KUBECTL_AZURE_TEST_APISERVER"
	envEtcd      = "KUBECTL_AZURE_TEST_ETCD"
	envRequire   = "KUBECTL_AZURE_REQUIRE_TESTENV"
)

type testEnv struct {
	dir        string // holds certs, kubeconfig, etcd data and logs
	etcdData   string
	kubeconfig string
	cs         kubernetes.Interface
	procs      []*exec.Cmd
}

var (
	envOnce sync.Once
	theEnv  *testEnv
	envErr  error
)

func kubeConfigFlags(path string) genericclioptions.RESTClientGetter {
	f := genericclioptions.NewConfigFlags(false)
	f.KubeConfig = &path
	return f
}

// testBinary finds a testenv binary: the variable setup.sh prints, else
// setup.sh's default cache.
func testBinary(envVar, name string) (string, error) {
	p := os.Getenv(envVar)
	if p == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		p = filepath.Join(cache, "kubectl-azure", "testenv", "bin", name)
	}
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		return "", fmt.Errorf("%s not found at %s (set %s, or run: eval \"$(hack/testenv/setup.sh)\")", name, p, envVar)
	}
	return p, nil
}

func requireEnv(t *testing.T) *testEnv {
	t.Helper()
	envOnce.Do(func() { theEnv, envErr = startTestEnv() })
	if envErr != nil {
		if os.Getenv(envRequire) == "1" {
			t.Fatalf("%s=1 but the test kube-apiserver is unavailable: %v", envRequire, envErr)
		}
		t.Skipf("Kubernetes backend tests skipped: %v", envErr)
	}
	return theEnv
}

func stopTestEnv() {
	if theEnv == nil {
		return
	}
	for i := len(theEnv.procs) - 1; i >= 0; i-- {
		p := theEnv.procs[i]
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
	_ = os.RemoveAll(theEnv.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startTestEnv() (*testEnv, error) {
	apiserver, err := testBinary(envAPIServer, "kube-apiserver")
	if err != nil {
		return nil, err
	}
	etcd, err := testBinary(envEtcd, "etcd")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "kubectl-azure-testenv-")
	if err != nil {
		return nil, err
	}
	e := &testEnv{dir: dir, etcdData: filepath.Join(dir, "etcd")}
	theEnv = e // so stopTestEnv cleans up after a failed start too
	started := time.Now()

	clientPort, _ := freePort()
	peerPort, _ := freePort()
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	if err := e.start("etcd", etcd,
		"--name=test", "--data-dir="+e.etcdData,
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=test="+peerURL,
		// Test data is thrown away: skip fsync, the slowest part of etcd on CI disks.
		"--unsafe-no-fsync", "--log-level=warn",
	); err != nil {
		return nil, err
	}
	if err := waitHTTP(nil, etcdURL+"/health", "", 30*time.Second); err != nil {
		return nil, fmt.Errorf("etcd did not become healthy: %v (log: %s)", err, e.tail("etcd"))
	}

	caPEM, certPEM, keyPEM, err := selfSignedServing()
	if err != nil {
		return nil, err
	}
	saKey, err := ecKeyPEM()
	if err != nil {
		return nil, err
	}
	token := randomHex(16)
	files := map[string][]byte{
		"ca.crt": caPEM, "apiserver.crt": certPEM, "apiserver.key": keyPEM, "sa.key": saKey,
		"tokens.csv": fmt.Appendf(nil, "%s,admin,admin-uid,\"system:masters\"\n", token),
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o600); err != nil {
			return nil, err
		}
	}
	port, _ := freePort()
	p := func(n string) string { return filepath.Join(dir, n) }
	if err := e.start("kube-apiserver", apiserver,
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", port),
		"--tls-cert-file="+p("apiserver.crt"), "--tls-private-key-file="+p("apiserver.key"),
		"--cert-dir="+p("certs"),
		"--token-auth-file="+p("tokens.csv"), "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+p("sa.key"), "--service-account-signing-key-file="+p("sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--endpoint-reconciler-type=none", "--profiling=false",
	); err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	base := fmt.Sprintf("https://127.0.0.1:%d", port)
	if err := waitHTTP(&tls.Config{RootCAs: pool}, base+"/readyz", token, 120*time.Second); err != nil {
		return nil, fmt.Errorf("kube-apiserver did not become ready: %v (log: %s)", err, e.tail("kube-apiserver"))
	}

	e.kubeconfig = p("kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: test
  context: {cluster: test, user: admin}
current-context: test
`, base, base64.StdEncoding.EncodeToString(caPEM), token)
	if err := os.WriteFile(e.kubeconfig, []byte(kc), 0o600); err != nil {
		return nil, err
	}
	cfg, err := kubeConfigFlags(e.kubeconfig).ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 200, 400
	if e.cs, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "testenv: etcd and kube-apiserver ready in %s\n", time.Since(started).Round(100*time.Millisecond))
	return e, nil
}

func (e *testEnv) start(name, bin string, args ...string) error {
	log, err := os.Create(filepath.Join(e.dir, name+".log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	e.procs = append(e.procs, cmd)
	return nil
}

func (e *testEnv) tail(name string) string {
	b, _ := os.ReadFile(filepath.Join(e.dir, name+".log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(b))
}

func waitHTTP(tlsCfg *tls.Config, url, token string, timeout time.Duration) error {
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsCfg}}
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
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
		time.Sleep(200 * time.Millisecond)
	}
	return last
}

func ecKeyPEM() ([]byte, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// selfSignedServing makes a throwaway CA and a serving certificate for
// 127.0.0.1 signed by it, so the client verifies TLS as it would for real.
func selfSignedServing() (caPEM, certPEM, keyPEM []byte, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubectl-azure-test-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, ca, &srvKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	srvKeyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		return nil, nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: srvKeyDER}), nil
}

// newNamespace gives a test its own namespace on the shared apiserver.
func newNamespace(t *testing.T, e *testEnv) string {
	t.Helper()
	name := "t-" + randomHex(5)
	_, err := e.cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return name
}

func openKubeT(t *testing.T, e *testEnv, ns, set string, opts Options) Store {
	t.Helper()
	opts.KubeConfig = kubeConfigFlags(e.kubeconfig)
	if opts.LockPoll == 0 {
		opts.LockPoll = 50 * time.Millisecond
	}
	st, err := Open(context.Background(), KubernetesScheme+ns+"/"+set, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
