package reconcile

// The status of Resource objects: what the loop's snapshot says of each
// resource, written to its object's status subresource in the terms
// kstatus reads (observedGeneration; Ready, Reconciling, Stalled), so
// `kubectl wait --for=condition=Ready`, Flux and Argo CD need nothing of
// their own.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Condition types of a Resource object.
const (
	ConditionReady       = "Ready"
	ConditionReconciling = "Reconciling"
	ConditionStalled     = "Stalled"
	ConditionDrifted     = "Drifted"
)

// Reasons of the conditions.
const (
	ReasonInSync          = "InSync"
	ReasonInvalid         = "InvalidManifest"
	ReasonWaitingForSet   = "WaitingForValidSet"
	ReasonLoading         = "Loading"
	ReasonPending         = "Pending"
	ReasonApplying        = "Applying"
	ReasonDriftDetected   = "DriftDetected"
	ReasonNoDrift         = "NoDrift"
	ReasonContested       = "Contested"
	ReasonUnconvergeable  = "Unconvergeable"
	ReasonRetrying        = "Retrying"
	ReasonProvisioning    = "Provisioning"
	ReasonProvisionFailed = "ProvisioningFailed"
	ReasonNotStalled      = "NotStalled"
	ReasonNotReconciling  = "Idle"
	// ReasonExists and ReasonNotFound are the Ready reasons of a resource
	// the set only reads (azure.kubectl.io/existing).
	ReasonExists          = "Exists"
	ReasonNotFound        = "NotFound"
	maxConditionMessage   = 1024
	defaultStatusInterval = 2 * time.Second
	// defaultObservedRefresh bounds how stale lastObserved may get: a
	// sweep alone changes nothing else, and writing it every sweep would
	// be one write per object per sweep.
	defaultObservedRefresh = 10 * time.Minute
)

// States of an existing (read-only) resource in its object's status.
const (
	StateRead   = "read"
	StateAbsent = "absent"
)

// metaPatchOptions names the controller as the manager of status fields.
var metaPatchOptions = metav1.PatchOptions{FieldManager: "kubectl-azure-controller"}

// Condition is one entry of status.conditions.
type Condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
	LastTransitionTime string `json:"lastTransitionTime,omitempty"`
}

// ObjectStatus is a Resource object's status.
type ObjectStatus struct {
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	ID                 string `json:"id,omitempty"`
	ProvisioningState  string `json:"provisioningState,omitempty"`
	State              string `json:"state,omitempty"`
	LastApplied        string `json:"lastApplied,omitempty"`
	LastObserved       string `json:"lastObserved,omitempty"`
	// Outputs are the values other manifests reference (${ref:NAME.PATH}),
	// read from the live body; never a secret.
	Outputs map[string]any `json:"outputs,omitempty"`
	// History is the loop's contest counting of the resource, kept here
	// so a new leader or a restarted pod goes on counting (contest.go).
	History    *ObjectHistory `json:"history,omitempty"`
	Conditions []Condition    `json:"conditions,omitempty"`
}

// ObjectHistory is what the status keeps of a resource's corrections.
type ObjectHistory struct {
	// Corrections counts every write that undid drift.
	Corrections int `json:"corrections,omitempty"`
	// Contested counts the times the resource was found contested;
	// ContestedUntil is when a contested one is looked at again.
	Contested      int    `json:"contested,omitempty"`
	ContestedUntil string `json:"contestedUntil,omitempty"`
	// Recent are the corrections inside the contest window.
	Recent []CorrectionRecord `json:"recent,omitempty"`
	// Unconvergeable is the verdict that Azure does not keep the
	// manifest's value, while it stands.
	Unconvergeable *StuckHistory `json:"unconvergeable,omitempty"`
}

// StuckHistory is an unconvergeable verdict: the fingerprint of the
// manifest it was reached under and the paths Azure keeps its value at.
type StuckHistory struct {
	Manifest string   `json:"manifest"`
	Paths    []string `json:"paths,omitempty"`
}

// historyOf is rs's history for the status; nil when there is none.
func historyOf(rs ResourceStatus) *ObjectHistory {
	h := &ObjectHistory{Corrections: rs.Corrections}
	if rs.Contest != nil {
		h.Contested, h.Recent = rs.Contest.Contested, rs.Contest.Corrections
	}
	if rs.Until != nil {
		h.ContestedUntil = rs.Until.UTC().Format(time.RFC3339)
	}
	h.Unconvergeable = stuckHistory(rs)
	if h.Corrections == 0 && h.Contested == 0 && len(h.Recent) == 0 && h.ContestedUntil == "" && h.Unconvergeable == nil {
		return nil
	}
	return h
}

// History is the status the objects hold, as an earlier term left it, for
// Controller.History.
func (k *KubeStatus) History() *Status {
	objs, err := k.Source.Objects()
	if err != nil {
		return nil
	}
	prev := &Status{Set: k.Controller.Engine.Set}
	for _, o := range objs {
		st := currentStatus(o)
		if st.History == nil || st.ID == "" {
			continue
		}
		h := st.History
		rs := ResourceStatus{ID: st.ID, State: st.State, Corrections: h.Corrections,
			Contest: &ContestRecord{Contested: h.Contested, Corrections: h.Recent}}
		if u, err := time.Parse(time.RFC3339, h.ContestedUntil); err == nil {
			rs.Until = &u
		}
		if h.Unconvergeable != nil {
			rs.StuckManifest, rs.Changes = h.Unconvergeable.Manifest, h.Unconvergeable.changesOf()
		}
		for _, c := range st.Conditions {
			if c.Type == ConditionStalled && c.Status == "True" {
				rs.Message = c.Message
			}
		}
		prev.Resources = append(prev.Resources, rs)
	}
	return prev
}

// KubeStatus writes the status of a KubeSource's objects from a
// Controller's snapshot. A write is sent only when the status changed
// (or lastObserved is older than Refresh), so a steady state costs no
// write at all.
type KubeStatus struct {
	Client     dynamic.Interface
	Source     *KubeSource
	Controller *Controller
	// Store gives lastApplied (the record's update time).
	Store state.Store
	// Interval between passes; Refresh bounds lastObserved's age. Zero:
	// the defaults above.
	Interval, Refresh time.Duration
	// Secrets scrubs the messages: an object's status is readable by
	// whoever reads the object. Give it the loop's registry (Controller.Secrets).
	Secrets *secret.Registry
	// OnError receives failed writes (nil: dropped; the next pass retries).
	OnError func(error)
	Now     func() time.Time
	// Instance names this replica in the Events it posts.
	Instance string

	mu        sync.Mutex
	written   map[string]string // object name -> hash of the status last written
	deletions map[string]*deletionTry
	writes    atomic.Int64
}

// Writes counts the status writes sent.
func (k *KubeStatus) Writes() int64 { return k.writes.Load() }

// Run writes statuses every Interval until ctx ends.
func (k *KubeStatus) Run(ctx context.Context) {
	iv := k.Interval
	if iv <= 0 {
		iv = defaultStatusInterval
	}
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		if err := k.Sync(ctx); err != nil && ctx.Err() == nil && k.OnError != nil {
			k.OnError(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (k *KubeStatus) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

// statusWorkers are the objects a pass writes at once: a write is a
// round trip to the API server, and a first sync writes every object
// twice (its finalizer, its status). With 8, 10,000 objects were bound
// by the round trips' latency on a busy API server, well under the
// client's own QPS limit (KubeQPS), which is what bounds them now.
const statusWorkers = 32

// Sync writes every object's status that changed. Deleted objects are
// finalized one at a time (deletion.go serialises on the state lock
// anyway); the others are written statusWorkers at a time.
func (k *KubeStatus) Sync(ctx context.Context) error {
	if !k.Controller.Leader() {
		return nil // a standby knows nothing yet; the leader writes
	}
	objs, err := k.Source.Objects()
	if err != nil {
		return err
	}
	in := k.inputs()
	var mu sync.Mutex
	var errs []string
	fail := func(o *unstructured.Unstructured, err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, fmt.Sprintf("%s: %v", k.Source.Origin(o.GetName()), err))
	}
	work := make(chan *unstructured.Unstructured)
	var wg sync.WaitGroup
	for range statusWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range work {
				if err := k.syncLive(ctx, o, in); err != nil {
					fail(o, err)
				}
			}
		}()
	}
	for _, o := range objs {
		if ctx.Err() != nil {
			break
		}
		if !deleting(o) {
			work <- o
			continue
		}
		if hasFinalizer(o) {
			if err := k.finalize(ctx, o); err != nil {
				fail(o, err)
			}
		}
	}
	close(work)
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if len(errs) > 0 {
		return fmt.Errorf("writing status: %s", strings.Join(errs, "; "))
	}
	return nil
}

// statusInputs is what one pass reads from the loop.
type statusInputs struct {
	set      *manifest.Set
	loadedAt time.Time // when set was read: older observations judged an older set
	srcErr   error
	problems map[string][]Problem // by origin
	byOrigin map[string]*manifest.Resource
	// existing are the set's read-only resources (azure.kubectl.io/existing), by origin.
	existing map[string]*manifest.Resource
	byID     map[string]ResourceStatus // lower-cased ID
	// applied is when each record was last written, by lower-cased ID;
	// listed on first use (appliedAt).
	appliedOnce sync.Once
	applied     map[string]string
}

func (k *KubeStatus) inputs() *statusInputs {
	snap := k.Controller.Snapshot()
	set, loadedAt, srcErr := k.Controller.Reflector.Current()
	in := &statusInputs{set: set, loadedAt: loadedAt, srcErr: srcErr, problems: map[string][]Problem{}, byOrigin: map[string]*manifest.Resource{}, byID: map[string]ResourceStatus{}}
	for _, p := range Problems(srcErr) {
		in.problems[p.File] = append(in.problems[p.File], p)
	}
	if set != nil {
		for _, r := range set.Resources {
			in.byOrigin[r.Origin.File] = r
		}
		for _, r := range set.Existing {
			if in.existing == nil {
				in.existing = map[string]*manifest.Resource{}
			}
			in.existing[r.Origin.File] = r
		}
	}
	if obs := k.Controller.ObservedSet(); obs != nil {
		// A deferred name the loop has computed since.
		for _, r := range obs.Resources {
			if was := in.byOrigin[r.Origin.File]; was != nil && was.NameDeferred != nil && r.NameDeferred == nil {
				in.byOrigin[r.Origin.File] = r
			}
		}
	}
	for _, r := range snap.Resources {
		in.byID[strings.ToLower(r.ID)] = r
	}
	return in
}

// syncLive makes sure a live object has the finalizer and writes its
// status.
func (k *KubeStatus) syncLive(ctx context.Context, o *unstructured.Unstructured, in *statusInputs) error {
	if err := k.ensureFinalizer(ctx, o); err != nil {
		return err
	}
	return k.syncOne(ctx, o, in)
}

func (k *KubeStatus) syncOne(ctx context.Context, o *unstructured.Unstructured, in *statusInputs) error {
	prev := currentStatus(o)
	st := k.desired(ctx, o, in, prev)
	scrubStatus(&st, k.Secrets)
	keepTransitions(&st, prev)
	h := statusHash(st)
	k.mu.Lock()
	same := k.written[o.GetName()] == h
	k.mu.Unlock()
	if !same && statusHash(prev) == h && !k.stale(prev) {
		same = true // as stored, e.g. by the term before this one
	}
	if same && !k.stale(prev) {
		return nil
	}
	if len(prev.Conditions) == 0 && waiting(st) {
		// No status reads as in progress already (kstatus): a new object
		// costs one write, when the loop has judged it, not two.
		return nil
	}
	st.LastObserved = orKeep(st.LastObserved, prev.LastObserved)
	return k.patchStatus(ctx, o, st, h)
}

// waiting: st only says the loop has not judged the object yet.
func waiting(st ObjectStatus) bool {
	for _, c := range st.Conditions {
		if c.Type == ConditionReady {
			return c.Reason == ReasonPending || c.Reason == ReasonLoading
		}
	}
	return false
}

// patchStatus writes st as o's status and remembers its hash h.
func (k *KubeStatus) patchStatus(ctx context.Context, o *unstructured.Unstructured, st ObjectStatus, h string) error {
	body, err := statusPatch(o, st)
	if err != nil {
		return err
	}
	k.writes.Add(1)
	if _, err := k.Client.Resource(ResourceGVR).Namespace(o.GetNamespace()).Patch(ctx, o.GetName(), types.MergePatchType, body, metaPatchOptions, "status"); err != nil {
		return err
	}
	k.mu.Lock()
	if k.written == nil {
		k.written = map[string]string{}
	}
	k.written[o.GetName()] = h
	k.mu.Unlock()
	return nil
}

// statusPatch is the merge patch that makes o's status st. A merge patch
// leaves alone what it does not name, so a field st no longer has (an
// ended verdict in history, outputs no longer read) is named as null:
// otherwise it would stay in the status, and a later term would read it.
func statusPatch(o *unstructured.Unstructured, st ObjectStatus) ([]byte, error) {
	raw, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	var want map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		return nil, err
	}
	if old, ok := o.Object["status"].(map[string]any); ok {
		nullRemoved(old, want)
	}
	return json.Marshal(map[string]any{"status": want})
}

// nullRemoved sets to null in want every key old has and want has not,
// through the objects both have (lists are replaced whole by a merge
// patch).
func nullRemoved(old, want map[string]any) {
	for k, ov := range old {
		wv, ok := want[k]
		if !ok {
			want[k] = nil
			continue
		}
		om, oIsMap := ov.(map[string]any)
		wm, wIsMap := wv.(map[string]any)
		if oIsMap && wIsMap {
			nullRemoved(om, wm)
		}
	}
}

func orKeep(v, old string) string {
	if v == "" {
		return old
	}
	return v
}

// stale: lastObserved was written longer than Refresh ago.
func (k *KubeStatus) stale(prev ObjectStatus) bool {
	if prev.LastObserved == "" {
		return false
	}
	t, err := time.Parse(time.RFC3339, prev.LastObserved)
	refresh := k.Refresh
	if refresh <= 0 {
		refresh = defaultObservedRefresh
	}
	return err == nil && k.now().Sub(t) > refresh
}

// statusHash covers everything but lastObserved, which every sweep moves.
func statusHash(st ObjectStatus) string {
	st.LastObserved = ""
	b, _ := json.Marshal(st)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func currentStatus(o *unstructured.Unstructured) ObjectStatus {
	var st ObjectStatus
	if raw, ok := o.Object["status"]; ok {
		if b, err := json.Marshal(raw); err == nil {
			_ = json.Unmarshal(b, &st)
		}
	}
	return st
}

// scrubStatus replaces every secret value the registry knows in the
// conditions' messages.
func scrubStatus(st *ObjectStatus, reg *secret.Registry) {
	if reg == nil {
		return
	}
	for i := range st.Conditions {
		st.Conditions[i].Message = reg.Scrub(st.Conditions[i].Message)
	}
}

// keepTransitions keeps a condition's lastTransitionTime while its status
// stays the same.
func keepTransitions(st *ObjectStatus, prev ObjectStatus) {
	for i := range st.Conditions {
		c := &st.Conditions[i]
		for _, p := range prev.Conditions {
			if p.Type == c.Type && p.Status == c.Status && p.LastTransitionTime != "" {
				c.LastTransitionTime = p.LastTransitionTime
			}
		}
	}
}

// desired is the status o should have now.
func (k *KubeStatus) desired(ctx context.Context, o *unstructured.Unstructured, in *statusInputs, prev ObjectStatus) ObjectStatus {
	name, gen, origin := o.GetName(), o.GetGeneration(), k.Source.Origin(o.GetName())
	v := verdict{gen: gen, now: k.now().UTC().Format(time.RFC3339)}
	st := ObjectStatus{ObservedGeneration: prev.ObservedGeneration, ID: prev.ID, LastApplied: prev.LastApplied}
	loaded, read := k.Source.LoadedGeneration(name)
	good, inGood := k.Source.GoodGeneration(in.set, name)
	switch {
	case len(in.problems[origin]) > 0 && read && loaded == gen:
		st.ObservedGeneration = gen
		st.Conditions = v.stalled(ReasonInvalid, problemText(in.problems[origin]))
	case in.srcErr != nil && (!inGood || good != gen):
		st.Conditions = v.reconciling(ReasonWaitingForSet, "another manifest of the set is invalid, so this change waits: "+oneLine(in.srcErr))
	case !inGood || good != gen:
		st.Conditions = v.reconciling(ReasonLoading, "reading the new manifest")
	case in.existing[origin] != nil && in.byOrigin[origin] == nil:
		st.ObservedGeneration = gen
		k.fromExisting(&st, &v, in, in.existing[origin], prev)
	default:
		st.ObservedGeneration = gen
		k.fromLoop(ctx, &st, &v, in, in.byOrigin[origin], prev)
	}
	return st
}

// fromExisting fills st for a resource the set only reads: Ready once
// read (its ID, provisioning state and the values the set reads from it),
// Stalled while it is absent, since nothing here creates it. The loop
// never writes it, so it has no drift and no history.
func (k *KubeStatus) fromExisting(st *ObjectStatus, v *verdict, in *statusInputs, r *manifest.Resource, prev ObjectStatus) {
	read, ok := k.Controller.ExistingOf(r.ID)
	changed := prev.ObservedGeneration != v.gen
	switch {
	case !ok && !changed && len(prev.Conditions) > 0:
		*st = prev // not read yet this term: the last term's word stands
		return
	case !ok || (changed && read.At.Before(in.loadedAt)):
		st.ObservedGeneration = prev.ObservedGeneration
		st.Conditions = v.reconciling(ReasonPending, "waiting for the controller to read this resource")
		return
	}
	st.ID, st.LastObserved = r.ID, read.At.UTC().Format(time.RFC3339)
	if !read.Exists {
		st.State = StateAbsent
		st.Conditions = v.stalled(ReasonNotFound, fmt.Sprintf("%s/%s is annotated %s: true, but it does not exist in Azure, so the set's plans are refused and nothing is written: create it in Azure, or remove the annotation and give it a spec.body so this set creates it",
			r.Type, r.Name, manifest.AnnotationExisting))
		return
	}
	st.State = StateRead
	if out, ok := k.Controller.OutputsOf(r.ID); ok {
		st.ProvisioningState, st.Outputs = out.ProvisioningState, out.Values
	}
	st.Conditions = v.readyAs(ReasonExists, "read from Azure; this set only reads it ("+manifest.AnnotationExisting+") and never writes it")
}

// fromLoop fills st from the loop's view of the object's resource.
func (k *KubeStatus) fromLoop(ctx context.Context, st *ObjectStatus, v *verdict, in *statusInputs, r *manifest.Resource, prev ObjectStatus) {
	var rs ResourceStatus
	found := false
	if r != nil && r.ID != "" && r.NameDeferred == nil {
		// A name not computed yet has no ID to observe it under.
		rs, found = in.byID[strings.ToLower(r.ID)]
	}
	// An observation older than the set judged the object's previous
	// generation when the object changed since it was last written;
	// otherwise the manifest is the same and so is the verdict.
	changed := prev.ObservedGeneration != v.gen
	switch {
	case !found && !changed && len(prev.Conditions) > 0:
		// Not observed yet this term (a restart, a new leader): what the
		// last term wrote of this generation stands, so a restart costs
		// no status write.
		*st = prev
		return
	case !found || (changed && rs.LastObserved.Before(in.loadedAt)):
		// observedGeneration stays behind generation until the loop
		// has judged this one: kstatus reads that as in progress.
		st.ObservedGeneration = prev.ObservedGeneration
		st.Conditions = v.reconciling(ReasonPending, "waiting for the controller to observe this manifest")
		return
	}
	st.ID, st.State, st.History = rs.ID, rs.State, historyOf(rs)
	out, read := k.Controller.OutputsOf(rs.ID)
	if read {
		st.ProvisioningState, st.Outputs = out.ProvisioningState, out.Values
	}
	if !rs.LastObserved.IsZero() {
		st.LastObserved = rs.LastObserved.UTC().Format(time.RFC3339)
	}
	drift := driftPaths(rs.Changes)
	switch rs.State {
	case StateInSync:
		if !read {
			// Judged from the write's answer; Ready waits for the read
			// that gives its provisioning state and outputs, so the
			// status moves once, not twice.
			st.Conditions = v.reconciling(ReasonProvisioning, "reading it back from Azure")
			break
		}
		st.Conditions = v.readyWhenProvisioned(st.ProvisioningState)
		if prev.LastApplied == "" || prev.State != StateInSync {
			st.LastApplied = orKeep(k.appliedAt(ctx, in, rs.ID), prev.LastApplied)
		}
	case StateDrifted:
		st.Conditions = v.notReady(ReasonDriftDetected, orText(rs.Message, "changed in Azure outside this tool"), false, false)
	case StateCorrecting:
		st.Conditions = v.reconcilingDrift(ReasonApplying, orText(rs.Message, "applying the manifest"), drift != "")
	case StateContested:
		st.Conditions = v.notReady(ReasonContested, orText(rs.Message, "someone else keeps writing "+drift), true, true)
	case StateUnconvergeable:
		st.Conditions = v.notReady(ReasonUnconvergeable, orText(rs.Message, "Azure does not keep the manifest's value"), true, drift != "")
	default:
		st.Conditions = v.reconcilingDrift(ReasonRetrying, orText(rs.Message, "the last write failed; retrying"), drift != "")
	}
	if drift != "" {
		setCondition(st.Conditions, ConditionDrifted, "True", ReasonDriftDetected, "changed outside this tool: "+drift)
	}
}

// appliedAt is when the state record of id was last written. The
// records are listed once per pass, and only when an object needs one:
// a Get per object would read the whole local state file each time.
func (k *KubeStatus) appliedAt(ctx context.Context, in *statusInputs, id string) string {
	if k.Store == nil {
		return ""
	}
	in.appliedOnce.Do(func() {
		in.applied = map[string]string{}
		recs, err := k.Store.List(ctx)
		if err != nil {
			return
		}
		for _, r := range recs {
			if !r.Updated.IsZero() {
				in.applied[strings.ToLower(r.ID)] = r.Updated.UTC().Format(time.RFC3339)
			}
		}
	})
	return in.applied[strings.ToLower(id)]
}

// driftPaths lists the paths of the drift among changes (paths only:
// values may be secrets).
func driftPaths(cs []plan.Change) string {
	var ps []string
	for _, c := range cs {
		if c.Cause == plan.CauseDrift {
			ps = append(ps, c.Path)
		}
	}
	sort.Strings(ps)
	return strings.Join(ps, ", ")
}

func problemText(ps []Problem) string {
	var parts []string
	for _, p := range ps {
		s := p.Message
		if p.Path != "" {
			s = p.Path + ": " + s
		}
		if p.Line > 0 {
			s = fmt.Sprintf("line %d: %s", p.Line, s)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func orText(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// verdict builds the four conditions of one pass.
type verdict struct {
	gen int64
	now string
}

func (v verdict) cond(typ string, on bool, reason, msg string) Condition {
	s := "False"
	if on {
		s = "True"
	}
	if len(msg) > maxConditionMessage {
		msg = msg[:maxConditionMessage-3] + "..."
	}
	return Condition{Type: typ, Status: s, ObservedGeneration: v.gen, Reason: reason, Message: msg, LastTransitionTime: v.now}
}

func (v verdict) ready() []Condition { return v.readyAs(ReasonInSync, "Azure matches the manifest") }

func (v verdict) readyAs(reason, msg string) []Condition {
	return []Condition{v.cond(ConditionReady, true, reason, msg),
		v.cond(ConditionReconciling, false, ReasonNotReconciling, ""), v.cond(ConditionStalled, false, ReasonNotStalled, ""),
		v.cond(ConditionDrifted, false, ReasonNoDrift, "")}
}

// readyWhenProvisioned: the manifest matches Azure, and the resource is
// ready once its provider says its provisioning ended well. Until then it
// is in progress (kstatus reads Reconciling), so `kubectl wait` does not
// return for a resource Azure is still creating; a failed provisioning is
// not Ready.
func (v verdict) readyWhenProvisioned(state string) []Condition {
	switch strings.ToLower(state) {
	case "", "succeeded":
		return v.ready()
	case "failed", "canceled":
		return v.notReady(ReasonProvisionFailed, "Azure reports provisioningState "+state+" although its body matches the manifest", false, false)
	}
	return v.reconciling(ReasonProvisioning, "Azure is still provisioning it (provisioningState "+state+")")
}

func (v verdict) reconciling(reason, msg string) []Condition {
	return v.reconcilingDrift(reason, msg, false)
}

func (v verdict) reconcilingDrift(reason, msg string, drift bool) []Condition {
	dr := ReasonNoDrift
	if drift {
		dr = ReasonDriftDetected
	}
	return []Condition{v.cond(ConditionReady, false, reason, msg), v.cond(ConditionReconciling, true, reason, msg),
		v.cond(ConditionStalled, false, ReasonNotStalled, ""), v.cond(ConditionDrifted, drift, dr, "")}
}

func (v verdict) stalled(reason, msg string) []Condition {
	return v.notReady(reason, msg, true, false)
}

// notReady: the loop does not (or cannot) write; stalled when a person
// must act.
func (v verdict) notReady(reason, msg string, stalled, drift bool) []Condition {
	sr := ReasonNotStalled
	if stalled {
		sr = reason
	}
	dr := ReasonNoDrift
	if drift || reason == ReasonDriftDetected {
		dr, drift = ReasonDriftDetected, true
	}
	return []Condition{v.cond(ConditionReady, false, reason, msg), v.cond(ConditionReconciling, false, ReasonNotReconciling, ""),
		v.cond(ConditionStalled, stalled, sr, msgIf(stalled, msg)), v.cond(ConditionDrifted, drift, dr, "")}
}

func msgIf(on bool, msg string) string {
	if on {
		return msg
	}
	return ""
}

func setCondition(cs []Condition, typ, status, reason, msg string) {
	for i := range cs {
		if cs[i].Type == typ {
			cs[i].Status, cs[i].Reason, cs[i].Message = status, reason, msg
		}
	}
}
