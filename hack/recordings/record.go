package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// entry is one recorded HTTP exchange, in recording order.
type entry struct {
	Method   string
	URI      string
	ReqBody  string
	RespBody string
	Status   int
}

// readRecording reads either layout the Azure PowerShell repository uses:
// the older test framework's {"Entries": [...]} session records and the
// AutoRest-generated modules' *.Recording.json, an object whose members are
// the exchanges in recording order.
func readRecording(path string) ([]entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var probe struct {
		Entries []sessionEntry `json:"Entries"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("not a JSON recording: %w", err)
	}
	if probe.Entries != nil {
		out := make([]entry, 0, len(probe.Entries))
		for _, e := range probe.Entries {
			out = append(out, entry{Method: e.RequestMethod, URI: e.RequestURI,
				ReqBody: e.RequestBody, RespBody: e.ResponseBody, Status: statusCode(e.StatusCode)})
		}
		return out, nil
	}
	return readAutoRest(b)
}

// sessionEntry is one exchange of the older SessionRecords layout.
type sessionEntry struct {
	RequestURI    string          `json:"RequestUri"`
	RequestMethod string          `json:"RequestMethod"`
	RequestBody   string          `json:"RequestBody"`
	ResponseBody  string          `json:"ResponseBody"`
	StatusCode    json.RawMessage `json:"StatusCode"`
}

// statusCode accepts the number or the enum name ("OK", "Created") the
// recorders have used over the years.
func statusCode(raw json.RawMessage) int {
	var n int
	if json.Unmarshal(raw, &n) == nil {
		return n
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "OK":
			return 200
		case "Created":
			return 201
		case "Accepted":
			return 202
		case "NoContent":
			return 204
		}
	}
	return 0
}

// autoRestExchange is one member of a *.Recording.json file.
type autoRestExchange struct {
	Request struct {
		Method     string  `json:"Method"`
		RequestURI string  `json:"RequestUri"`
		Content    *string `json:"Content"`
	} `json:"Request"`
	Response struct {
		StatusCode json.RawMessage `json:"StatusCode"`
		Content    *string         `json:"Content"`
	} `json:"Response"`
}

// readAutoRest walks the top-level object with a token decoder because the
// member order is the recording order, which a Go map would lose.
func readAutoRest(b []byte) ([]entry, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("recording is not a JSON object")
	}
	var out []entry
	for dec.More() {
		if _, err := dec.Token(); err != nil { // member name
			return nil, err
		}
		var x autoRestExchange
		if err := dec.Decode(&x); err != nil {
			return nil, err
		}
		out = append(out, entry{Method: x.Request.Method, URI: x.Request.RequestURI,
			ReqBody: deref(x.Request.Content), RespBody: deref(x.Response.Content),
			Status: statusCode(x.Response.StatusCode)})
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
