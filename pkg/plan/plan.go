// Package plan is the plan data model: plain data produced by pkg/apply and
// rendered by pkg/printer. Its JSON form is a public contract (docs/architecture.md,
// docs/plan-format.md): extend it, never rename fields.
package plan

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// FormatVersion names the JSON layout documented in docs/plan-format.md.
const FormatVersion = "1"

// Action is what will happen to one resource.
type Action string

const (
	ActionCreate  Action = "create"
	ActionUpdate  Action = "update"
	ActionReplace Action = "replace"
	ActionDelete  Action = "delete"
	ActionAdopt   Action = "adopt" // exists in Azure, not in state
	ActionNoOp    Action = "no-op"
)

// Method is how the write of one resource is sent. Execution decides on
// it; the JSON plan and the printers show its text.
type Method string

// Methods of a write.
const (
	MethodNone    Method = ""           // nothing is sent (no-op, state only)
	MethodPut     Method = "PUT"        // the whole body, built from live
	MethodPatch   Method = "PATCH"      // a JSON merge patch of the changed paths
	MethodDelete  Method = "DELETE"     // the resource goes
	MethodReplace Method = "DELETE+PUT" // deleted, then created again
)

// ChangeKind says whether a path is added, changed or removed.
type ChangeKind string

const (
	KindAdd    ChangeKind = "add"
	KindChange ChangeKind = "change"
	KindRemove ChangeKind = "remove"
)

// Plan is the whole plan for one run.
type Plan struct {
	// FormatVersion identifies this JSON layout; bumped only on breaking change.
	FormatVersion string `json:"formatVersion"`
	Subscription  string `json:"subscription,omitempty"`
	// Subscriptions lists every subscription the plan reads or writes.
	Subscriptions []string `json:"subscriptions,omitempty"`
	// State names where state lives (a path or kubernetes://NS/SET) and Set
	// the manifest set, so a reader knows what prune and delete consider.
	State string `json:"state,omitempty"`
	Set   string `json:"set,omitempty"`
	// RefreshOnly marks a plan of drift only (--refresh-only): applying it
	// records Azure's values as the new baseline and writes nothing to Azure.
	RefreshOnly bool       `json:"refreshOnly,omitempty"`
	Resources   []Resource `json:"resources"`
	Summary     Summary    `json:"summary"`
	Warnings    []string   `json:"warnings,omitempty"`
	// Problems are the findings about the manifests that did not stop the
	// run (severity warning), with file, document, line and path, so CI
	// can show them where they are.
	Problems []Problem `json:"problems,omitempty"`
	// Undeclared lists the IDs of resources recorded in state for this set
	// that the manifests no longer declare, when the plan does not prune:
	// `--prune` would delete them. Sorted.
	Undeclared []string `json:"undeclared,omitempty"`
}

// Severities of a Problem.
const (
	SeverityError   = "error"   // the run stops; nothing is sent to Azure
	SeverityWarning = "warning" // reported; the run goes on (--strict makes schema warnings errors)
)

// Problem is one finding about the input: a manifest problem (file,
// document, line, path) or a plain message (File empty, Document -1).
type Problem struct {
	File string `json:"file,omitempty"`
	// Document is the 0-based YAML document index in File, -1 for none.
	Document int `json:"document"`
	// Line is the 1-based line in File, 0 when unknown.
	Line int    `json:"line,omitempty"`
	Path string `json:"path,omitempty"`
	// Severity is SeverityError or SeverityWarning; empty means error.
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// String is the one-line form: "FILE#DOC (line L): PATH: MESSAGE".
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Document >= 0 {
			b.WriteString("#" + strconv.Itoa(p.Document))
		}
		if p.Line > 0 {
			b.WriteString(" (line " + strconv.Itoa(p.Line) + ")")
		}
		b.WriteString(": ")
	}
	if p.Path != "" {
		b.WriteString(p.Path + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// IsWarning reports whether p lets the run go on.
func (p Problem) IsWarning() bool { return p.Severity == SeverityWarning }

// Resource is the plan for one ARM resource.
type Resource struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	APIVersion string `json:"apiVersion"`
	Action     Action `json:"action"`
	// Method is how the write is sent (MethodNone for a no-op).
	Method  Method   `json:"method,omitempty"`
	Origin  string   `json:"origin,omitempty"` // manifest file#document
	Changes []Change `json:"changes"`
	// Equal lists owned paths judged equal and the rule that made them so (--explain).
	Equal []Equal `json:"equal,omitempty"`
	// Reason explains the action in one sentence (e.g. why replace, why
	// adopt); Why is the same as a value, what code decides on.
	Reason string `json:"reason,omitempty"`
	Why    Reason `json:"-"`
	// LiveEtag and LiveHash pin the live state the plan was computed from,
	// so a saved plan is refused when Azure moved since.
	LiveEtag string `json:"liveEtag,omitempty"`
	LiveHash string `json:"liveHash,omitempty"`
	// DependsOn lists IDs this resource waits for.
	DependsOn []string `json:"dependsOn,omitempty"`
	// Subscription is the subscription the resource lives in.
	Subscription string `json:"subscription,omitempty"`
	// Name is the manifest name (metadata.name), when a manifest declares it.
	Name string `json:"name,omitempty"`
	// NameKnownAfterApply is set when the resource's name (and so the last
	// segment of ID) depends on a value Azure generates during this apply.
	NameKnownAfterApply bool `json:"nameKnownAfterApply,omitempty"`
	// Cascade lists what ARM deletes together with this resource (for a
	// delete or replace of a parent), found by listing its contents.
	Cascade []CascadeItem `json:"cascade,omitempty"`
	// Protected is set for resources annotated prevent-destroy.
	Protected bool `json:"protected,omitempty"`
	// Accepted lists paths where Azure's value differs from the
	// manifest's because apply --refresh-only accepted it: nothing is
	// written for them, and the plan says so rather than staying silent.
	Accepted []string `json:"accepted,omitempty"`
	// Operations is the RFC 6902 patch from live to desired, for tools that
	// consume patches (JSON output only).
	Operations []any `json:"operations,omitempty"`
	// Review lists what a reviewer must check beyond the changes, e.g. the
	// role, principal and scope of a role assignment, also when its name is
	// known after apply. A value known only after apply is its expression.
	Review []ReviewItem `json:"review,omitempty"`
}

// ReviewItem is one labelled fact of Resource.Review.
type ReviewItem struct {
	Label string `json:"label"` // "role", "principal", "scope"
	Value string `json:"value"`
	// Note explains Value, e.g. a built-in role's name.
	Note string `json:"note,omitempty"`
}

// RoleAssignmentReview is the review of a role assignment: its role
// definition (named when it is a common built-in role), principal and
// scope.
func RoleAssignmentReview(role, principal, scope string) []ReviewItem {
	r := ReviewItem{Label: "role", Value: role, Note: BuiltinRoleName(role)}
	return []ReviewItem{r, {Label: "principal", Value: principal}, {Label: "scope", Value: scope}}
}

// BuiltinRoleName names a built-in role from its role definition ID (or
// bare GUID); "" for any other role or an expression.
func BuiltinRoleName(roleDefinitionID string) string {
	name, _ := armid.BuiltinRole(roleDefinitionID)
	return name
}

// CascadeItem is a resource deleted implicitly with its parent.
type CascadeItem struct {
	ID   string `json:"id"`
	Type string `json:"type,omitempty"`
	// Managed says whether a manifest or this state manages it.
	Managed bool `json:"managed"`
	// CreatedByAzure marks a child the service created with its parent
	// (schema.ServerCreated): it needs no consent to go with it.
	CreatedByAzure bool `json:"createdByAzure,omitempty"`
}

// Change is one changed path.
type Change struct {
	Path       string     `json:"path"`
	Before     any        `json:"before"`
	After      any        `json:"after"`
	Reason     string     `json:"reason"`
	Kind       ChangeKind `json:"kind,omitempty"`
	Sensitive  bool       `json:"sensitive,omitempty"`  // values withheld
	CreateOnly bool       `json:"createOnly,omitempty"` // forces replace
	// Cause says why the change is planned. A drift is a change whose
	// cause is CauseDrift; the JSON form also carries "drift": true for
	// readers of the first format version (see MarshalJSON).
	Cause Cause `json:"cause,omitempty"`
	// KnownAfterApply marks an After that depends on a value Azure
	// generates during this apply; After then holds KnownAfterApply.
	KnownAfterApply bool `json:"knownAfterApply,omitempty"`
	// ChildDelete is set when the removed item is itself an ARM child
	// resource (a subnet, a security rule): removing it deletes it.
	ChildDelete bool `json:"childDelete,omitempty"`
	// RulesTried names the normalisation rule families that were tried and
	// did not explain the difference (--explain on a first plan).
	RulesTried []string `json:"rulesTried,omitempty"`
}

// Cause says why a change is planned.
type Cause string

// Causes of a change.
const (
	CauseUser         Cause = "user"          // the manifest changed since the last apply (or first plan)
	CauseDrift        Cause = "drift"         // Azure changed outside this tool
	CauseRemoval      Cause = "removal"       // removed from the manifest; the service decides the value
	CauseDefaultReset Cause = "default-reset" // removed from the manifest; reset to the schema default
	CauseUnverifiable Cause = "unverifiable"  // first plan: the service never returns this value, so it is written once
)

// IsDrift reports whether the change undoes a change made outside this tool.
func (c Change) IsDrift() bool { return c.Cause == CauseDrift }

// MarshalJSON adds "drift": true to a drift change: the first format
// version had that field, and readers of saved plans still look for it.
func (c Change) MarshalJSON() ([]byte, error) {
	type plain Change
	return json.Marshal(struct {
		plain
		Drift bool `json:"drift,omitempty"`
	}{plain(c), c.IsDrift()})
}

// KnownAfterApply is shown in place of a value Azure generates during the apply.
const KnownAfterApply = "(known after apply)"

// Equal is an owned path judged equal, with the rule that made it equal.
type Equal struct {
	Path string `json:"path"`
	Rule string `json:"rule"`
}

// Summary counts resources by action.
type Summary struct {
	Create  int `json:"create"`
	Update  int `json:"update"`
	Replace int `json:"replace"`
	Delete  int `json:"delete"`
	NoOp    int `json:"noop"`
	Adopt   int `json:"adopt"`
	// Interrupted counts resources a killed run wrote but did not record
	// (Reason ReasonInterrupted): found in Azure but not in state like an
	// adopt, yet apply settles them without --adopt.
	Interrupted int `json:"interrupted,omitempty"`
	// Drift counts resources with at least one drift change.
	Drift int `json:"drift,omitempty"`
	// Cascade counts resources deleted implicitly with a deleted parent.
	Cascade int `json:"cascade,omitempty"`
}

// Result is what apply (and delete) print as one document in machine
// formats: the plan that was carried out and what happened to each resource.
type Result struct {
	FormatVersion string           `json:"formatVersion"`
	Plan          *Plan            `json:"plan"`
	Results       []ResourceResult `json:"results"`
	Summary       ResultSummary    `json:"summary"`
}

// Status is where one resource is in an apply: the progress events of a
// running apply and the final statuses of a Result share this vocabulary.
type Status string

// Statuses of a resource. Waiting, writing and polling are seen only while
// an apply runs; a Result holds done, failed or skipped.
const (
	StatusWaiting Status = "waiting" // blocked on dependencies or a worker
	StatusWriting Status = "writing" // PUT/PATCH/DELETE sent
	StatusPolling Status = "polling" // long-running operation in progress
	StatusDone    Status = "done"
	StatusFailed  Status = "failed"
	StatusSkipped Status = "skipped" // not attempted, e.g. a dependency failed
)

// Final reports whether a resource in status s is finished.
func (s Status) Final() bool {
	return s == StatusDone || s == StatusFailed || s == StatusSkipped
}

// ResourceResult is the outcome for one resource.
type ResourceResult struct {
	ID     string `json:"id"`
	Action Action `json:"action"`
	Status Status `json:"status"`
	Error  string `json:"error,omitempty"`
	// Notes carry what the user must know, e.g. a removed property Azure kept.
	Notes []string `json:"notes,omitempty"`
}

// ResultSummary counts outcomes.
type ResultSummary struct {
	Done    int `json:"done"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

// Summarize recomputes p.Summary from p.Resources.
func (p *Plan) Summarize() {
	var s Summary
	// Cascade counts what ARM deletes besides the plan's own deletes, each
	// once: a group's list also names the vnet the plan deletes, and both
	// name the vnet's subnets.
	counted := map[string]bool{}
	for _, r := range p.Resources {
		if r.Action == ActionDelete || r.Action == ActionReplace {
			counted[armid.Key(r.ID)] = true
		}
	}
	for _, r := range p.Resources {
		for _, c := range r.Changes {
			if c.IsDrift() {
				s.Drift++
				break
			}
		}
		for _, c := range r.Cascade {
			if k := armid.Key(c.ID); !counted[k] {
				counted[k] = true
				s.Cascade++
			}
		}
		switch r.Action {
		case ActionCreate:
			s.Create++
		case ActionUpdate:
			s.Update++
		case ActionReplace:
			s.Replace++
		case ActionDelete:
			s.Delete++
		case ActionAdopt:
			if r.Why == ReasonInterrupted {
				s.Interrupted++
			} else {
				s.Adopt++
			}
		default:
			s.NoOp++
		}
	}
	p.Summary = s
}

// HasChanges reports whether applying p would write anything to Azure.
func (p *Plan) HasChanges() bool {
	for _, r := range p.Resources {
		// Contract: changes is empty exactly when nothing would be written.
		if len(r.Changes) > 0 {
			return true
		}
	}
	return false
}
