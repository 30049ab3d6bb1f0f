package cli

import (
	"errors"
	"fmt"
)

// Exit codes. diff follows kubectl diff: 0 no changes, 1 changes, >1 error.
const (
	ExitOK         = 0
	ExitChanges    = 1
	ExitError      = 3
	ExitValidation = 2
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
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitError
}

func notYet(what string, issue int) error {
	return withCode(ExitError, fmt.Errorf("%s is not available in this build yet (tracked in issue %d)", what, issue))
}
