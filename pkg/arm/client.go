package arm

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"golang.org/x/sync/semaphore"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Client talks to ARM. It is safe for concurrent use.
type Client struct {
	opts     Options
	endpoint *url.URL
	pl       runtime.Pipeline
	// authenticated is false for the loopback plain-HTTP dev mode.
	authenticated bool

	stats   *statsCollector
	pacer   *pacer
	slots   *semaphore.Weighted
	noPatch sync.Map // lower-cased resource type -> true
	// noSubLists: lower-cased types whose subscription-wide list held
	// none of several existing members on this endpoint.
	noSubLists sync.Map
	// noGenericLists: lower-cased types the generic resource list held
	// none of several existing members of.
	noGenericLists sync.Map
	// pageSizes: lower-cased type -> items per page its lists came in.
	pageSizes sync.Map
	// listSizes: subscription-wide list (armid.Key) -> items it holds
	// (at least), as the last read of it saw.
	listSizes sync.Map
	// postRetry replaces the retry options for POST requests.
	postRetry policy.RetryOptions
}

// New builds a Client. It validates the endpoint (https, or plain http to
// a loopback emulator) and builds the credential, but makes no network call.
func New(opts Options) (*Client, error) {
	def := DefaultOptions()
	if opts.Concurrency <= 0 {
		opts.Concurrency = def.Concurrency
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = def.PollInterval
	}
	if opts.MaxPollInterval <= 0 {
		opts.MaxPollInterval = def.MaxPollInterval
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = def.MaxResponseBytes
	}
	if opts.Version == "" {
		opts.Version = def.Version
	}
	// Zero means "default" so a partly filled Options still works;
	// a negative MaxRetries turns retries off.
	if opts.MaxRetries == 0 {
		opts.MaxRetries = def.MaxRetries
	}
	if opts.Secrets == nil {
		opts.Secrets = secret.NewRegistry()
	}
	for _, b := range []struct{ got, def *Bucket }{{&opts.Reads, &def.Reads}, {&opts.Writes, &def.Writes}, {&opts.Deletes, &def.Deletes}} {
		if b.got.Size <= 0 {
			b.got.Size = b.def.Size
		}
		if b.got.Refill <= 0 {
			b.got.Refill = b.def.Refill
		}
	}
	cfg, err := cloudConfig(opts.Cloud)
	if err != nil {
		return nil, err
	}
	rm := cfg.Services[cloud.ResourceManager]

	raw := opts.Endpoint
	if raw == "" {
		raw = rm.Endpoint
	}
	ep, needCred, err := checkEndpoint(raw)
	if err != nil {
		return nil, err
	}

	c := &Client{
		opts:          opts,
		endpoint:      ep,
		authenticated: needCred,
		stats:         newStatsCollector(),
		slots:         semaphore.NewWeighted(int64(opts.Concurrency)),
	}
	c.pacer = newPacer(opts, c.stats)

	// The wait check comes first after azcore's retry policy, so that an
	// absurd Retry-After reaches neither the retry loop nor the pacer.
	perRetry := []policy.Policy{&waitPolicy{c: c}}
	// Pacing before the slot: a request waiting for a write token must not
	// hold a slot that a read (an LRO poll) could use.
	perRetry = append(perRetry, &pacingPolicy{p: c.pacer, enabled: opts.Pacing}, &slotPolicy{slots: c.slots})
	if needCred {
		cred := opts.Credential
		if cred == nil {
			cred, err = newCredential(opts, cfg)
			if err != nil {
				return nil, err
			}
		}
		// Token failures become AuthError: a few lines that say to log in.
		cred = hintCredential{inner: cred, mode: opts.Auth}
		bearer := runtime.NewBearerTokenPolicy(cred, []string{audience(rm.Audience) + "/.default"}, nil)
		perRetry = append(perRetry, &authOnlyOrigin{c: c, inner: bearer})
	}
	// The attempt logger and counters sit last so they see the request as
	// sent (with the Authorization header, which they redact) and time the
	// network round-trip only, not pacing waits.
	perRetry = append(perRetry, &attemptPolicy{c: c})

	co := &policy.ClientOptions{
		Retry: policy.RetryOptions{
			MaxRetries:    int32(opts.MaxRetries),
			RetryDelay:    opts.RetryDelay,
			MaxRetryDelay: opts.MaxRetryDelay,
			TryTimeout:    opts.TryTimeout,
		},
		// azcore's telemetry policy would prepend its own product token;
		// the User-Agent is set by userAgentPolicy instead.
		Telemetry: policy.TelemetryOptions{Disabled: true},
		Cloud:     cfg,
	}
	if opts.MaxRetries < 0 {
		co.Retry.MaxRetries = -1
	}
	// PUT, PATCH (merge) and DELETE are idempotent in ARM, so every
	// method is retried on 408/429/5xx and connection errors. A POST
	// action (regenerateKey, restart) may have run before a 5xx or a
	// reset, so it is only retried on 429, which ARM's gateway answers
	// before the request reaches the resource provider.
	co.Retry.ShouldRetry = shouldRetry
	c.postRetry = co.Retry
	c.postRetry.ShouldRetry = shouldRetryPost
	// Redirects are handled by redirectPolicy, never by http.Client.
	if opts.HTTPClient != nil {
		co.Transport = withoutRedirects(opts.HTTPClient)
	} else {
		co.Transport = defaultHTTPClient(opts.Concurrency)
	}
	co.Transport = limitTransport{inner: co.Transport, limit: opts.MaxResponseBytes}
	c.pl = runtime.NewPipeline("kubectl-azure", opts.Version, runtime.PipelineOptions{
		// The origin check comes after the redirect policy so that it
		// sees every redirect target too.
		PerCall:  []policy.Policy{&userAgentPolicy{ua: "kubectl-azure/" + opts.Version}, &callPolicy{c: c}, &redirectPolicy{c: c}, &originPolicy{c: c}},
		PerRetry: perRetry,
	}, co)
	return c, nil
}

// Endpoint returns the ARM endpoint in use, without a trailing slash.
func (c *Client) Endpoint() string { return strings.TrimRight(c.endpoint.String(), "/") }

// Authenticated is false when the client talks to a loopback plain-HTTP
// endpoint without a credential.
func (c *Client) Authenticated() bool { return c.authenticated }

func audience(a string) string { return strings.TrimRight(a, "/") }

func cloudConfig(name string) (cloud.Configuration, error) {
	switch strings.ToLower(name) {
	case "", CloudPublic, "azurepublic", "azurecloud":
		return cloud.AzurePublic, nil
	case CloudChina, "azurechina", "azurechinacloud":
		return cloud.AzureChina, nil
	case CloudUSGov, "azuregovernment", "azureusgovernment", "usgovernment":
		return cloud.AzureGovernment, nil
	}
	return cloud.Configuration{}, fmt.Errorf("unknown cloud %q: use public, china or usgov", name)
}

// checkEndpoint enforces the endpoint rule: https uses the credential; plain http
// is only allowed to a loopback host, and then no credential is sent (a
// bearer token must never cross the network in clear, and a local emulator
// has no tenant to get one from).
func checkEndpoint(raw string) (*url.URL, bool, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return nil, false, fmt.Errorf("invalid ARM endpoint %q: want https://host or http://127.0.0.1:port", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, false, fmt.Errorf("invalid ARM endpoint %q: no query, fragment or user info allowed", raw)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	switch strings.ToLower(u.Scheme) {
	case "https":
		return u, true, nil
	case "http":
		if isLoopback(u.Hostname()) {
			return u, false, nil
		}
		return nil, false, fmt.Errorf("refusing plain-HTTP ARM endpoint %q: only loopback hosts (127.0.0.0/8, ::1, localhost) may be used without TLS, and they get no credential; use https:// for any other host", raw)
	}
	return nil, false, fmt.Errorf("invalid ARM endpoint %q: scheme must be https (or http for a loopback emulator)", raw)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func newCredential(opts Options, cfg cloud.Configuration) (azcore.TokenCredential, error) {
	if opts.AuthorityHost != "" {
		u, err := url.Parse(opts.AuthorityHost)
		if err != nil || !strings.EqualFold(u.Scheme, "https") {
			return nil, fmt.Errorf("invalid authority host %q: must be an https URL", opts.AuthorityHost)
		}
		cfg.ActiveDirectoryAuthorityHost = opts.AuthorityHost
	}
	co := policy.ClientOptions{Cloud: cfg}
	if opts.HTTPClient != nil {
		co.Transport = opts.HTTPClient
	}
	// A custom authority (tests, air-gapped clouds) cannot answer Entra's
	// instance discovery, which only knows Microsoft's hosts.
	disco := opts.AuthorityHost != ""

	switch strings.ToLower(opts.Auth) {
	case "", AuthDefault:
		return azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{
			ClientOptions: co, TenantID: opts.TenantID, DisableInstanceDiscovery: disco,
		})
	case AuthCLI:
		return azidentity.NewAzureCLICredential(&azidentity.AzureCLICredentialOptions{TenantID: opts.TenantID})
	case AuthEnv:
		return azidentity.NewEnvironmentCredential(&azidentity.EnvironmentCredentialOptions{
			ClientOptions: co, DisableInstanceDiscovery: disco,
		})
	case AuthWorkloadIdentity:
		return azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{
			ClientOptions: co, ClientID: opts.ClientID, TenantID: opts.TenantID, DisableInstanceDiscovery: disco,
		})
	case AuthManagedIdentity:
		mo := &azidentity.ManagedIdentityCredentialOptions{ClientOptions: co}
		if opts.ClientID != "" {
			mo.ID = azidentity.ClientID(opts.ClientID)
		}
		return azidentity.NewManagedIdentityCredential(mo)
	case AuthClientSecret:
		// Flags win; the environment variables every Azure tool reads
		// fill what the flags left empty.
		if opts.TenantID == "" {
			opts.TenantID = os.Getenv("AZURE_TENANT_ID")
		}
		if opts.ClientID == "" {
			opts.ClientID = os.Getenv("AZURE_CLIENT_ID")
		}
		if opts.ClientSecret == "" {
			opts.ClientSecret = os.Getenv("AZURE_CLIENT_SECRET")
		}
		var missing []string
		if opts.TenantID == "" {
			missing = append(missing, "tenant ID (AZURE_TENANT_ID)")
		}
		if opts.ClientID == "" {
			missing = append(missing, "client ID (AZURE_CLIENT_ID)")
		}
		if opts.ClientSecret == "" {
			missing = append(missing, "client secret (AZURE_CLIENT_SECRET)")
		}
		if len(missing) > 0 {
			return nil, errors.New("--auth=client-secret needs " + strings.Join(missing, ", "))
		}
		return azidentity.NewClientSecretCredential(opts.TenantID, opts.ClientID, opts.ClientSecret,
			&azidentity.ClientSecretCredentialOptions{ClientOptions: co, DisableInstanceDiscovery: disco})
	}
	return nil, fmt.Errorf("unknown auth mode %q: use default, cli, env, workload-identity, managed-identity or client-secret", opts.Auth)
}

// defaultHTTPClient is Go's default transport (proxy from the
// environment, HTTP/2 to ARM) with enough idle connections for
// Concurrency requests to one host: over HTTP/1.1 (the emulator, some
// proxies) a smaller idle pool closes and redials connections all run long.
func defaultHTTPClient(concurrency int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = concurrency
	if t.MaxIdleConns < concurrency {
		t.MaxIdleConns = concurrency
	}
	t.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: t, CheckRedirect: noRedirects}
}

// Concurrency is the bound on in-flight requests; the apply engine sizes
// its worker pool with it.
func (c *Client) Concurrency() int { return c.opts.Concurrency }
