package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// compactJSON renders a value the way it would appear in an ARM body, on one
// line, so strings keep their quotes and "1" is told apart from 1.
func compactJSON(v any) string {
	if plan.IsUnknown(v) {
		return plan.KnownAfterApply // a marker, not a value: no quotes
	}
	if s, ok := v.(string); ok && s == plan.KnownAfterApply {
		return s // the marker as a saved plan holds it
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// ARM values are full of URLs and '&' in connection strings; escaping
	// them to \u0026 would make the plan harder to read.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	// JSON escapes control characters but not bidi and other format
	// characters, which could reorder what the reviewer sees.
	return armid.Printable(strings.TrimSuffix(buf.String(), "\n"))
}

// truncate shortens s to at most n cells by cutting in the middle: the
// start says what kind of value it is, and the end of an ARM ID names the
// resource, the part a reviewer needs.
func truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	w := ansi.StringWidth(s)
	if w <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	head := (n - 1) / 3
	tail := n - 1 - head
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, w-tail, "")
}

// DisplayName is how a resource is named in every output: the ARM ID from the
// last provider namespace on ("Microsoft.Storage/storageAccounts/st1",
// "Microsoft.Network/virtualNetworks/vnet/subnets/a"), which carries both the
// type and the (parent-qualified) name in the form people search for in the
// portal. Resource groups and subscriptions, which have no provider segment,
// get their conventional type prefix.
func DisplayName(id, typ string) string {
	if i := strings.LastIndex(strings.ToLower(id), "/providers/"); i >= 0 {
		if rest := id[i+len("/providers/"):]; strings.Contains(rest, "/") {
			return rest
		}
	}
	segs := strings.Split(strings.Trim(id, "/"), "/")
	name := segs[len(segs)-1]
	if typ == "" {
		if len(segs) >= 2 && strings.EqualFold(segs[len(segs)-2], "resourceGroups") {
			typ = "Microsoft.Resources/resourceGroups"
		} else if len(segs) == 2 && strings.EqualFold(segs[0], "subscriptions") {
			typ = "Microsoft.Resources/subscriptions"
		}
	}
	if typ == "" || name == "" {
		return id
	}
	return typ + "/" + name
}

// resourceGroup returns the resource group an ARM ID is in, or "".
func resourceGroup(id string) string {
	if p, err := armid.Parse(id); err == nil {
		return p.ResourceGroup
	}
	return ""
}

// symbol is the terraform-like marker for an action.
func symbol(a plan.Action) string {
	switch a {
	case plan.ActionCreate:
		return "+"
	case plan.ActionUpdate:
		return "~"
	case plan.ActionReplace:
		return "-/+"
	case plan.ActionDelete:
		return "-"
	case plan.ActionAdopt:
		return "<="
	default:
		return "="
	}
}

// changeSymbol is the marker for one changed path.
func changeSymbol(k plan.ChangeKind) string {
	switch k {
	case plan.KindAdd:
		return "+"
	case plan.KindRemove:
		return "-"
	default:
		return "~"
	}
}

// summaryLine is the one-line count shared by text and markdown. Child
// resources an update deletes (an item removed from a parent's collection)
// are counted apart: they are deletions, and "0 to delete" would hide them.
func summaryLine(p *plan.Plan) string {
	s := p.Summary
	line := fmt.Sprintf("Plan: %d to create, %d to update, %d to replace, %d to delete, %d unchanged, %d to adopt",
		s.Create, s.Update, s.Replace, s.Delete, s.NoOp, s.Adopt)
	if n := childDeletes(p); n > 0 {
		line += fmt.Sprintf("; %d child %s deleted by an update of %s parent", n, plural(n, "resource", "resources"), plural(n, "its", "their"))
	}
	if s.Interrupted > 0 {
		line += fmt.Sprintf("; %d interrupted %s that apply settles", s.Interrupted, plural(s.Interrupted, "write", "writes"))
	}
	if s.Cascade > 0 {
		line += fmt.Sprintf("; %d more deleted by ARM with their parent", s.Cascade)
	}
	if s.Drift > 0 {
		line += fmt.Sprintf("; %d with changes made outside this tool", s.Drift)
	}
	return line
}

// cascadeName is TYPE/NAME of a resource deleted with its parent.
func cascadeName(c plan.CascadeItem) string { return DisplayName(c.ID, c.Type) }

// cascadeNote says what deleting a parent does to one of its contents.
func cascadeNote(c plan.CascadeItem) string {
	if c.CreatedByAzure && !c.Managed {
		return "(created by Azure with its parent)"
	}
	if c.Managed {
		return "(deleted with its parent; managed)"
	}
	return "(deleted with its parent; NOT managed by any manifest or state)"
}

// childDeletes counts the changes of updates that delete a child resource.
func childDeletes(p *plan.Plan) int {
	n := 0
	for _, r := range p.Resources {
		if r.Action != plan.ActionUpdate && r.Action != plan.ActionAdopt {
			continue
		}
		for _, c := range r.Changes {
			if c.ChildDelete {
				n++
			}
		}
	}
	return n
}

// plural picks the form for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// AcceptedHeading introduces the values apply --refresh-only accepted that
// still differ from the manifests: nothing is written for them, and the
// plan must not let "no changes" read as "Azure matches the manifests".
const AcceptedHeading = "Azure keeps values that differ from the manifests, accepted by apply --refresh-only (nothing is written for them; see docs/safety.md to restore the manifest's):"

// acceptedLines is one line per resource with accepted values: its name
// and the paths.
func acceptedLines(p *plan.Plan, sec *secret.Registry) []string {
	var out []string
	for _, r := range p.Resources {
		if len(r.Accepted) == 0 {
			continue
		}
		out = append(out, CleanText(sec, DisplayName(r.ID, r.Type)+": "+strings.Join(r.Accepted, ", ")))
	}
	return out
}

// NoChangesMessage is printed when nothing would be written to Azure. It
// claims no more than that: after apply --refresh-only accepted drift, Azure
// differs from the manifests on the accepted paths, and the plan carries
// nothing that tells those paths apart.
const NoChangesMessage = "No changes: nothing to write."

// isNoOp reports whether a resource has nothing to do; an empty action is
// treated as no-op so a half-filled plan never shows a bogus write.
func isNoOp(a plan.Action) bool { return a == plan.ActionNoOp || a == "" }

// managedNames maps the ID key of each resource in p to the name a reader
// knows it by: the manifest name, else the last ID segment.
func managedNames(p *plan.Plan) map[string]string {
	m := make(map[string]string, len(p.Resources))
	for _, r := range p.Resources {
		name := r.Name
		if name == "" {
			name = lastSegment(r.ID)
		}
		m[armid.Key(r.ID)] = armid.Printable(name)
	}
	return m
}

// managedRef renders v as "NAME (managed)" when it is the ID of a resource
// in the plan.
func managedRef(v any, managed map[string]string) (string, bool) {
	s, ok := v.(string)
	if !ok || !strings.HasPrefix(s, "/") {
		return "", false
	}
	name, ok := managed[armid.Key(s)]
	if !ok {
		return "", false
	}
	return name + " (managed)", true
}

// isNested reports whether v is a non-empty object or array.
func isNested(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) > 0
	case []any:
		return len(x) > 0
	}
	return false
}

// isDrift reports whether a change undoes something done outside this tool.
func isDrift(c plan.Change) bool { return c.IsDrift() }

// causeNotes say why a change is planned, in the words a reviewer needs:
// who made the difference (the manifest or someone in Azure) and what the
// write does about it.
func causeNotes(c plan.Change) []string {
	var n []string
	switch {
	case isDrift(c) && c.Kind == plan.KindRemove:
		n = append(n, "present in Azure, not in the manifest: added outside this tool")
	case isDrift(c):
		n = append(n, "drift: changed outside this tool")
	case c.Cause == plan.CauseDefaultReset:
		n = append(n, "removed from the manifest: reset to the default")
	case c.Cause == plan.CauseRemoval:
		n = append(n, "removed from the manifest: no longer managed")
	case c.Cause == plan.CauseUnverifiable:
		n = append(n, "unverifiable: the service does not return it; written once, then judged by what is read back")
	case c.Kind == plan.KindRemove:
		n = append(n, "removed")
	}
	if c.ChildDelete {
		n = append(n, "deletes the child resource")
	}
	return n
}

// undeclaredNote says what a plan without --prune leaves alone: resources
// recorded for the set that no manifest declares any more.
func undeclaredNote(n int) string {
	if n == 1 {
		return "1 recorded resource is no longer declared by the manifests; `--prune` would delete:"
	}
	return fmt.Sprintf("%d recorded resources are no longer declared by the manifests; `--prune` would delete:", n)
}

// reviewLines renders plan.Resource.Review one fact a line: "role: ID
// (Name)". Values pass through armid.Printable: they come from manifests.
func reviewLines(r plan.Resource) []string {
	out := make([]string, 0, len(r.Review))
	for _, v := range r.Review {
		line := v.Label + ": " + armid.Printable(v.Value)
		if v.Value == "" {
			line = v.Label + ": (not set)"
		}
		if v.Note != "" {
			line += " (" + armid.Printable(v.Note) + ")"
		}
		out = append(out, line)
	}
	return out
}

// lastSegment is the name an ARM ID ends with, also for one that does not
// parse (a plan file may hold anything).
func lastSegment(id string) string {
	if p, err := armid.Parse(id); err == nil {
		return p.Name()
	}
	return id[strings.LastIndex(id, "/")+1:]
}
