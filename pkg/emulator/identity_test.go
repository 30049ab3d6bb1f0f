package emulator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	armruntime "github.com/Azure/azure-sdk-for-go/sdk/azcore/arm/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

// TestAzureSDKOverTLS authenticates with azidentity's client-secret
// credential against the emulator's token endpoint over its self-signed
// TLS, then drives an ARM pipeline and an azcore LRO poller through it.
func TestAzureSDKOverTLS(t *testing.T) {
	dir := t.TempDir()
	s := startTest(t, func(o *Options) { o.TLSCertDir = dir; o.Schema = testSchema{} })
	if !strings.HasPrefix(s.URL(), "https://") {
		t.Fatalf("URL %s is not https", s.URL())
	}
	pem, err := os.ReadFile(filepath.Join(dir, CertFile))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("cert.pem holds no certificate")
	}
	tr := &http.Transport{}
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	client := &http.Client{Transport: tr}
	cfg := cloud.Configuration{
		ActiveDirectoryAuthorityHost: s.URL() + "/",
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: s.URL(), Audience: "https://management.azure.com"},
		},
	}
	cred, err := azidentity.NewClientSecretCredential("tenant1", "client1", "secret", &azidentity.ClientSecretCredentialOptions{
		ClientOptions:            azcore.ClientOptions{Cloud: cfg, Transport: client},
		DisableInstanceDiscovery: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tok, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{"https://management.azure.com/.default"}})
	if err != nil || tok.Token == "" {
		t.Fatalf("GetToken: %v", err)
	}

	pl, err := armruntime.NewPipeline("emulatortest", "v0", cred, runtime.PipelineOptions{}, &arm.ClientOptions{ClientOptions: azcore.ClientOptions{Cloud: cfg, Transport: client}})
	if err != nil {
		t.Fatal(err)
	}
	put := func(path string, body any) *http.Response {
		req, err := runtime.NewRequest(ctx, http.MethodPut, s.URL()+path)
		if err != nil {
			t.Fatal(err)
		}
		if err := runtime.MarshalAsJSON(req, body); err != nil {
			t.Fatal(err)
		}
		resp, err := pl.Do(req)
		if err != nil {
			t.Fatalf("PUT %s: %v", path, err)
		}
		return resp
	}
	sub := "/subscriptions/" + testSub
	if r := put(sub+"/resourceGroups/rg?api-version=2021-04-01", map[string]any{"location": "westus"}); r.StatusCode != 201 {
		t.Fatalf("PUT group: %d", r.StatusCode)
	}
	resp := put(sub+"/resourceGroups/rg/providers/Microsoft.Test/widgets/w?api-version=2021-04-01", map[string]any{"location": "westus", "properties": map[string]any{"mode": "x"}})
	poller, err := runtime.NewPoller[map[string]any](resp, pl, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := poller.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: 10 * time.Millisecond})
	if err != nil {
		t.Fatalf("PollUntilDone: %v", err)
	}
	props, _ := out["properties"].(map[string]any)
	if props["provisioningState"] != "Succeeded" {
		t.Fatalf("LRO result: %v", out)
	}
	if st := s.Stats(); st.Requests["POLL"] == 0 || st.Requests["PUT"] != 2 {
		t.Fatalf("stats %+v", st)
	}
}
