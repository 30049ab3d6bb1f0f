// Package plan is the plan data model: plain data produced by pkg/apply and
// rendered by pkg/printer. Its JSON form is a public contract (DESIGN §11,
// docs/plan-format.md): extend it, never rename fields.
package plan

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
	FormatVersion string     `json:"formatVersion"`
	Subscription  string     `json:"subscription,omitempty"`
	Resources     []Resource `json:"resources"`
	Summary       Summary    `json:"summary"`
	Warnings      []string   `json:"warnings,omitempty"`
}

// Resource is the plan for one ARM resource.
type Resource struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	APIVersion string `json:"apiVersion"`
	Action     Action `json:"action"`
	// Method is the HTTP method the write will use: PUT, PATCH, DELETE, or "" for no-op.
	Method  string   `json:"method,omitempty"`
	Origin  string   `json:"origin,omitempty"` // manifest file#document
	Changes []Change `json:"changes"`
	// Equal lists owned paths judged equal and the rule that made them so (--explain).
	Equal []Equal `json:"equal,omitempty"`
	// Reason explains the action in one sentence (e.g. why replace, why adopt).
	Reason string `json:"reason,omitempty"`
	// LiveEtag and LiveHash pin the live state the plan was computed from,
	// so a saved plan is refused when Azure moved since.
	LiveEtag string `json:"liveEtag,omitempty"`
	LiveHash string `json:"liveHash,omitempty"`
	// DependsOn lists IDs this resource waits for.
	DependsOn []string `json:"dependsOn,omitempty"`
}

// Change is one changed path.
type Change struct {
	Path       string     `json:"path"`
	Before     any        `json:"before"`
	After      any        `json:"after"`
	Reason     string     `json:"reason"`
	Kind       ChangeKind `json:"kind,omitempty"`
	Drift      bool       `json:"drift,omitempty"`      // live moved away from what we last wrote
	Sensitive  bool       `json:"sensitive,omitempty"`  // values withheld
	CreateOnly bool       `json:"createOnly,omitempty"` // forces replace
}

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
}

// Sensitive is the placeholder shown instead of a secret value.
const Sensitive = "(sensitive)"

// Summarize recomputes p.Summary from p.Resources.
func (p *Plan) Summarize() {
	var s Summary
	for _, r := range p.Resources {
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
			s.Adopt++
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
