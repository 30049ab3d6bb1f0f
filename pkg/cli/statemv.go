package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// moveRecord implements `state mv OLD NEW [--to-set SET]`: the record of
// OLD is filed under the ARM ID NEW (a resource moved to another group or
// subscription with ARM's move operation, or a record filed under the wrong
// ID) and/or under another manifest set, without touching Azure. Without it
// the next plan would create NEW (or adopt it) and, with --prune, delete
// what OLD recorded. Only the record moves: its last-applied body and
// baseline go with it, so the next plan compares as before.
func moveRecord(ctx context.Context, w io.Writer, st state.Store, oldRef, newID, toSet string, sec *secret.Registry) error {
	if err := checkSetMove(st, toSet); err != nil {
		return err
	}
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		return withCode(ExitError, err)
	}
	defer unlock()
	heads, err := state.Heads(ctx, st)
	if err != nil {
		return withCode(ExitError, err)
	}
	i, err := resolveRef(oldRef, recordCandidates(heads))
	if err != nil {
		return err
	}
	oldID := heads[i].ID
	if newID == "" {
		newID = oldID
	}
	nid, err := armid.Parse(newID)
	if err != nil {
		return withCode(ExitValidation, fmt.Errorf("state mv: the new ID %s: %v; give the full ARM ID the resource has now", armid.Printable(newID), err))
	}
	if !strings.EqualFold(nid.Type(), heads[i].Type) {
		return withCode(ExitValidation, fmt.Errorf("state mv: %s is a %s, not a %s: a record can only move to a resource of its own type", armid.Printable(newID), nid.Type(), heads[i].Type))
	}
	moveID := !armid.Equal(oldID, newID)
	if !moveID && toSet == "" {
		return withCode(ExitValidation, errors.New("state mv: nothing to do: give a new ARM ID or --to-set SET"))
	}
	if moveID {
		for _, h := range heads {
			if armid.Equal(h.ID, newID) {
				return withCode(ExitValidation, fmt.Errorf("state mv: %s is already recorded; `kubectl azure state rm` it first if the record is stale", armid.Printable(newID)))
			}
		}
	}
	intents, err := st.Intents(ctx)
	if err != nil {
		return withCode(ExitError, err)
	}
	for _, in := range intents {
		if armid.Equal(in.ID, oldID) {
			return withCode(ExitValidation, fmt.Errorf("state mv: a write to %s was interrupted and is not settled yet; run apply first", armid.Printable(oldID)))
		}
	}
	rec, err := st.Get(ctx, oldID)
	if err != nil {
		return withCode(ExitError, fmt.Errorf("reading the record of %s: %w", armid.Printable(oldID), err))
	}
	moved := *rec
	moved.ID = newID
	moved.Subscription = "" // the store derives it from the new ID
	moved.Serial = 0
	// The secret hashes stay salted with the ID they were made under: there
	// is no clear value here to hash again under the new one.
	if moved.HashedAs == "" {
		moved.HashedAs = oldID
	}
	if armid.Equal(moved.HashedAs, newID) {
		moved.HashedAs = ""
	}
	if toSet != "" {
		moved.Set = toSet
	}
	// The new record first: a failure between the two writes leaves both
	// (the next plan then shows the old one as undeclared), never neither.
	if err := st.Put(ctx, &moved); err != nil {
		return withCode(ExitError, err)
	}
	if moveID {
		if err := st.Delete(ctx, oldID); err != nil {
			return withCode(ExitError, err)
		}
	}
	if err := unlock(); err != nil {
		return withCode(ExitError, err)
	}
	msg := "Moved the record of " + printer.DisplayName(oldID, rec.Type)
	if moveID {
		msg += " to " + newID
	}
	if toSet != "" {
		msg += " (set " + toSet + ")"
	}
	fmt.Fprintln(w, printer.CleanText(sec, msg+"; nothing was sent to Azure."))
	return nil
}

// checkSetMove refuses --to-set on a store that holds one set only (the
// Kubernetes backend): changing the record's set there would change
// nothing, and a prune of the old set would then delete what the user had
// handed over. Moving to the store's own set is no move.
func checkSetMove(st state.Store, toSet string) error {
	sb, ok := st.(state.SetBound)
	if toSet == "" || !ok || toSet == sb.FixedSet() {
		return nil
	}
	return withCode(ExitValidation, fmt.Errorf("state mv --to-set %s: this state holds only the set %s (kubernetes://NAMESPACE/%s), so its records cannot move to another set; "+
		"to hand the resource over, `kubectl azure import` it with --state kubernetes://NAMESPACE/%s, then `kubectl azure state rm` it here", toSet, sb.FixedSet(), sb.FixedSet(), toSet))
}
