package emulator

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"

	jsonpatch "github.com/evanphx/json-patch/v5"

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

// mergePatch applies a JSON merge patch (RFC 7386) with json-patch/v5:
// objects merge member by member, null deletes, anything else replaces.
// Numbers stay exact (json.Number in, json.Number out).
func mergePatch(target, patch map[string]any) (map[string]any, error) {
	doc, err := json.Marshal(target)
	if err != nil {
		return nil, err
	}
	p, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	out, err := jsonpatch.MergePatch(doc, p)
	if err != nil {
		return nil, err
	}
	var merged map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&merged); err != nil {
		return nil, err
	}
	if merged == nil {
		merged = map[string]any{}
	}
	keepArrays(merged, patch)
	return merged, nil
}

// keepArrays puts every array of the patch into merged exactly as sent.
// The library drops null members from objects inside an array it adds;
// RFC 7386 and ARM both take an array value whole (ARM stores and echoes
// what the client sent), so a null inside an array item stays.
func keepArrays(merged, patch map[string]any) {
	for k, v := range patch {
		switch pv := v.(type) {
		case []any:
			merged[k] = deepCopy(pv)
		case map[string]any:
			if m, ok := merged[k].(map[string]any); ok {
				keepArrays(m, pv)
			}
		}
	}
}

// deepCopy is bodypath.Copy typed so callers need no assertion.
func deepCopy[T any](v T) T {
	out, _ := bodypath.Copy(v).(T)
	return out
}

// jsonNumber is a number kept as its JSON text, so bodies never pass
// through float64.
type jsonNumber = json.Number

// ok200 is a plain 200 answer with a body.
func ok200(body map[string]any) reply { return reply{status: http.StatusOK, body: body} }
