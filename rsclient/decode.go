package rsclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// UnmarshalJSON accepts the three wire forms of meta.count: an object
// {"kind":..,"value":..}, a bare integer, or null.
func (c *Count) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*c = Count{}
	switch {
	case bytes.Equal(b, []byte("null")):
		c.Null, c.Bare = true, true
		return nil
	case len(b) > 0 && b[0] == '{':
		var w struct {
			Kind  string `json:"kind"`
			Value *int64 `json:"value"`
		}
		if err := json.Unmarshal(b, &w); err != nil {
			return fmt.Errorf("meta.count: %w", err)
		}
		c.Kind, c.Value = w.Kind, w.Value
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("meta.count must be an object, an integer or null: %w", err)
	}
	c.Value, c.Bare = &n, true
	return nil
}

// MarshalJSON writes Count back in the form it was received.
func (c Count) MarshalJSON() ([]byte, error) {
	switch {
	case c.Null:
		return []byte("null"), nil
	case c.Bare && c.Value != nil:
		return json.Marshal(*c.Value)
	}
	return json.Marshal(struct {
		Kind  string `json:"kind,omitempty"`
		Value *int64 `json:"value,omitempty"`
	}{c.Kind, c.Value})
}

// UnmarshalJSON decodes the RFC 9728 document; retrieval capabilities live
// under capabilities.<mode>_retrieval.
func (m *ProtectedResourceMetadata) UnmarshalJSON(b []byte) error {
	var w struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		TokenKindsSupported  []string `json:"pdpp_token_kinds_supported"`
		Capabilities         struct {
			Lexical  *RetrievalCapability `json:"lexical_retrieval"`
			Semantic *RetrievalCapability `json:"semantic_retrieval"`
			Hybrid   *RetrievalCapability `json:"hybrid_retrieval"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = ProtectedResourceMetadata{
		Resource:             w.Resource,
		AuthorizationServers: w.AuthorizationServers,
		TokenKindsSupported:  w.TokenKindsSupported,
		Lexical:              w.Capabilities.Lexical,
		Semantic:             w.Capabilities.Semantic,
		Hybrid:               w.Capabilities.Hybrid,
	}
	return nil
}

// errNotObject: a 2xx body must be a JSON object on every route.
var errNotObject = errors.New("body is not a JSON object")

// decodeObject decodes body, which must be exactly one JSON object, into v
// in one pass: it reads every byte once, checking syntax as it decodes
// (trailing data is an error). Unknown keys are ignored; wrong types for
// known keys are errors.
//
// The engine is github.com/go-json-experiment/json (the code that became
// encoding/json/v2, still behind GOEXPERIMENT=jsonv2 in Go 1.26) with
// encoding/json's v1 semantics (DefaultOptionsV1: case-insensitive names,
// duplicate names and invalid UTF-8 accepted as before, null leaves a value
// untouched). encoding/json itself scans each body twice (a validity pass
// over the whole input, then the decoding pass, whose RawMessage members
// are skipped with the same byte-at-a-time scanner) and copies every
// RawMessage; on a page of 25 mail bodies that was 80 % of a call's CPU.
//
// Every json.RawMessage in v (Record.Data, scores, group keys, warning
// details) is the exact bytes of its value in body, validated, not copied
// (see aliasRaw).
func decodeObject(body []byte, v any) error {
	t := bytes.TrimLeft(body, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return errNotObject
	}
	return jsonv2.Unmarshal(t, v, v1Semantics, jsonv2.WithUnmarshalers(aliasRaw(t)))
}

// v1Semantics makes the decoder behave like encoding/json.Unmarshal.
var v1Semantics = jsonv1.DefaultOptionsV1()

// aliasRaw decodes a json.RawMessage as the sub-slice of in that holds the
// value (the decoder has validated it; leading whitespace excluded, as
// encoding/json does), with its capacity capped so that an append by a
// caller copies instead of overwriting the bytes after it. in is the
// slice given to Unmarshal, so the decoder's input offsets index it.
func aliasRaw(in []byte) *jsonv2.Unmarshalers {
	return jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, raw *json.RawMessage) error {
		val, err := dec.ReadValue()
		if err != nil {
			return err
		}
		end := dec.InputOffset()
		start := end - int64(len(val))
		if start < 0 || end > int64(len(in)) || &in[start] != &val[0] {
			// val is not in's own bytes (a decoder that buffers or
			// copies): a copy keeps the result independent of it.
			*raw = append(json.RawMessage(nil), val...)
			return nil
		}
		*raw = in[start:end:end]
		return nil
	})
}

// decodeSuccess decodes a 2xx body into T and checks its shape: a body
// that is JSON of the wrong shape is an invalid answer, never an empty
// success.
func decodeSuccess[T any](body []byte, check func(*T) error) (*T, error) {
	v := new(T)
	if err := decodeObject(body, v); err != nil {
		return nil, invalidResponse(err)
	}
	if err := check(v); err != nil {
		return nil, invalidResponse(err)
	}
	return v, nil
}

func invalidResponse(err error) error {
	return &TransportError{Code: CodeInvalidResponse, Message: "2xx body is not the expected JSON shape: " + err.Error(), Err: err}
}
