// Package printer renders plans (text, json, yaml, markdown), apply progress
// and apply outcomes. It only formats: it never talks to Azure or state.
package printer

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Output formats accepted by Options.Output (the CLI's -o flag).
const (
	OutputText     = "text"
	OutputJSON     = "json"
	OutputYAML     = "yaml"
	OutputMarkdown = "markdown"
	// OutputName prints one TYPE/NAME per resource, as kubectl -o name.
	OutputName = "name"
)

// Colour modes accepted by Options.Color (the CLI's --color flag).
const (
	ColorAuto   = "auto"
	ColorAlways = "always"
	ColorNever  = "never"
)

// Live-redraw modes accepted by Options.Live (progress only).
const (
	LiveAuto   = "auto"
	LiveAlways = "always"
	LiveNever  = "never"
)

// DefaultWidth was the width of text written to a pipe; piped text is now
// not wrapped at all (see Options.width). Kept for callers that size their
// own output.
const DefaultWidth = 100

// unlimitedWidth is the width of text written to a pipe or file with no
// $COLUMNS: CI log viewers and pagers wrap lines themselves, and a hard
// break would split words, flags and IDs.
const unlimitedWidth = 1 << 30

// Outputs lists the valid Output values, for flag help and validation.
var Outputs = []string{OutputText, OutputJSON, OutputYAML, OutputMarkdown, OutputName}

// Options controls rendering. The zero value is valid: every empty field
// takes the default from withDefaults, the single place defaults live.
type Options struct {
	// Output is text (default), json, yaml or markdown.
	Output string
	// Color is auto (default: colour only when w is a terminal), always or
	// never. NO_COLOR (any non-empty value) turns colour off in every mode.
	Color string
	// Width is the line width for text output; 0 means the terminal width
	// of w, else $COLUMNS, else no limit (piped text is never wrapped).
	Width int
	// Explain lists, for every owned path judged equal, the rule that made
	// it equal, and shows no-op resources.
	Explain bool
	// ShowNoOp lists resources with nothing to do.
	ShowNoOp bool
	// Live is auto (default: redraw in place only on a terminal, and not
	// with --color never or NO_COLOR), always or never. Only progress uses it.
	Live string
	// Now is the clock used by progress; nil means time.Now. Tests inject it.
	Now func() time.Time
	// Operation is the word outcomes use: OperationApply (default) or
	// OperationDelete, so delete never ends with "Apply complete".
	Operation string
	// Secrets is the run's registry: every text printed is scrubbed of
	// its values. The CLI passes the registry of the command's run; nil
	// scrubs nothing (the sensitive paths of a plan are still masked).
	Secrets *secret.Registry
}

// DefaultOptions returns the options used when the caller sets nothing.
func DefaultOptions() Options { return Options{}.withDefaults() }

func (o Options) withDefaults() Options {
	if o.Output == "" {
		o.Output = OutputText
	}
	if o.Color == "" {
		o.Color = ColorAuto
	}
	if o.Live == "" {
		o.Live = LiveAuto
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Operation == "" {
		o.Operation = OperationApply
	}
	return o
}

// Validate reports an unknown output format or colour mode, so the CLI can
// fail before planning rather than after.
func (o Options) Validate() error {
	o = o.withDefaults()
	switch strings.ToLower(o.Output) {
	case OutputText, OutputJSON, OutputYAML, OutputMarkdown, OutputName:
	default:
		return fmt.Errorf("unknown output format %q (want one of %s)", o.Output, strings.Join(Outputs, ", "))
	}
	return o.validateRendering()
}

// validateRendering checks every choice but the format, which PrintFlags
// checks against the command's own list.
func (o Options) validateRendering() error {
	switch o.Color {
	case ColorAuto, ColorAlways, ColorNever:
	default:
		return fmt.Errorf("unknown colour mode %q (want auto, always or never)", o.Color)
	}
	switch o.Live {
	case LiveAuto, LiveAlways, LiveNever:
	default:
		return fmt.Errorf("unknown live mode %q (want auto, always or never)", o.Live)
	}
	if o.Width < 0 {
		return fmt.Errorf("width must not be negative, got %d", o.Width)
	}
	return nil
}

// terminalFD returns the file descriptor behind w and whether it is a terminal.
func terminalFD(w io.Writer) (int, bool) {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return -1, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}

// noColorEnv follows https://no-color.org: present and non-empty disables colour.
func noColorEnv() bool { return os.Getenv("NO_COLOR") != "" }

func dumbTerminal() bool { return os.Getenv("TERM") == "dumb" }

// useColor decides whether escape codes may be written to w.
func (o Options) useColor(w io.Writer) bool {
	if noColorEnv() {
		// The issue says never with NO_COLOR: it wins even over --color=always,
		// because a user who set it globally never wants escapes in a log.
		return false
	}
	switch o.Color {
	case ColorAlways:
		return true
	case ColorNever:
		return false
	}
	_, tty := terminalFD(w)
	return tty && !dumbTerminal()
}

// useLive decides whether progress redraws in place on w.
func (o Options) useLive(w io.Writer) bool {
	switch o.Live {
	case LiveAlways:
		return true
	case LiveNever:
		return false
	}
	// Redrawing in place needs cursor-movement escapes. Someone who asked
	// for no colour (--color never, NO_COLOR) asked for output free of escape
	// codes, e.g. for a screen reader or a terminal recorder: give them lines.
	if o.Color == ColorNever || noColorEnv() {
		return false
	}
	_, tty := terminalFD(w)
	return tty && !dumbTerminal()
}

// width returns the line width for w.
func (o Options) width(w io.Writer) int {
	if o.Width > 0 {
		return o.Width
	}
	if fd, tty := terminalFD(w); tty {
		if cols, _, err := term.GetSize(fd); err == nil && cols > 0 {
			return cols
		}
	}
	// A user (or a runner) that sets COLUMNS asks for that width.
	if cols, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && cols > 0 {
		return cols
	}
	return unlimitedWidth
}

// height returns the terminal height of w, or 0 when unknown.
func height(w io.Writer) int {
	if fd, tty := terminalFD(w); tty {
		if _, rows, err := term.GetSize(fd); err == nil {
			return rows
		}
	}
	return 0
}
