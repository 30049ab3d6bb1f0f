package emulator

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ParseThrottle parses --throttle: "off", or a list like
// "reads=250/25,writes=200/10,deletes=200/10" (bucket size / refill per
// second); categories not listed keep their value in o.
func ParseThrottle(o *ThrottleOptions, v string) error {
	if strings.EqualFold(v, "off") || v == "" {
		o.Enabled = false
		return nil
	}
	o.Enabled = true
	for _, part := range strings.Split(v, ",") {
		k, spec, ok := strings.Cut(strings.TrimSpace(part), "=")
		size, refill, ok2 := strings.Cut(spec, "/")
		if !ok || !ok2 {
			return fmt.Errorf("--throttle %q: want off or reads=SIZE/REFILL,writes=SIZE/REFILL,deletes=SIZE/REFILL", v)
		}
		sz, err1 := strconv.ParseFloat(size, 64)
		rf, err2 := strconv.ParseFloat(refill, 64)
		if err1 != nil || err2 != nil || sz < 0 || rf < 0 {
			return fmt.Errorf("--throttle %q: %q is not SIZE/REFILL with non-negative numbers", v, spec)
		}
		b := Bucket{Size: sz, Refill: rf}
		switch strings.ToLower(k) {
		case "reads":
			o.Reads = b
		case "writes":
			o.Writes = b
		case "deletes":
			o.Deletes = b
		default:
			return fmt.Errorf("--throttle %q: unknown category %q (use reads, writes, deletes)", v, k)
		}
	}
	return nil
}

// ParseLatency parses --latency: "50ms" for every method, or
// "50ms,PUT=200ms,DELETE=1s" with per-method overrides.
func ParseLatency(o *Options, v string) error {
	return parseDurations("--latency", "50ms", v, &o.Latency, func(k string, d time.Duration) {
		if o.LatencyByMethod == nil {
			o.LatencyByMethod = map[string]time.Duration{}
		}
		o.LatencyByMethod[strings.ToUpper(k)] = d
	})
}

// ParseLRO parses --lro: "2s", or "2s,Microsoft.ContainerService/managedClusters=30s"
// with per-type durations (a listed type is always long-running).
func ParseLRO(o *Options, v string) error {
	return parseDurations("--lro", "2s", v, &o.LRODuration, func(k string, d time.Duration) {
		if o.LROByType == nil {
			o.LROByType = map[string]time.Duration{}
		}
		o.LROByType[k] = d
	})
}

// parseDurations reads "DEFAULT[,KEY=DURATION]...": a bare duration sets
// *def, a KEY=DURATION pair goes to byKey.
func parseDurations(flag, example, v string, def *time.Duration, byKey func(string, time.Duration)) error {
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, d, keyed := strings.Cut(part, "=")
		if !keyed {
			d = part
		}
		dur, err := time.ParseDuration(d)
		if err != nil || dur < 0 {
			return fmt.Errorf("%s %q: %q is not a duration like %s", flag, v, d, example)
		}
		if keyed {
			byKey(k, dur)
		} else {
			*def = dur
		}
	}
	return nil
}

// ParseFaults parses --faults: "503=0.1,500=0.05,reset=0.02,lro=0.1"
// (shares of requests; "lro" is the share of long-running operations that
// fail).
func ParseFaults(o *FaultOptions, v string) error {
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, r, ok := strings.Cut(part, "=")
		rate, err := strconv.ParseFloat(r, 64)
		if !ok || err != nil || rate < 0 || rate > 1 {
			return fmt.Errorf("--faults %q: %q must be KIND=RATE with RATE in [0,1], KIND a status code, reset, lro or lost", v, part)
		}
		switch strings.ToLower(k) {
		case "reset":
			o.Reset = rate
		case "lro", "lrofail", "lro-failure":
			o.LROFailure = rate
		case "lost", "lostop", "lost-op", "lost-operation":
			o.LostOperation = rate
		default:
			code, err := strconv.Atoi(k)
			if err != nil || code < 400 || code > 599 {
				return fmt.Errorf("--faults %q: %q is not an HTTP error status, reset, lro or lost", v, k)
			}
			if o.Status == nil {
				o.Status = map[int]float64{}
			}
			o.Status[code] = rate
		}
	}
	return nil
}

// ParseQuirks parses --quirks.
func ParseQuirks(o *Options, v string) error {
	switch QuirksMode(strings.ToLower(v)) {
	case QuirksCorpus:
		o.Quirks = QuirksCorpus
	case QuirksNone:
		o.Quirks = QuirksNone
	default:
		return fmt.Errorf("--quirks %q: use corpus or none", v)
	}
	return nil
}

// Config is the --config file: the flags' values by flag name, e.g.
//
//	{"addr": "127.0.0.1:8080", "throttle": "off", "latency": "50ms,PUT=200ms",
//	 "lro": "2s", "quirks": "corpus", "faults": "503=0.1", "tls-cert-dir": "certs", "cache-lag": "2s",
//	 "patch": {"Microsoft.Network/virtualNetworks": "tags"}}
//
// Flags given on the command line win over the file.
type Config map[string]any

// LoadConfig applies a config file to o.
func LoadConfig(o *Options, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return fmt.Errorf("--config %s: not a JSON object of flag values: %w", path, err)
	}
	for k, v := range c {
		if k == "patch" {
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("--config %s: patch must map resource types to full, tags or absent", path)
			}
			if o.PatchModes == nil {
				o.PatchModes = map[string]PatchMode{}
			}
			for typ, mode := range m {
				s, _ := mode.(string)
				switch PatchMode(s) {
				case PatchFull, PatchTagsOnly, PatchAbsent:
					o.PatchModes[typ] = PatchMode(s)
				default:
					return fmt.Errorf("--config %s: patch mode %q for %s: use full, tags or absent", path, s, typ)
				}
			}
			continue
		}
		s := fmt.Sprint(v)
		if err := ApplyFlag(o, k, s); err != nil {
			return fmt.Errorf("--config %s: %w", path, err)
		}
	}
	return nil
}

// ApplyFlag sets one option by its flag name.
func ApplyFlag(o *Options, name, v string) error {
	switch name {
	case "addr":
		o.Addr = v
	case "throttle":
		return ParseThrottle(&o.Throttle, v)
	case "latency":
		return ParseLatency(o, v)
	case "lro":
		return ParseLRO(o, v)
	case "quirks":
		return ParseQuirks(o, v)
	case "faults":
		return ParseFaults(&o.Faults, v)
	case "tls-cert-dir":
		o.TLSCertDir = v
	case "page-size":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("--page-size %q: not a non-negative integer", v)
		}
		o.PageSize = n
	case "no-parent-locks":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("--no-parent-locks %q: use true or false", v)
		}
		o.NoParentLocks = b
	case "skip-reference-check":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("--skip-reference-check %q: use true or false", v)
		}
		o.SkipReferenceCheck = b
	case "cache-lag":
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("--cache-lag %q: not a non-negative duration like 2s (0: the generic lists never lag)", v)
		}
		o.CacheLag = d
	case "seed":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("--seed %q: not an integer", v)
		}
		o.Seed = n
	default:
		return fmt.Errorf("unknown option %q", name)
	}
	return nil
}

// String formats throttling as --throttle takes it.
func (o ThrottleOptions) String() string {
	if !o.Enabled {
		return "off"
	}
	f := func(b Bucket) string {
		return strconv.FormatFloat(b.Size, 'f', -1, 64) + "/" + strconv.FormatFloat(b.Refill, 'f', -1, 64)
	}
	return "reads=" + f(o.Reads) + ",writes=" + f(o.Writes) + ",deletes=" + f(o.Deletes)
}
