package arm_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// Reading 300 identities in one group with 20 ms of latency per request,
// one GET each versus collection reads (pages of 100):
//
//	go test ./pkg/arm -run '^$' -bench ReadMany -benchtime 3x
//
// 2-core machine: gets 480 ms and 300 GETs per read, lists 123 ms and 3.
func BenchmarkReadMany300(b *testing.B) {
	for _, disable := range []bool{true, false} {
		name := "lists"
		if disable {
			name = "gets"
		}
		b.Run(name, func(b *testing.B) {
			o := emulator.DefaultOptions()
			o.Quirks = emulator.QuirksNone
			o.Throttle.Enabled = false
			o.LRODuration = 0
			o.Latency = 20 * time.Millisecond
			srv, err := emulator.Start(o)
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			ao := arm.DefaultOptions()
			ao.Endpoint = srv.URL()
			ao.Pacing = false
			c, err := arm.New(ao)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			rg := rgPrefix + "rg-bench"
			if _, err := c.Put(ctx, rg, rgAPI, map[string]any{"location": "westeurope"}, nil); err != nil {
				b.Fatal(err)
			}
			reqs := make([]arm.ReadRequest, 300)
			for i := range reqs {
				id := fmt.Sprintf("%s/providers/%s/id-%03d", rg, idType, i)
				reqs[i] = arm.ReadRequest{ID: id, APIVersion: idAPI, Need: []string{"location"}}
			}
			seedIdentities(b, c, reqs)
			before := c.Stats().Requests["GET"]
			b.ResetTimer()
			for b.Loop() {
				for _, r := range c.ReadMany(ctx, reqs, arm.ReadManyOptions{Disable: disable}) {
					if r.Err != nil || !r.Exists {
						b.Fatalf("%s: %+v", r.ID, r)
					}
				}
			}
			b.ReportMetric(float64(c.Stats().Requests["GET"]-before)/float64(b.N), "GETs/op")
		})
	}
}

// seedIdentities creates the resources, 16 at a time.
func seedIdentities(b *testing.B, c *arm.Client, reqs []arm.ReadRequest) {
	var eg errgroup.Group
	eg.SetLimit(16)
	for _, r := range reqs {
		eg.Go(func() error {
			_, err := c.Put(context.Background(), r.ID, r.APIVersion, map[string]any{"location": "westeurope"}, nil)
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		b.Fatal(err)
	}
}
