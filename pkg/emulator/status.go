package emulator

import (
	"net/http"
	"slices"
	"strings"
)

// putStatuses are the status codes a type's PUT declares in its spec, for
// the types whose answer differs from ARM's common 200/201, used when the
// schema index does not say (no spec for the exact api-version).
var putStatuses = map[string][]int{
	"microsoft.storage/storageaccounts":                    {200, 202},
	"microsoft.storage/storageaccounts/blobservices":       {200},
	"microsoft.storage/storageaccounts/fileservices":       {200},
	"microsoft.storage/storageaccounts/queueservices":      {200},
	"microsoft.storage/storageaccounts/tableservices":      {200},
	"microsoft.storage/storageaccounts/managementpolicies": {200},
	"microsoft.web/sites":                                  {200, 202},
	"microsoft.web/serverfarms":                            {200, 202},
	"microsoft.authorization/roleassignments":              {200, 201},
	// The Swagger of the user-named settings (2016-09-01, and the SDKs
	// generated from 2017-05-01-preview) declares 200 only; the index
	// keeps no status for the preview versions.
	"microsoft.insights/diagnosticsettings": {200},
}

// declaredPutStatus returns the codes a type's PUT may answer.
func declaredPutStatus(f typeFacts) []int {
	if f.schema != nil && !f.schema.Fallback() && plausibleStatuses(f.schema.PutStatus) {
		return f.schema.PutStatus
	}
	if codes := putStatuses[strings.ToLower(f.typeName)]; codes != nil {
		return codes
	}
	if f.putStatus == http.StatusAccepted {
		return []int{200, 202}
	}
	return []int{200, 201}
}

// createStatus picks the answer for a create or an update: 201 for a
// create when declared, else 202 for long-running types that declare it,
// else 200.
func createStatus(f typeFacts, create bool) int {
	codes := declaredPutStatus(f)
	switch {
	case create && slices.Contains(codes, http.StatusCreated):
		return http.StatusCreated
	case create && slices.Contains(codes, http.StatusAccepted):
		return http.StatusAccepted
	case slices.Contains(codes, http.StatusOK):
		return http.StatusOK
	}
	return codes[0]
}

// plausibleStatuses reports whether codes is a non-empty list of the
// success codes a PUT can declare; anything else means the index could
// not read them, and the fallback is safer than answering nonsense.
func plausibleStatuses(codes []int) bool {
	if len(codes) == 0 {
		return false
	}
	for _, c := range codes {
		if c != http.StatusOK && c != http.StatusCreated && c != http.StatusAccepted {
			return false
		}
	}
	return true
}
