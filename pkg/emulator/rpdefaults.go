package emulator

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// serviceDefaults is the one table of values services fill in when a
// request leaves them out, by lower-cased type (QuirksCorpus; QuirksNone
// stores what it is sent). The
// corpus profile (profile.go) adds what the recorded round trips showed on
// top of it; this table holds what is documented or recorded elsewhere,
// with its source per entry. A value is set only where the body has none,
// and a replace keeps the value the resource already had.
var serviceDefaults = map[string][]serviceDefault{
	// Encryption at rest is always on and cannot be turned off; a new
	// account answers Microsoft-managed keys for blob and file (Microsoft
	// Learn "Azure Storage encryption for data at rest"; every storage
	// account GET of the azure-cli-extensions recordings has it).
	"microsoft.storage/storageaccounts": {
		{"properties.encryption.keySource", constant("Microsoft.Storage")},
		{"properties.encryption.services.blob", storageEncryptionService},
		{"properties.encryption.services.file", storageEncryptionService},
	},
	// Service Bus entities: the defaults of the RP's model, as the
	// Service Bus REST reference ("Queues - Create Or Update", "Topics -
	// Create Or Update", "Subscriptions - Create Or Update") answers a
	// create with an empty properties object. TimeSpan.MaxValue is what
	// "never" is.
	"microsoft.servicebus/namespaces/queues": {
		{"properties.lockDuration", constant("PT1M")},
		{"properties.maxSizeInMegabytes", number(1024)},
		{"properties.requiresDuplicateDetection", constant(false)},
		{"properties.requiresSession", constant(false)},
		{"properties.defaultMessageTimeToLive", constant(timeSpanMax)},
		{"properties.deadLetteringOnMessageExpiration", constant(false)},
		{"properties.duplicateDetectionHistoryTimeWindow", constant("PT10M")},
		{"properties.maxDeliveryCount", number(10)},
		{"properties.enableBatchedOperations", constant(true)},
		{"properties.autoDeleteOnIdle", constant(timeSpanMax)},
		{"properties.enablePartitioning", constant(false)},
		{"properties.enableExpress", constant(false)},
		{"properties.status", constant("Active")},
		{"properties.messageCount", number(0)},
		{"properties.sizeInBytes", number(0)},
	},
	"microsoft.servicebus/namespaces/topics": {
		{"properties.defaultMessageTimeToLive", constant(timeSpanMax)},
		{"properties.maxSizeInMegabytes", number(1024)},
		{"properties.requiresDuplicateDetection", constant(false)},
		{"properties.duplicateDetectionHistoryTimeWindow", constant("PT10M")},
		{"properties.enableBatchedOperations", constant(true)},
		{"properties.status", constant("Active")},
		{"properties.supportOrdering", constant(true)},
		{"properties.autoDeleteOnIdle", constant(timeSpanMax)},
		{"properties.enablePartitioning", constant(false)},
		{"properties.enableExpress", constant(false)},
		{"properties.sizeInBytes", number(0)},
		{"properties.subscriptionCount", number(0)},
	},
	"microsoft.servicebus/namespaces/topics/subscriptions": {
		{"properties.lockDuration", constant("PT1M")},
		{"properties.requiresSession", constant(false)},
		{"properties.defaultMessageTimeToLive", constant(timeSpanMax)},
		{"properties.deadLetteringOnFilterEvaluationExceptions", constant(true)},
		{"properties.deadLetteringOnMessageExpiration", constant(false)},
		{"properties.maxDeliveryCount", number(10)},
		{"properties.status", constant("Active")},
		{"properties.enableBatchedOperations", constant(true)},
		{"properties.autoDeleteOnIdle", constant(timeSpanMax)},
		{"properties.isClientAffine", constant(false)},
		{"properties.messageCount", number(0)},
	},
	// An event hub lists its partitions "0".."partitionCount-1" (Event Hubs
	// REST "Event Hubs - Get": partitionIds).
	"microsoft.eventhub/namespaces/eventhubs": {
		{"properties.partitionIds", eventHubPartitionIDs},
		{"properties.status", constant("Active")},
	},
	// A probe sent without them answers a 15-second interval and two
	// probes (Microsoft.Network REST "Load Balancer Probes - Get" example;
	// Microsoft Learn "Load Balancer health probes": interval 15 s).
	"microsoft.network/loadbalancers": {
		{"properties.probes[].properties.intervalInSeconds", number(15)},
		{"properties.probes[].properties.numberOfProbes", number(2)},
	},
	"microsoft.network/loadbalancers/probes": {
		{"properties.intervalInSeconds", number(15)},
		{"properties.numberOfProbes", number(2)},
	},
	// An assignment answers its scope and when it was made (Authorization
	// REST "Role Assignments - Get", 2022-04-01: scope, createdOn).
	"microsoft.authorization/roleassignments": {
		{"properties.scope", assignmentScope},
		{"properties.createdOn", createdNow},
	},
	// A service endpoint answers the regions it covers: the network's and
	// its pair for Storage, the network's for SQL (Microsoft Learn
	// "Configure virtual network service endpoints": Microsoft.Storage in
	// eastus lists eastus and westus, Microsoft.Sql eastus; in the EUAP
	// canary regions Storage answers "*", as an azure-cli-extensions
	// recording, elastic-san in eastus2euap, shows). Other services are
	// left as sent, for want of evidence.
	"microsoft.network/virtualnetworks": {
		{"properties.subnets[].properties.serviceEndpoints[].locations", endpointLocations},
	},
	subnetType: {
		{"properties.serviceEndpoints[].locations", endpointLocations},
	},
	// A link is usable once created (Private DNS REST "Virtual Network
	// Links - Get": virtualNetworkLinkState Completed; registrationEnabled
	// defaults to false).
	"microsoft.network/privatednszones/virtualnetworklinks": {
		{"properties.registrationEnabled", constant(false)},
		{"properties.virtualNetworkLinkState", constant("Completed")},
	},
}

// timeSpanMax is .NET's TimeSpan.MaxValue as Service Bus writes it: the
// "never" of its TTL and auto-delete settings.
const timeSpanMax = "P10675199DT2H48M5.4775807S"

// serviceDefault is one path a service fills and how it computes the value.
// A path's "[]" segment means every item of that array (not created when
// missing); other missing objects on the way are created.
type serviceDefault struct {
	path  string
	value func(c fillCtx) any
}

// fillCtx is what a default may depend on: the resource and the object the
// value goes into.
type fillCtx struct {
	id       string
	location string // the resource's, or its nearest parent's
	body     map[string]any
	obj      map[string]any
	now      time.Time
}

func constant(v any) func(fillCtx) any { return func(fillCtx) any { return v } }
func number(i int) func(fillCtx) any   { return func(fillCtx) any { return jsonNum(i) } }

func endpointLocations(c fillCtx) any {
	loc := LocationKey(c.location)
	if loc == "" {
		return nil
	}
	switch strings.ToLower(str0(c.obj["service"])) {
	case "microsoft.storage":
		if strings.HasSuffix(loc, "euap") {
			return []any{"*"} // recorded in eastus2euap (elastic-san tests)
		}
		if pair := pairedRegion(loc); pair != "" {
			return []any{loc, pair}
		}
		return []any{loc}
	case "microsoft.sql":
		return []any{loc}
	}
	return nil
}

func createdNow(c fillCtx) any { return c.now.UTC().Format(time.RFC3339Nano) }

func assignmentScope(c fillCtx) any {
	if p, ok := armid.ParsePath(c.id); ok && p.Scope != "" {
		return p.Scope
	}
	return nil
}

func storageEncryptionService(c fillCtx) any {
	return map[string]any{"enabled": true, "keyType": "Account", "lastEnabledTime": c.now.UTC().Format(time.RFC3339Nano)}
}

// eventHubPartitionIDs is nil (nothing set) without a partitionCount.
func eventHubPartitionIDs(c fillCtx) any {
	n, err := strconv.Atoi(strings.TrimSpace(toText(c.obj["partitionCount"])))
	if err != nil || n <= 0 {
		return nil
	}
	ids := make([]any, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	return ids
}

// toText is a scalar's text ("4" for 4 and "4").
func toText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// applyServiceDefaults fills body (the live body of a resource of type typ)
// from serviceDefaults, taking the value prev had where prev has one.
func applyServiceDefaults(id, typ, location string, body, prev map[string]any, now time.Time) {
	for _, d := range serviceDefaults[strings.ToLower(typ)] {
		segs := strings.Split(d.path, ".")
		var old any
		if prev != nil && !strings.Contains(d.path, "[]") {
			old, _ = getPath(prev, segs)
		}
		fillPath(body, segs, func(obj map[string]any) any {
			if old != nil {
				return deepCopy(old)
			}
			return d.value(fillCtx{id: id, location: location, body: body, obj: obj, now: now})
		})
	}
	fillStorageSecondary(typ, body)
}

// fillPath sets the last segment of segs under obj where it is missing.
func fillPath(obj map[string]any, segs []string, value func(obj map[string]any) any) {
	key := segs[0]
	if arr, ok := strings.CutSuffix(key, "[]"); ok {
		items, _ := obj[arr].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok && len(segs) > 1 {
				fillPath(m, segs[1:], value)
			}
		}
		return
	}
	if len(segs) == 1 {
		if _, has := obj[key]; !has {
			if v := value(obj); v != nil {
				obj[key] = v
			}
		}
		return
	}
	next, ok := obj[key].(map[string]any)
	if !ok {
		if _, has := obj[key]; has {
			return // a value of another shape is the client's to keep
		}
		next = map[string]any{}
		obj[key] = next
	}
	fillPath(next, segs[1:], value)
}

func getPath(obj map[string]any, segs []string) (any, bool) {
	var cur any = obj
	for _, s := range segs {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[s]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// ownsDefault reports whether the table has path for typ: the table's
// rule then replaces what the corpus profile recorded for it.
func ownsDefault(typ, path string) bool {
	for _, d := range serviceDefaults[strings.ToLower(typ)] {
		if d.path == path {
			return true
		}
	}
	return false
}

// locationOf is body's location, else that of the nearest parent of id
// that has one. Caller holds s.mu.
func (s *Server) locationOf(id string, body map[string]any) string {
	if loc := str0(body["location"]); loc != "" {
		return loc
	}
	for p, ok := armid.ParsePath(id); ok && len(p.Names) > 1; p, ok = armid.ParsePath(p.ParentID()) {
		if r := s.store.get(p.ParentID()); r != nil {
			if loc := str0(r.Body["location"]); loc != "" {
				return loc
			}
		}
	}
	return ""
}
