package printer

import (
	"io"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// styles are the few looks every renderer shares. Each is a plain function so
// that with colour off they are the identity and cannot emit an escape code,
// whatever lipgloss would decide.
type styles struct {
	create, update, replace, delete, adopt, noop func(string) string
	drift, danger, faint, bold, warn, ok         func(string) string
}

func identity(s string) string { return s }

func newStyles(w io.Writer, color bool) styles {
	if !color {
		return styles{identity, identity, identity, identity, identity, identity,
			identity, identity, identity, identity, identity, identity}
	}
	r := lipgloss.NewRenderer(w)
	// The 16 basic ANSI colours follow the user's terminal theme and work on
	// every terminal; setting the profile also stops lipgloss probing w.
	r.SetColorProfile(termenv.ANSI)
	fg := func(c string) func(string) string {
		return render(r.NewStyle().Foreground(lipgloss.Color(c)))
	}
	return styles{
		create:  fg("2"), // green
		update:  fg("3"), // yellow
		replace: fg("5"), // magenta: stands out from both create and delete
		delete:  fg("1"), // red
		adopt:   fg("6"), // cyan
		noop:    render(r.NewStyle().Faint(true)),
		drift:   fg("5"),
		danger:  render(r.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)),
		faint:   render(r.NewStyle().Faint(true)),
		bold:    render(r.NewStyle().Bold(true)),
		warn:    fg("3"),
		ok:      fg("2"),
	}
}

func (s styles) action(a plan.Action) func(string) string {
	switch a {
	case plan.ActionCreate:
		return s.create
	case plan.ActionUpdate:
		return s.update
	case plan.ActionReplace:
		return s.replace
	case plan.ActionDelete:
		return s.delete
	case plan.ActionAdopt:
		return s.adopt
	default:
		return s.noop
	}
}

func (s styles) kind(k plan.ChangeKind) func(string) string {
	switch k {
	case plan.KindAdd:
		return s.create
	case plan.KindRemove:
		return s.delete
	default:
		return s.update
	}
}

func render(st lipgloss.Style) func(string) string {
	return func(s string) string {
		if s == "" {
			return s
		}
		return st.Render(s)
	}
}
