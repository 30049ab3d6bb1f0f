package emulator

import (
	"crypto/rand"
	"encoding/json"
	"fmt"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// Identities the emulator reports as the caller and its tenant.
const (
	emulatorUser   = "user@emulator.local"
	emulatorTenant = "72f988bf-0000-4000-8000-00000000e0e0"
)

func newGUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// mergePatch applies an RFC 7386 JSON merge patch: objects merge key by key,
// null deletes, anything else replaces.
func mergePatch(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return bodypath.Copy(patch)
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = map[string]any{}
	}
	for k, v := range pm {
		if v == nil {
			delete(tm, k)
			continue
		}
		tm[k] = mergePatch(tm[k], v)
	}
	return tm
}

// deepCopy is bodypath.Copy typed so callers need no assertion.
func deepCopy[T any](v T) T {
	out, _ := bodypath.Copy(v).(T)
	return out
}

// jsonNumber is a number kept as its JSON text, so bodies never pass
// through float64.
type jsonNumber = json.Number
