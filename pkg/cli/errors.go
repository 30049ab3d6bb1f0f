package cli

import (
	"errors"

	"github.com/kubectl-azure/kubectl-azure/internal/safefile"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
)

// Exit codes, as documented in docs/troubleshooting.md. diff follows kubectl
// diff: 0 no changes, 1 changes, 2 invalid input, 3 any other error. Every
// other command exits 0 on success, 2 on invalid input (flags, manifests,
// a bad --state, no --yes off a terminal) and 3 otherwise.
const (
	ExitOK         = 0
	ExitChanges    = 1
	ExitValidation = 2
	ExitError      = 3
	// ExitInterrupted is the shell's code for SIGINT, used when a second
	// Ctrl-C stops the process without waiting for in-flight work.
	ExitInterrupted = 130
)

// exitError carries a specific exit code up to Main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// errChanges is diff's "changes found" outcome: exit 1, nothing printed.
var errChanges = withCode(ExitChanges, nil)

func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	if safefile.IsNotRegular(err) {
		// A FIFO or device named as input is bad input wherever it is
		// found (a saved plan, a status file), whatever code wraps it.
		return ExitValidation
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitError
}

// problems turns an error into the structured form every output format
// prints: one entry per manifest problem (errors and the warnings found with
// them) with file, document, line, path and severity, or a single message.
func problems(err error) []printer.Problem {
	var ve *manifest.ValidationError
	if errors.As(err, &ve) {
		return manifestProblems(ve.Problems)
	}
	return []printer.Problem{{Document: -1, Severity: plan.SeverityError, Message: err.Error()}}
}

// manifestProblems converts the loader's problems, keeping their severity.
func manifestProblems(ps []manifest.Problem) []printer.Problem {
	out := make([]printer.Problem, 0, len(ps))
	for _, p := range ps {
		sev := plan.SeverityError
		if p.Severity == manifest.SeverityWarning {
			sev = plan.SeverityWarning
		}
		out = append(out, printer.Problem{File: p.File, Document: p.Index, Line: p.Line, Path: p.Path, Severity: sev, Message: p.Message})
	}
	return out
}

// isValidation reports whether err lists manifest problems.
func isValidation(err error) bool {
	var ve *manifest.ValidationError
	return errors.As(err, &ve)
}
