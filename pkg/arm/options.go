// Package arm is kubectl-azure's client for Azure Resource Manager. It works
// on generic resources addressed by ARM ID + api-version with raw JSON bodies,
// on top of azcore's pipeline (retries, bearer tokens) and pollers
// (long-running operations), and adds what a bulk apply tool needs beyond
// azcore: credentials pinned to the endpoint's host (polling, paging and
// redirect URLs elsewhere are refused; writes never follow redirects),
// exact numbers (json.Number), pacing against ARM's per-subscription token
// buckets, bounded parallelism, collection reads (ReadMany), a memory of
// types that refuse PATCH, redacted request logs and typed errors that tell
// the user what to do. docs/arm-client.md has the rules.
package arm

import (
	"io"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Auth modes accepted in Options.Auth.
const (
	AuthDefault          = "default"
	AuthCLI              = "cli"
	AuthEnv              = "env"
	AuthWorkloadIdentity = "workload-identity"
	AuthManagedIdentity  = "managed-identity"
	AuthClientSecret     = "client-secret"
)

// Cloud names accepted in Options.Cloud.
const (
	CloudPublic = "public"
	CloudChina  = "china"
	CloudUSGov  = "usgov"
)

// DefaultConcurrency bounds how many HTTP requests one Client has in
// flight. Waiting for a long-running operation holds no slot, so the apply
// engine may run more workers than this.
//
// Chosen by measurement (BenchmarkConcurrency in pacing_bench_test.go,
// fake ARM with ARM's default buckets, 2-core machine):
//
//	                         c=4     c=8     c=16    c=32    c=64
//	500 GETs, 100 ms       12.7 s  10.4 s  10.4 s  10.3 s  10.4 s  (ideal 10 s: bucket-bound)
//	same, other client     17.0 s  16.9 s  17.0 s  16.7 s  16.9 s  (ideal 16.7 s: 15 of 25/s left)
//	200 PUTs, 250 ms       12.7 s   6.4 s   3.3 s   2.1 s   1.4 s  (latency-bound burst)
//
// Zero 429s in every cell. Reads are bucket-bound from 8 on. Writes gain
// from more parallelism only while the 200-token burst lasts (after it the
// 10/s refill needs 3 requests in flight). Past 16 the gain is about a
// second per 200-write burst, the client falls behind its own ideal on 2
// cores (1.22x at 32, 1.44x at 64), each unanswered request is a token the
// pacer must assume spent, and an RP's own (unmodelled) throttle sees a
// bigger burst. 16 is the knee.
const DefaultConcurrency = 16

// Bucket models one ARM token bucket: Size tokens, refilled at Refill
// tokens per second.
type Bucket struct {
	Size   float64
	Refill float64
}

// Options configures a Client. DefaultOptions is the only place defaults
// live; the CLI overwrites the fields its flags set.
type Options struct {
	// Version goes into the User-Agent as kubectl-azure/<Version>.
	Version string

	// Endpoint overrides the ARM endpoint of Cloud. Plain HTTP is only
	// accepted for loopback hosts (127.0.0.0/8, ::1, localhost), which
	// are then called without any credential (the local emulator).
	Endpoint string
	// Cloud selects public, china or usgov (azcore/cloud). It decides the
	// ARM endpoint, the token audience and the Entra authority.
	Cloud string

	// Auth picks the credential: default|cli|env|workload-identity|
	// managed-identity|client-secret.
	Auth string
	// TenantID, ClientID and ClientSecret feed the credentials that take
	// them (client-secret needs all three; managed-identity uses
	// ClientID for a user-assigned identity; others pick up AZURE_* env).
	TenantID     string
	ClientID     string
	ClientSecret string
	// AuthorityHost overrides the cloud's Entra authority (a token
	// endpoint served by a test or sovereign setup). Must be https.
	AuthorityHost string
	// Credential, when set, is used instead of building one from Auth.
	Credential azcore.TokenCredential

	// HTTPClient is the transport for ARM and token requests. nil means
	// azcore's default client.
	HTTPClient *http.Client

	// Concurrency bounds in-flight ARM requests for the Client.
	Concurrency int

	// Timeout bounds one whole operation (request, retries and LRO
	// polling). Zero means no bound beyond the caller's context.
	Timeout time.Duration
	// TryTimeout bounds one HTTP attempt.
	TryTimeout time.Duration
	// PollInterval is the LRO polling interval when the service sends no
	// Retry-After; MaxPollInterval caps a service's Retry-After.
	PollInterval    time.Duration
	MaxPollInterval time.Duration

	// MaxRetries for 408/429/5xx and connection errors, with exponential
	// backoff from RetryDelay unless the response carries Retry-After.
	// A 429 or 503 whose Retry-After is longer than MaxRetryDelay, or than
	// what is left of Timeout, is not waited for: it is returned at once
	// as a ThrottledError naming the wait.
	MaxRetries    int
	RetryDelay    time.Duration
	MaxRetryDelay time.Duration

	// MaxResponseBytes bounds one response body; a longer one is an error
	// (ResponseTooLargeError) and is not retried.
	MaxResponseBytes int64

	// Pacing turns on the per-subscription token-bucket model.
	Pacing bool
	// Initial bucket models for reads (GET/HEAD), writes (PUT/PATCH/POST)
	// and deletes. The model then follows
	// x-ms-ratelimit-remaining-subscription-* from every response.
	Reads, Writes, Deletes Bucket
	// OnWait, when set, is told when requests start waiting for ARM's
	// budget (see WaitEvent). It is called from request goroutines and
	// must return quickly.
	OnWait func(WaitEvent)
	// OnRetry, when set, is told once per retry, before the wait that
	// precedes it (see RetryEvent): without it a refused endpoint or a
	// run of 5xx answers is retried for minutes in silence. It is called
	// from request goroutines and must return quickly; RetryNotices keeps
	// parallel requests failing alike to one line.
	OnRetry func(RetryEvent)
	// PacingReserve is the number of tokens the pacer leaves in the
	// modelled bucket for other clients and for model error.
	PacingReserve float64

	// Verbosity follows kubectl's -v: 4 one line per request, 6 adds
	// headers, 8 adds bodies. Secrets are always redacted.
	Verbosity int
	// Log receives request logs; nil discards them.
	Log io.Writer
	// SensitivePaths returns the body paths the schema marks secret for a
	// resource type and api-version ("properties.value",
	// "properties.secrets[*].value", "properties.*"); -v 8 logs hide the
	// values there. nil, or an empty answer, still hides the paths of
	// types known to carry secrets under neutral names (Key Vault
	// secrets, App Service appsettings/connectionstrings).
	SensitivePaths func(resourceType, apiVersion string) []string
	// Secrets is the run's registry: logs and ARM's error messages are
	// scrubbed of its values. New makes an empty one when nil; a run that
	// registers values must pass its own.
	Secrets *secret.Registry
}

// DefaultOptions returns the defaults for every Options field.
func DefaultOptions() Options {
	return Options{
		Version:         "dev",
		Cloud:           CloudPublic,
		Auth:            AuthDefault,
		Concurrency:     DefaultConcurrency,
		Timeout:         60 * time.Minute, // some ARM creates (AKS, APIM) take 30-45 min
		TryTimeout:      2 * time.Minute,
		PollInterval:    5 * time.Second,
		MaxPollInterval: time.Minute,
		MaxRetries:      6,
		RetryDelay:      time.Second,
		// ARM's throttling Retry-After is usually well under a minute;
		// anything longer than this is better surfaced to the user.
		MaxRetryDelay:    2 * time.Minute,
		MaxResponseBytes: DefaultMaxResponseBytes,
		Pacing:           true,
		// ARM's documented per-subscription, per-region token buckets.
		Reads:         Bucket{Size: 250, Refill: 25},
		Writes:        Bucket{Size: 200, Refill: 10},
		Deletes:       Bucket{Size: 200, Refill: 10},
		PacingReserve: 2,
		Verbosity:     0,
	}
}
