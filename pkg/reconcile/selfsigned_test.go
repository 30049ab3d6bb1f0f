package reconcile

import (
	"crypto/x509"
	"encoding/pem"
	"testing"
	"time"
)

// TestSelfSignedRotationNeverUntrusts steps a clock through ten serving
// lives and checks, at every step, that the certificate served after the
// step and the one served before it (a replica that has not reloaded yet)
// both verify against the bundle written at that step; that the serving
// certificate is renewed by 2/3 of its life; and that a new CA is in the
// bundle for at least a serving life before it signs.
func TestSelfSignedRotationNeverUntrusts(t *testing.T) {
	const v = time.Hour
	dns := []string{"ctl-webhook.ns.svc"}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	data, changed, err := rotate(nil, now, v, dns, nil)
	if err != nil || !changed {
		t.Fatalf("first rotation: changed %v, %v", changed, err)
	}
	firstSeen := map[string]time.Time{} // CA subject -> when it joined the bundle
	note := func(at time.Time) {
		for _, c := range parseCAs(data[SecretCACert], data[SecretCAKey]) {
			if _, ok := firstSeen[string(c.cert.Raw)]; !ok {
				firstSeen[string(c.cert.Raw)] = at
			}
		}
	}
	note(now)
	renewals, cas := 0, 1
	for step := 0; step < 10*12; step++ {
		prev := data
		now = now.Add(5 * time.Minute)
		data, changed, err = rotate(prev, now, v, dns, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !changed && string(data[SecretCACert]) != string(prev[SecretCACert]) {
			t.Fatal("the bundle changed without changed")
		}
		before := len(firstSeen)
		note(now)
		cas += len(firstSeen) - before
		for _, served := range [][]byte{prev["tls.crt"], data["tls.crt"]} {
			if err := verifies(served, data[SecretCACert], now, dns[0]); err != nil {
				t.Fatalf("at %s: %v", now, err)
			}
		}
		leaf := parse(t, data["tls.crt"])
		if string(prev["tls.crt"]) != string(data["tls.crt"]) {
			renewals++
			for raw, seen := range firstSeen {
				issuer, _ := x509.ParseCertificate([]byte(raw))
				if leaf.CheckSignatureFrom(issuer) == nil && now.Sub(seen) < v && seen.After(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
					t.Fatalf("at %s the serving certificate is signed by a CA in the bundle only since %s", now, seen)
				}
			}
		}
		if life := leaf.NotAfter.Sub(leaf.NotBefore); now.Sub(leaf.NotBefore) > life*2/3+5*time.Minute {
			t.Fatalf("at %s the serving certificate from %s was not renewed", now, leaf.NotBefore)
		}
	}
	if renewals < 10 || cas < 3 {
		t.Errorf("over ten lives: %d serving renewals, %d CAs; want ≥ 10 and ≥ 3", renewals, cas)
	}
	// Reused while valid: nothing changes between renewals.
	if _, changed, _ := rotate(data, now.Add(time.Second), v, dns, nil); changed {
		t.Error("a valid Secret was rewritten a second later")
	}
	// Other names: a new serving certificate.
	if out, changed, _ := rotate(data, now.Add(time.Second), v, []string{"other.ns.svc"}, nil); !changed || verifies(out["tls.crt"], out[SecretCACert], now, "other.ns.svc") != nil {
		t.Error("a Secret for other names was kept")
	}
}

func parse(t *testing.T, p []byte) *x509.Certificate {
	t.Helper()
	b, _ := pem.Decode(p)
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func verifies(certPEM, bundle []byte, at time.Time, name string) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(bundle)
	b, _ := pem.Decode(certPEM)
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		return err
	}
	_, err = c.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: at, DNSName: name, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err
}
