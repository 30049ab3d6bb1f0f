package importer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kubectl-azure/kubectl-azure/pkg/record"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Record writes every imported resource to state the way apply does after
// a write: L = the manifest body (secrets hashed), B = the live body
// projected on the paths the manifest owns, so the first diff is empty.
// It takes the state lock for the duration.
func (im *Importer) Record(ctx context.Context, st state.Store, res *Result, lockTimeout time.Duration) error {
	if st == nil {
		return errors.New("importer: no state store")
	}
	unlock, err := st.Lock(ctx, "", lockTimeout)
	if err != nil {
		return err
	}
	defer func() { _ = unlock() }()
	key, err := st.SecretKey(ctx)
	if err != nil {
		return fmt.Errorf("reading the state's secret key: %w", err)
	}
	set := im.Options.Set
	if set == "" {
		set = DefaultOptions().Set
	}
	recs := make([]*state.Record, len(res.Resources))
	for i, r := range res.Resources {
		if r.Resolved == nil {
			return fmt.Errorf("%s: no resolved manifest body to record (call Read first)", r.ID)
		}
		secrets := r.SecretPaths
		prev, err := st.Get(ctx, r.ID)
		switch {
		case err == nil && prev != nil:
			im.warnf("%s was already recorded in state (set %s): its record is replaced by this import", r.ID, prev.Set)
			// What the old record hashed stays hashed, whether or not Read
			// knew it (Importer.State): never a clear value where there was
			// a hash.
			prior := hashedPatterns(prev)
			for _, p := range clearAt(r.Resolved, without(prior, r.prior)) {
				im.warnf("%s: the manifest written holds %s in clear, which state recorded as a secret (it came from valueFrom): "+
					"replace it with {valueFrom: ...} before you keep the manifest; state keeps it hashed", r.ID, p)
			}
			secrets = append(append([]string(nil), secrets...), prior...)
		case err != nil && !errors.Is(err, state.ErrNotFound):
			// Without the old record its secrets cannot be kept hashed.
			return fmt.Errorf("reading the state record of %s: %w", r.ID, err)
		}
		rec, err := record.Build(record.Input{
			ID: r.ID, Type: r.Type, APIVersion: r.APIVersion, Origin: r.Origin, Set: set,
			Desired: r.Resolved, SecretPaths: secrets, Live: r.Live, Etag: r.Etag,
			Schema: r.schema, Key: key,
		})
		if err != nil {
			return err
		}
		recs[i] = rec
	}
	// Concurrent Puts let a backend group-commit them (the local store
	// writes its file once for every Put waiting), instead of rewriting
	// the whole state once per resource.
	errs := make([]error, len(recs))
	n := im.Options.RecordConcurrency
	if n <= 0 {
		n = DefaultOptions().RecordConcurrency
	}
	// Every Put runs and every failure is reported, so errors are
	// collected per record rather than returned to the group.
	var g errgroup.Group
	g.SetLimit(n)
	for i, rec := range recs {
		g.Go(func() error {
			if err := st.Put(ctx, rec); err != nil {
				errs[i] = fmt.Errorf("recording %s in state: %w", rec.ID, err)
			}
			return nil
		})
	}
	_ = g.Wait()
	return errors.Join(errs...)
}
