package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// compactJSON renders a value the way it would appear in an ARM body, on one
// line, so strings keep their quotes and "1" is told apart from 1.
func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// ARM values are full of URLs and '&' in connection strings; escaping
	// them to \u0026 would make the plan harder to read.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// truncate shortens s to at most n cells, marking the cut with an ellipsis.
func truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	return ansi.Truncate(s, n, "…")
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

// resourceGroup returns the resource group named in an ARM ID, or "".
func resourceGroup(id string) string {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	for i := 0; i+1 < len(segs); i++ {
		if strings.EqualFold(segs[i], "resourceGroups") {
			return segs[i+1]
		}
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

// summaryLine is the one-line count shared by text and markdown.
func summaryLine(s plan.Summary) string {
	return fmt.Sprintf("Plan: %d to create, %d to update, %d to replace, %d to delete, %d unchanged, %d to adopt",
		s.Create, s.Update, s.Replace, s.Delete, s.NoOp, s.Adopt)
}

// NoChangesMessage is printed when nothing would be written to Azure.
const NoChangesMessage = "No changes. Azure matches the manifests."

// isNoOp reports whether a resource has nothing to do; an empty action is
// treated as no-op so a half-filled plan never shows a bogus write.
func isNoOp(a plan.Action) bool { return a == plan.ActionNoOp || a == "" }
