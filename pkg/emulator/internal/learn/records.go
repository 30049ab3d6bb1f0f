package learn

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
)

// Record is one PUT→GET pair of the corpus (see the corpus README).
type Record struct {
	Source       string         `json:"source"`
	ResourceType string         `json:"resourceType"`
	APIVersion   string         `json:"apiVersion"`
	ID           string         `json:"id"`
	PutStatus    int            `json:"putStatus"`
	PutBody      map[string]any `json:"putBody"`
	GetBody      map[string]any `json:"getBody"`
}

// ReadRecords reads a gzip-compressed JSON-lines round-trip file.
func ReadRecords(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (the corpus lives in ../shared/corpus; set KUBECTL_AZURE_SHARED or pass -corpus)", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var out []Record
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if r.PutBody == nil || r.GetBody == nil {
			continue
		}
		out = append(out, r)
	}
	return out, sc.Err()
}
