package convert

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
)

// Read is one reference() or list*() call that Evaluate asks a Reader to
// answer.
type Read struct {
	// ID is the resource's ARM ID; Name is set instead when the template
	// named the resource by its name alone (reference('st1')), which the
	// reader resolves in the deployment it runs.
	ID, Name string
	// APIVersion is the one the call gave, or "".
	APIVersion string
	// Action is the list* action ("listKeys"), or "" for reference().
	Action string
	// Full: reference(..., 'Full') wants the whole resource; otherwise
	// its properties.
	Full bool
	// Body is a list* call's request body, or nil.
	Body any
}

// Reader answers reads as a deployment engine does, from the resources
// deployed so far. Its answer is decoded JSON (encoding/json values).
type Reader func(ctx context.Context, q Read) (any, error)

// EvalOption is an option of Evaluate.
type EvalOption func(*run)

// WithReader makes reference() and list*() ask r instead of failing as
// known only while deploying. The call is made when the expression is
// evaluated; its ID must then be known.
func WithReader(r Reader) EvalOption {
	return func(rn *run) { rn.reader = r }
}

// WithLinks reads linked templates from local copies, as Options.Links
// does for Convert.
func WithLinks(links ...Link) EvalOption {
	return func(rn *run) { rn.links = links }
}

// read asks the run's reader, in Evaluate only.
func (e *evalCtx) read(target any, q Read) (any, bool, error) {
	r := e.d.r
	if r.convert || r.reader == nil {
		return nil, false, nil
	}
	t, ok := expr.Known(target)
	s, isStr := t.(string)
	if !ok || !isStr {
		return nil, true, fmt.Errorf("the resource it reads is not known (%s)", describeTarget(target))
	}
	if strings.HasPrefix(s, "/") {
		q.ID = s
	} else {
		q.Name = s
	}
	v, err := r.reader(r.ctx, q)
	if err != nil {
		return nil, true, err
	}
	return expr.FromJSON(v), true, nil
}
