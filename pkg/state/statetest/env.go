// Package statetest runs a real etcd and kube-apiserver on loopback for
// tests of the Kubernetes state backend, here and in packages that use it
// (pkg/apply's crash tests): the binaries come from hack/testenv/setup.sh.
//
//	func TestMain(m *testing.M) { code := m.Run(); statetest.StopShared(); os.Exit(code) }
//	func TestX(t *testing.T) {
//		env := statetest.Shared(t)            // skips, or fails under KUBECTL_AZURE_REQUIRE_TESTENV=1
//		ns := env.NewNamespace(t)
//		st, _ := state.Open(ctx, "kubernetes://"+ns+"/set", state.Options{KubeConfig: env.ConfigFlags()})
//		// CLI runs: --state kubernetes://NS/set --kubeconfig env.Kubeconfig
//	}
package statetest

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

// Variables naming the binaries (printed by hack/testenv/setup.sh), and the
// one that turns a missing test environment from a skip into a failure.
const (
	EnvAPIServer = "KUBECTL_AZURE_TEST_APISERVER"
	EnvEtcd      = "KUBECTL_AZURE_TEST_ETCD"
	EnvRequire   = "KUBECTL_AZURE_REQUIRE_TESTENV"
)

// Env is a running etcd + kube-apiserver.
type Env struct {
	Dir         string // certs, kubeconfig, etcd data and logs; removed by Stop
	EtcdDataDir string // every byte etcd stores, for leak scans
	Kubeconfig  string // admin kubeconfig (token auth, verified TLS)
	Clientset   kubernetes.Interface
	procs       []*exec.Cmd
}

var (
	sharedOnce sync.Once
	shared     *Env
	sharedErr  error
)

// ConfigFlags returns kubeconfig flags pointing at this Env, as the CLI
// would build them from --kubeconfig.
func (e *Env) ConfigFlags() genericclioptions.RESTClientGetter { return ConfigFlags(e.Kubeconfig) }

// ConfigFlags returns kubeconfig flags for the kubeconfig file at path.
func ConfigFlags(path string) genericclioptions.RESTClientGetter {
	f := genericclioptions.NewConfigFlags(false)
	f.KubeConfig = &path
	return f
}

// binary finds a testenv binary: the variable setup.sh prints, else
// setup.sh's default cache.
func binary(envVar, name string) (string, error) {
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

// Shared returns the Env shared by all tests of this test binary, starting
// it on first use. When it cannot run it skips t, or fails t when
// KUBECTL_AZURE_REQUIRE_TESTENV=1. Call StopShared from TestMain.
func Shared(t testing.TB) *Env {
	t.Helper()
	sharedOnce.Do(func() {
		shared, sharedErr = Start()
	})
	if sharedErr != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s=1 but the test kube-apiserver is unavailable: %v", EnvRequire, sharedErr)
		}
		t.Skipf("Kubernetes backend tests skipped: %v", sharedErr)
	}
	return shared
}

// StopShared stops the shared Env, if one was started.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}

// Stop stops the servers and removes Dir.
func (e *Env) Stop() {
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
	e.procs = nil
	_ = os.RemoveAll(e.Dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start starts a new etcd and kube-apiserver; on error the returned Env (if
// any) still needs Stop.
func Start() (*Env, error) {
	apiserver, err := binary(EnvAPIServer, "kube-apiserver")
	if err != nil {
		return nil, err
	}
	etcd, err := binary(EnvEtcd, "etcd")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "kubectl-azure-testenv-")
	if err != nil {
		return nil, err
	}
	e := &Env{Dir: dir, EtcdDataDir: filepath.Join(dir, "etcd")}
	ok := false
	defer func() {
		if !ok { // a half-started Env leaves no servers or files behind
			e.Stop()
		}
	}()
	started := time.Now()

	clientPort, _ := freePort()
	peerPort, _ := freePort()
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	if err := e.start("etcd", etcd,
		"--name=test", "--data-dir="+e.EtcdDataDir,
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
	tb := make([]byte, 16)
	_, _ = rand.Read(tb)
	token := fmt.Sprintf("%x", tb)
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

	e.Kubeconfig = p("kubeconfig")
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
	if err := os.WriteFile(e.Kubeconfig, []byte(kc), 0o600); err != nil {
		return nil, err
	}
	cfg, err := ConfigFlags(e.Kubeconfig).ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 200, 400
	if e.Clientset, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "testenv: etcd and kube-apiserver ready in %s\n", time.Since(started).Round(100*time.Millisecond))
	ok = true
	return e, nil
}

func (e *Env) start(name, bin string, args ...string) error {
	log, err := os.Create(filepath.Join(e.Dir, name+".log"))
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

func (e *Env) tail(name string) string {
	b, _ := os.ReadFile(filepath.Join(e.Dir, name+".log"))
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

// NewNamespace gives a test its own namespace.
func (e *Env) NewNamespace(t testing.TB) string {
	t.Helper()
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	name := fmt.Sprintf("t-%x", b)
	_, err := e.Clientset.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return name
}
