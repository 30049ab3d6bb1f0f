package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Output formats accepted by List and Show.
const (
	FormatTable = "table" // List's default
	FormatWide  = "wide"
	FormatJSON  = "json"
	FormatYAML  = "yaml" // Show's default
	FormatName  = "name" // one ARM ID per line
)

// List implements `kubectl azure state list [-o FORMAT]`. Writes that a
// crashed run left unconfirmed are listed too, so the user knows the next
// apply will repair them.
func List(ctx context.Context, w io.Writer, st Store, format string) error {
	list := Heads // the table and names need no bodies
	if format == FormatJSON || format == FormatYAML {
		list = func(ctx context.Context, st Store) ([]*Record, error) { return st.List(ctx) }
	}
	recs, err := list(ctx, st)
	if err != nil {
		return err
	}
	intents, err := st.Intents(ctx)
	if err != nil {
		return err
	}
	switch format {
	case "", FormatTable, FormatWide:
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		if format == FormatWide {
			fmt.Fprintln(tw, "ID\tTYPE\tAPI VERSION\tSET\tORIGIN\tSERIAL\tUPDATED")
		} else {
			fmt.Fprintln(tw, "ID\tTYPE\tSERIAL\tUPDATED")
		}
		for _, r := range recs {
			if format == FormatWide {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.ID, r.Type, r.APIVersion, dash(r.Set), dash(r.Origin), r.Serial, r.Updated.UTC().Format(time.RFC3339))
			} else {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", r.ID, r.Type, r.Serial, r.Updated.UTC().Format(time.RFC3339))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, in := range intents {
			fmt.Fprintf(w, "pending: %s of %s started %s was not confirmed; the next apply repairs it\n",
				in.Op, in.ID, in.Started.UTC().Format(time.RFC3339))
		}
		return nil
	case FormatName:
		for _, r := range recs {
			fmt.Fprintln(w, r.ID)
		}
		return nil
	case FormatJSON, FormatYAML:
		doc := struct {
			Resources []*Record `json:"resources"`
			Pending   []Intent  `json:"pending,omitempty"`
		}{Resources: recs, Pending: intents}
		if doc.Resources == nil {
			doc.Resources = []*Record{}
		}
		return encode(w, doc, format)
	default:
		return fmt.Errorf("unknown output format %q; use one of table, wide, name, json, yaml", format)
	}
}

// Show implements `kubectl azure state show ID [-o json|yaml]`.
func Show(ctx context.Context, w io.Writer, st Store, id, format string) error {
	r, err := st.Get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("no state recorded for %s; 'kubectl azure state list' shows what is recorded", id)
	}
	if err != nil {
		return err
	}
	if format == "" {
		format = FormatYAML
	}
	if format != FormatJSON && format != FormatYAML {
		return fmt.Errorf("unknown output format %q; use json or yaml", format)
	}
	return encode(w, r, format)
}

// Heads lists the records without decoding their bodies where the store
// can (the bodies are then never decoded), else with them: enough to find,
// list or forget a record, even one whose bodies are unreadable.
func Heads(ctx context.Context, st Store) ([]*Record, error) {
	if bl, ok := st.(BodyLoader); ok {
		recs, _, err := bl.ListHeads(ctx)
		return recs, err
	}
	return st.List(ctx)
}

// Remove implements `kubectl azure state rm ID`: it forgets the record
// (and any journal entry) without touching Azure; the next plan treats the
// resource as not managed (adopt, if a manifest still names it).
func Remove(ctx context.Context, st Store, id string) error {
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		return err
	}
	defer unlock()
	// Heads, not Get: a record whose bodies are unreadable can be forgotten.
	heads, err := Heads(ctx, st)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(heads, func(r *Record) bool { return armid.Equal(r.ID, id) }) {
		return fmt.Errorf("no state recorded for %s; 'kubectl azure state list' shows what is recorded", id)
	}
	if err := st.Delete(ctx, id); err != nil {
		return err
	}
	return unlock()
}

// Unlock implements `kubectl azure state unlock`: it releases a lock whose
// holder died. A Kubernetes Lease is released whoever holds it (the user
// asked); a file lock cannot outlive its process, so a live holder is
// reported instead of broken.
func Unlock(ctx context.Context, w io.Writer, st Store) error {
	if fu, ok := st.(ForceUnlocker); ok {
		prev, err := fu.ForceUnlock(ctx)
		if err != nil {
			return err
		}
		if prev == nil {
			fmt.Fprintln(w, "state is not locked")
			return nil
		}
		fmt.Fprintf(w, "released the state lock held by %s\n", prev)
		return nil
	}
	li, ok := st.(LockInspector)
	if !ok {
		return errors.New("this state backend cannot be unlocked by hand")
	}
	h, err := li.LockHolder(ctx)
	if err != nil {
		return err
	}
	if h == nil {
		fmt.Fprintln(w, "state is not locked")
		return nil
	}
	return fmt.Errorf("state is locked by %s, a process that is still running (pid %d on %s): a file lock is released when its process ends, so stop that run instead",
		h, h.PID, dash(h.Host))
}

func encode(w io.Writer, v any, format string) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if format == FormatYAML {
		if b, err = yaml.JSONToYAML(b); err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
