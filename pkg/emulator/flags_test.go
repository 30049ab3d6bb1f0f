package emulator

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFlagParsers(t *testing.T) {
	o := DefaultOptions()
	if got := o.Throttle.String(); got != "reads=250/25,writes=200/10,deletes=200/10" {
		t.Errorf("default throttle = %s", got)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(ApplyFlag(&o, "throttle", "reads=10/1,deletes=5/0.5"))
	if o.Throttle.Reads != (Bucket{10, 1}) || o.Throttle.Deletes != (Bucket{5, 0.5}) || o.Throttle.Writes != (Bucket{200, 10}) || !o.Throttle.Enabled {
		t.Errorf("throttle = %+v", o.Throttle)
	}
	must(ApplyFlag(&o, "throttle", "off"))
	if o.Throttle.Enabled {
		t.Error("throttle off ignored")
	}
	must(ApplyFlag(&o, "latency", "50ms,PUT=200ms"))
	if o.Latency != 50*time.Millisecond || o.LatencyByMethod["PUT"] != 200*time.Millisecond {
		t.Errorf("latency = %v %v", o.Latency, o.LatencyByMethod)
	}
	must(ApplyFlag(&o, "lro", "3s,Microsoft.Foo/bars=1m"))
	if o.LRODuration != 3*time.Second || o.lroDuration("microsoft.foo/BARS") != time.Minute {
		t.Errorf("lro = %v %v", o.LRODuration, o.LROByType)
	}
	must(ApplyFlag(&o, "page-size", "7"))
	must(ApplyFlag(&o, "no-parent-locks", "true"))
	must(ApplyFlag(&o, "skip-reference-check", "true"))
	if o.PageSize != 7 || !o.NoParentLocks || !o.SkipReferenceCheck {
		t.Errorf("page-size/no-parent-locks/skip-reference-check = %d %v %v", o.PageSize, o.NoParentLocks, o.SkipReferenceCheck)
	}
	if ApplyFlag(&o, "page-size", "-1") == nil || ApplyFlag(&o, "no-parent-locks", "maybe") == nil {
		t.Error("bad page-size or no-parent-locks accepted")
	}
	if DefaultOptions().CacheLag != 0 {
		t.Error("the generic lists lag by default")
	}
	must(ApplyFlag(&o, "cache-lag", "1500ms"))
	if o.CacheLag != 1500*time.Millisecond {
		t.Errorf("cache-lag = %v", o.CacheLag)
	}
	if ApplyFlag(&o, "cache-lag", "-1s") == nil || ApplyFlag(&o, "cache-lag", "2") == nil {
		t.Error("bad cache-lag accepted")
	}
	must(ApplyFlag(&o, "faults", "503=0.1,500=0.05,reset=0.02,lro=0.5,lost=0.25"))
	if o.Faults.Status[503] != 0.1 || o.Faults.Status[500] != 0.05 || o.Faults.Reset != 0.02 || o.Faults.LROFailure != 0.5 || o.Faults.LostOperation != 0.25 {
		t.Errorf("faults = %+v", o.Faults)
	}
	must(ApplyFlag(&o, "quirks", "none"))
	if o.Quirks != QuirksNone {
		t.Errorf("quirks = %s", o.Quirks)
	}
	for name, bad := range map[string]string{"throttle": "reads=1", "latency": "soon", "lro": "x", "faults": "200=0.1", "quirks": "all", "seed": "x", "nope": "1"} {
		if err := ApplyFlag(&o, name, bad); err == nil {
			t.Errorf("--%s %s accepted", name, bad)
		}
	}

	cfg := filepath.Join(t.TempDir(), "emulator.json")
	must(os.WriteFile(cfg, []byte(`{"throttle":"off","lro":"5ms","cache-lag":"3s","faults":"reset=0.5","patch":{"Microsoft.Foo/bars":"absent"}}`), 0o600))
	o = DefaultOptions()
	must(LoadConfig(&o, cfg))
	if o.Throttle.Enabled || o.LRODuration != 5*time.Millisecond || o.CacheLag != 3*time.Second || o.Faults.Reset != 0.5 || o.PatchModes["Microsoft.Foo/bars"] != PatchAbsent {
		t.Errorf("config not applied: %+v", o)
	}
}
