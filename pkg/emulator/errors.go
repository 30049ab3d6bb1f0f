package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// armError is ARM's error envelope: {"error": {"code", "message"}}, with
// "details" when an RP gives them.
type armError struct {
	Status  int
	Code    string
	Message string
	Details []armError
}

func newError(status int, code, format string, args ...any) *armError {
	return &armError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *armError) body() map[string]any {
	return map[string]any{"error": e.inner()}
}

func (e *armError) inner() map[string]any {
	m := map[string]any{"code": e.Code, "message": e.Message}
	if len(e.Details) > 0 {
		ds := make([]any, len(e.Details))
		for i := range e.Details {
			ds[i] = e.Details[i].inner()
		}
		m["details"] = ds
	}
	return m
}

func writeError(w http.ResponseWriter, e *armError) {
	w.Header().Set("x-ms-failure-cause", "gateway")
	writeJSON(w, e.Status, e.body())
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if v == nil {
		return
	}
	_ = json.NewEncoder(w).Encode(v)
}

func errMissingAPIVersion() *armError {
	return newError(http.StatusBadRequest, "MissingApiVersionParameter",
		"The api-version query parameter (?api-version=) is required for all requests.")
}

func errNotFound(p armid.Path) *armError {
	if p.ResourceGroup != "" {
		return newError(http.StatusNotFound, "ResourceNotFound",
			"The Resource '%s/%s' under resource group '%s' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix",
			p.Provider+"/"+p.Types[0], joinNames(p), p.ResourceGroup)
	}
	return newError(http.StatusNotFound, "ResourceNotFound", "The Resource '%s' was not found.", p.Raw)
}

func errGroupNotFound(group string) *armError {
	return newError(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", group)
}

func errParentNotFound(p armid.Path, parent, op string) *armError {
	return newError(http.StatusNotFound, "ParentResourceNotFound",
		"Failed to perform '%s' on resource(s) of type '%s', because the parent resource '%s' could not be found.",
		op, p.Type(), parent)
}

func joinNames(p armid.Path) string {
	s := ""
	for i, n := range p.Names {
		if i > 0 {
			s += "/"
		}
		s += n
	}
	return s
}
