package plan

// Reason is why a resource's action was chosen, as a value: execution and
// summaries decide on it (Resource.Why), never on Resource.Reason, the
// sentence readers see (the JSON contract). Why is not part of the JSON:
// a plan read back is only compared, never executed. Text is the sentence
// of the reasons that take no detail; the others are worded where their
// detail is known.
type Reason uint8

// Reasons of a resource's action.
const (
	ReasonNone Reason = iota
	// Deletes (the delete command, prune) and what they find.
	ReasonAbsent          // already absent from Azure
	ReasonAbsentForgotten // already absent; its record is removed
	ReasonDeclaredDelete  // the manifests declare it: delete
	ReasonNamedDelete     // named on the command line: delete
	ReasonDeleteUnmanaged // exists, never applied: needs --allow-delete-unmanaged
	ReasonPrune           // recorded for this set, no longer declared
	ReasonNoDelete        // ARM has no DELETE for the type: it goes with its parent, or stays
	// Creates, adoptions and writes.
	ReasonDeferredName     // its name is known after apply
	ReasonNotFound         // not found in Azure
	ReasonRecreate         // recorded in state, deleted outside
	ReasonAdopt            // exists in Azure, not in state
	ReasonCreateOnly       // a create-only property changed: replace
	ReasonReplaceRequested // --replace names it
	ReasonFailedState      // provisioning Failed or Canceled: written again
	ReasonInterrupted      // a killed run wrote it and did not record it
	// Refresh-only plans.
	ReasonRefreshDrift // the drift is recorded as the new baseline
	ReasonRefreshSkip  // a refresh leaves it alone
)

// reasonText holds the sentences of the reasons that take no detail.
var reasonText = map[Reason]string{
	ReasonAbsent:           "already absent from Azure",
	ReasonAbsentForgotten:  "already absent from Azure: its record in state is removed",
	ReasonDeclaredDelete:   "declared by the manifests: delete",
	ReasonNamedDelete:      "named on the command line (recorded in state): delete",
	ReasonDeleteUnmanaged:  "exists in Azure but was not applied by kubectl-azure (not in state): deleting it needs --allow-delete-unmanaged",
	ReasonDeferredName:     "its name depends on a value Azure generates during this apply",
	ReasonNotFound:         "not found in Azure",
	ReasonRecreate:         "recorded in state but not found in Azure (deleted outside kubectl-azure): it will be created again",
	ReasonAdopt:            "exists in Azure but not in state: written only with --adopt (or after import)",
	ReasonCreateOnly:       "a create-only property changed: the resource must be deleted and created again (needs --allow-replace)",
	ReasonReplaceRequested: "replacement requested with --replace",
	ReasonFailedState:      "Azure reports its provisioning Failed or Canceled: the write is sent again",
	ReasonInterrupted:      "an interrupted write: apply settles it",
	ReasonRefreshDrift:     "changed in Azure outside kubectl-azure: refresh only records the live value as the new baseline; nothing is written to Azure",
	ReasonRefreshSkip:      "refresh only: left alone",
}

// Text is the reason's sentence; "" for a reason worded with its detail.
func (r Reason) Text() string { return reasonText[r] }

// Because sets the resource's reason and its own sentence.
func (r *Resource) Because(why Reason) { r.BecauseOf(why, why.Text()) }

// BecauseOf sets the resource's reason with a sentence worded with its
// detail (the set pruned, the parent a child goes with).
func (r *Resource) BecauseOf(why Reason, sentence string) { r.Why, r.Reason = why, sentence }
