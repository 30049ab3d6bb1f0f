package emulator

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// opKind is what a long-running operation does when it finishes.
type opKind int

const (
	opCreate opKind = iota
	opUpdate
	opDelete
)

// operation is one long-running operation. Its state is a function of the
// clock: it is InProgress until End, then Succeeded or Failed. The server
// settles operations lazily, on the next request, so no goroutine runs.
type operation struct {
	ID         string
	Kind       opKind
	ResourceID string
	Type       string
	Start, End time.Time
	Fail       bool
	// Lost: the endpoint forgot the operation (FaultOptions.LostOperation,
	// ForgetOperations). Its polls answer 404; the work still finishes.
	Lost bool
	// statusURL and resultURL are the Azure-AsyncOperation and Location
	// paths (without host).
	statusURL, resultURL string
}

func (o *operation) status(now time.Time) string {
	switch {
	case now.Before(o.End):
		return "InProgress"
	case o.Fail:
		return "Failed"
	}
	return "Succeeded"
}

// operationPaths builds ARM-shaped operation URLs: ARM RPs publish them under
// the provider's locations, e.g.
// /subscriptions/{sub}/providers/Microsoft.Network/locations/westus/operations/{id}.
func operationPaths(p armid.Path, location, id string) (status, result string) {
	ns := p.Provider
	if ns == "" {
		ns = "Microsoft.Resources"
	}
	if location == "" {
		location = "global"
	}
	loc := strings.ToLower(strings.ReplaceAll(location, " ", ""))
	base := "/providers/" + ns + "/locations/" + loc
	if p.Subscription != "" {
		base = "/subscriptions/" + p.Subscription + base
	}
	return base + "/operationStatuses/" + id, base + "/operationResults/" + id
}

// isPollPath reports whether the path addresses an operation this server
// issued, returning its ID.
func isPollPath(path string) (id string, result bool, ok bool) {
	path = strings.TrimRight(path, "/")
	i := strings.LastIndex(path, "/")
	if i < 0 {
		return "", false, false
	}
	head, id := path[:i], path[i+1:]
	j := strings.LastIndex(head, "/")
	switch strings.ToLower(head[j+1:]) {
	case "operationstatuses":
		return id, false, true
	case "operationresults":
		return id, true, true
	}
	return "", false, false
}

// setLROHeaders adds the polling headers ARM sends with 201/202.
func (s *Server) setLROHeaders(w http.ResponseWriter, r *http.Request, op *operation, apiVersion string, withAsync bool) {
	base := s.baseURL(r)
	q := "?api-version=" + apiVersion
	if withAsync {
		w.Header().Set("Azure-AsyncOperation", base+op.statusURL+q)
	}
	w.Header().Set("Location", base+op.resultURL+q)
	setRetryAfter(w, op.End.Sub(s.now()))
}

// setRetryAfter sets Retry-After in whole seconds (at least 1, as ARM
// never says 0) and retry-after-ms with the exact wait, which azcore
// prefers, so tests with millisecond operations do not sleep a second.
func setRetryAfter(w http.ResponseWriter, d time.Duration) {
	if d < time.Millisecond {
		d = time.Millisecond
	}
	secs := int((d + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	w.Header().Set("retry-after-ms", strconv.FormatInt(d.Milliseconds(), 10))
}

// settleLocked finishes every operation whose time has come. Caller holds s.mu.
func (s *Server) settleLocked() {
	now := s.now()
	keep := s.pending[:0]
	for _, op := range s.pending {
		if now.Before(op.End) {
			keep = append(keep, op)
			continue
		}
		r := s.store.get(op.ResourceID)
		if r == nil || r.LastOp != op.ID {
			continue // gone, or superseded by a later write
		}
		switch {
		case op.Kind == opDelete && !op.Fail:
			s.keepDiagnosticSettings(op.ResourceID)
			s.store.removeTree(op.ResourceID)
			if pp, ok := armid.ParsePath(op.ResourceID); ok {
				s.syncParentFromChild(pp, nil)
			}
			s.syncBackRefs(op.ResourceID, op.Type)
		case op.Fail:
			setProvisioningState(r.Body, "Failed")
		default:
			setProvisioningState(r.Body, "Succeeded")
		}
		if op.Kind != opDelete || op.Fail {
			// The parent's inline copy of a child shows its state too.
			if pp, ok := armid.ParsePath(r.ID); ok {
				s.syncParentFromChild(pp, r)
			}
		}
		// The operation ended at op.End, whenever this request noticed.
		s.syncListCacheLocked(op.End, op.ResourceID)
	}
	// Clear the tail so settled operations are not kept alive by the array.
	for i := len(keep); i < len(s.pending); i++ {
		s.pending[i] = nil
	}
	s.pending = keep
}

// servePoll answers Azure-AsyncOperation (status) and Location (result) polls.
func (s *Server) servePoll(w http.ResponseWriter, r *http.Request, id string, result bool) {
	s.mu.Lock()
	s.settleLocked()
	op := s.ops[id]
	var body map[string]any
	now := s.now()
	if op != nil && result && op.Kind != opDelete {
		if res := s.store.get(op.ResourceID); res != nil {
			body = deepCopy(res.Body)
		}
	}
	s.mu.Unlock()
	if op == nil || op.Lost {
		writeError(w, newError(http.StatusNotFound, "OperationNotFound", "The operation '%s' was not found. Operation IDs are forgotten when the emulator is reset or loses its operations (fault lost, ForgetOperations); read the resource to learn how the write ended.", id))
		return
	}
	st := op.status(now)
	if !result {
		doc := map[string]any{
			"id":        s.baseURL(r) + op.statusURL,
			"name":      op.ID,
			"status":    st,
			"startTime": op.Start.UTC().Format(time.RFC3339Nano),
		}
		if st != "InProgress" {
			doc["endTime"] = op.End.UTC().Format(time.RFC3339Nano)
		} else {
			setRetryAfter(w, op.End.Sub(now))
		}
		if st == "Failed" {
			doc["error"] = lroFailure(op).body()["error"]
		}
		writeJSON(w, http.StatusOK, doc)
		return
	}
	switch st {
	case "InProgress":
		w.Header().Set("Location", s.baseURL(r)+op.resultURL+"?"+r.URL.RawQuery)
		setRetryAfter(w, op.End.Sub(now))
		w.WriteHeader(http.StatusAccepted)
	case "Failed":
		writeError(w, lroFailure(op))
	default:
		if body == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeJSON(w, http.StatusOK, body)
	}
}

func lroFailure(op *operation) *armError {
	return newError(http.StatusInternalServerError, "InternalServerError",
		"The long-running operation on '%s' failed (injected by the emulator's LRO failure rate).", op.ResourceID)
}
