package arm

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
)

// Numbers stay exact end to end: bodies are decoded with UseNumber, so a
// value such as 12345678901234567890 or 9007199254740993 arrives as the
// json.Number ARM sent and is encoded back digit for digit. A float64
// would round both.

// decodeJSON decodes one JSON value with numbers as json.Number and
// refuses trailing data.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// decodeObject decodes a JSON object body; an empty body is an error.
func decodeObject(data []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty body")
	}
	var m map[string]any
	if err := decodeJSON(data, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("body is not a JSON object")
	}
	return m, nil
}

type page struct {
	Value    []map[string]any `json:"value"`
	NextLink string           `json:"nextLink"`
}

func decodePage(data []byte) (page, error) {
	var pg page
	if err := decodeJSON(data, &pg); err != nil {
		return pg, err
	}
	// Every ARM list answer has "value" (an empty page: []); an object
	// without it is not a list, and reading it as "no items" would hide
	// resources.
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return pg, err
	}
	if _, ok := members["value"]; !ok {
		return pg, errors.New(`no "value" member`)
	}
	return pg, nil
}

// encodeJSON encodes a request body. json.Number values are written as
// their literal digits; HTML characters are left as they are (ARM does
// not care, and a log reads better).
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func setJSONBody(req *policy.Request, v any) error {
	data, err := encodeJSON(v)
	if err != nil {
		return err
	}
	return req.SetBody(streaming.NopCloser(bytes.NewReader(data)), "application/json")
}
