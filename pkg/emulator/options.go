package emulator

import (
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// QuirksMode selects how much of real ARM's behaviour the emulator imitates.
type QuirksMode string

const (
	// QuirksCorpus applies the per-type profile learned from recorded ARM
	// traffic: server-added fields, normalised values, dropped secrets,
	// reordered arrays, create-only violations.
	QuirksCorpus QuirksMode = "corpus"
	// QuirksNone gives a plain server: GET returns what was PUT plus the
	// envelope fields every ARM resource has (id, name, type, etag,
	// systemData, provisioningState). ARM's own rules still hold (locks,
	// readonly input ignored, write-only values hidden, validation).
	QuirksNone QuirksMode = "none"
)

// PatchMode says what PATCH does for a resource type.
type PatchMode string

const (
	PatchFull     PatchMode = "full"   // JSON merge patch on the whole body
	PatchTagsOnly PatchMode = "tags"   // only "tags" is applied; other keys are ignored, as many RPs do
	PatchAbsent   PatchMode = "absent" // 405 MethodNotAllowed
)

// Bucket is one token bucket: Size tokens, refilled at Refill tokens per
// second. A zero Size disables the bucket.
type Bucket struct {
	Size   float64 `json:"size"`
	Refill float64 `json:"refill"`
}

// ThrottleOptions configures ARM's per-subscription token buckets.
type ThrottleOptions struct {
	Enabled bool   `json:"enabled"`
	Reads   Bucket `json:"reads"`
	Writes  Bucket `json:"writes"`
	Deletes Bucket `json:"deletes"`
}

// FaultOptions are probabilities (0..1) applied to every ARM request
// (admin and token endpoints are never faulted).
type FaultOptions struct {
	// Status maps an HTTP status (500, 503, ...) to the share of requests
	// answered with it.
	Status map[int]float64 `json:"status,omitempty"`
	// Reset is the share of requests whose TCP connection is reset
	// without any response.
	Reset float64 `json:"reset,omitempty"`
	// LROFailure is the share of long-running operations that end Failed.
	LROFailure float64 `json:"lroFailure,omitempty"`
	// LostOperation is the share of long-running operations the endpoint
	// loses, as ARM's front end does when it restarts with operations in
	// flight: every poll of a lost operation answers 404
	// OperationNotFound, while the work itself goes on and the resource
	// reaches its final state on schedule (a GET shows it).
	// Server.ForgetOperations and POST /_emulator/operations/forget lose
	// every operation in flight at once.
	LostOperation float64 `json:"lostOperation,omitempty"`
}

// SchemaSource answers what the ARM specs say about a type. *schema.Registry
// satisfies it; tests may pass a fake.
type SchemaSource interface {
	Lookup(typ, apiVersion string) (*schema.Type, schema.Resolution)
}

// Options configures a Server. Obtain it from DefaultOptions and change
// fields; the arm-emulator flags fill the same struct.
type Options struct {
	// Addr is the listen address. Start uses 127.0.0.1:0 when empty.
	Addr string `json:"addr,omitempty"`

	Throttle ThrottleOptions `json:"throttle"`

	// Latency is the mean delay added to every ARM request; the actual
	// delay is uniform in [0.5, 1.5] × mean. LatencyByMethod overrides it
	// per HTTP method ("GET", "PUT", ...).
	Latency         time.Duration            `json:"latency"`
	LatencyByMethod map[string]time.Duration `json:"latencyByMethod,omitempty"`

	// LRODuration is how long a long-running operation stays InProgress.
	// LROByType overrides it per resource type (case-insensitive keys).
	LRODuration time.Duration            `json:"lro"`
	LROByType   map[string]time.Duration `json:"lroByType,omitempty"`
	Quirks      QuirksMode               `json:"quirks"`

	Faults FaultOptions `json:"faults"`

	// PatchModes overrides, per resource type (case-insensitive), what
	// PATCH does. Types not listed use the schema, then PatchFull.
	PatchModes map[string]PatchMode `json:"patchModes,omitempty"`

	// Schema supplies create-only properties, secrets, PATCH support and
	// which operations are long-running. Nil means: none known.
	Schema SchemaSource `json:"-"`

	// Profile overrides the embedded corpus profile (used by tests).
	Profile *Profile `json:"-"`

	// TLSCertDir, when set, makes the server speak HTTPS with a
	// self-signed certificate for 127.0.0.1/localhost written there as
	// cert.pem and key.pem.
	TLSCertDir string `json:"tlsCertDir,omitempty"`

	// PageSize, when positive, is how many items every list page holds
	// before a nextLink; 0 pages each list as ARM does for its type
	// (pagesize.go: 1,000 for the generic lists, 100 by default).
	PageSize int `json:"pageSize,omitempty"`

	// NoParentLocks turns off the per-parent write serialisation of
	// Microsoft.Network (409 AnotherOperationInProgress while a sibling
	// write under the same parent is in flight).
	NoParentLocks bool `json:"noParentLocks,omitempty"`

	// SkipReferenceCheck accepts bodies that point at resources this
	// emulator never saw, for replays of recorded traffic whose referenced
	// resources were created by other means. ARM itself refuses them.
	SkipReferenceCheck bool `json:"skipReferenceCheck,omitempty"`

	// CacheLag, when positive, makes the generic lists (GET
	// .../resources of a subscription or resource group) answer from a
	// cache that lags writes by this long, as ARM's cache of tracked
	// resources does: each resource is listed as it was CacheLag ago
	// (cachelag.go). GETs and the per-type lists never lag. 0: no lag.
	CacheLag time.Duration `json:"cacheLag,omitempty"`

	// Seed makes jitter and fault injection reproducible. Zero means
	// seeded from the clock.
	Seed int64 `json:"seed,omitempty"`

	// Now replaces the clock (tests).
	Now func() time.Time `json:"-"`
}

// defaultThrottle is ARM's current token buckets per subscription.
var defaultThrottle = ThrottleOptions{
	Enabled: true,
	Reads:   Bucket{Size: 250, Refill: 25},
	Writes:  Bucket{Size: 200, Refill: 10},
	Deletes: Bucket{Size: 200, Refill: 10},
}

// DefaultOptions returns the emulator's defaults: ARM's current token
// buckets (reads 250 + 25/s, writes 200 + 10/s, deletes 200 + 10/s), no
// added latency, 2 s long-running operations, the corpus quirks, no faults,
// and the embedded schema when one is linked in.
func DefaultOptions() Options {
	return Options{
		Throttle:    defaultThrottle,
		LRODuration: 2 * time.Second,
		Quirks:      QuirksCorpus,
		Schema:      defaultSchema(),
	}
}

// lroDuration returns the operation length for a type.
func (o *Options) lroDuration(typ string) time.Duration {
	for k, v := range o.LROByType {
		if strings.EqualFold(k, typ) {
			return v
		}
	}
	return o.LRODuration
}
