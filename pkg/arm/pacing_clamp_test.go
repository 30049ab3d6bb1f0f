package arm

import (
	"context"
	"testing"
)

// A remaining count far beyond any bucket ARM documents raises the model
// no further than maxRemaining, and one that is no number teaches nothing.
func TestPacerClampsLearnedBucket(t *testing.T) {
	for _, c := range []struct {
		header string
		want   float64
	}{{"1e18", 20000}, {"Inf", 20000}, {"1e400", 20000}, {"NaN", 250}, {"11999", 11999}} {
		p, _ := newTestPacer(Bucket{Size: 250, Refill: 25}, 0)
		seq, _ := p.acquire(context.Background(), "s", classRead)
		p.observe("s", classRead, seq, hdr("x-ms-ratelimit-remaining-subscription-reads", c.header))
		b := p.buckets[bucketKey{sub: "s", class: classRead}]
		if b.size != c.want || b.tokens > c.want {
			t.Errorf("remaining %s: size %v tokens %v, want size %v", c.header, b.size, b.tokens, c.want)
		}
	}
}

func TestProviderRemainingClamped(t *testing.T) {
	h := hdr("x-ms-ratelimit-remaining-resource", "Microsoft.Compute/GetVM3Min;1e18,Microsoft.Compute/GetVM30Min;NaN").Header
	if n, ok := providerRemaining(h, "Microsoft.Compute"); !ok || n != 20000 {
		t.Fatalf("providerRemaining = %v, %v; want 20000", n, ok)
	}
}
