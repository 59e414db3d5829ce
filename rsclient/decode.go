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
		if err := jsonv2.Unmarshal(b, &w, decodeOptions); err != nil {
			return fmt.Errorf("meta.count: %w", err)
		}
		c.Kind, c.Value = w.Kind, w.Value
		return nil
	}
	var n int64
	if err := jsonv2.Unmarshal(b, &n, decodeOptions); err != nil {
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
// FuzzDecodeLikeEncodingJSON pins the equivalence.
//
// Every json.RawMessage in v (Record.Data, scores, group keys, warning
// details) is the exact bytes of its value in body, validated, not copied
// (see rawInBody).
func decodeObject(body []byte, v any) error {
	t := bytes.TrimLeft(body, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return errNotObject
	}
	return jsonv2.Unmarshal(t, v, decodeOptions)
}

// decodeValue decodes one JSON value (any kind) into v with decodeObject's
// options.
func decodeValue(b []byte, v any) error { return jsonv2.Unmarshal(b, v, decodeOptions) }

// decodeOptions: encoding/json's semantics, RawMessage members in place.
// Built once: an Unmarshalers value caches per type, so a fresh one per
// call would cost a dozen allocations.
var decodeOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv2.WithUnmarshalers(rawInBody))

// rawInBody decodes a json.RawMessage as the value's own bytes in the
// input (validated by the decoder; leading whitespace excluded, as
// encoding/json does), with the capacity capped so that a caller's append
// copies instead of overwriting the bytes after it.
//
// ReadValue's result is a sub-slice of the decoder's buffer, and a decoder
// over a []byte (jsonv2.Unmarshal) has the input itself as its buffer and
// never refills or writes it; the bytes therefore stay valid and unchanged
// as long as the body does. TestRawMembersShareTheBody pins that they are
// the body's bytes, FuzzDecodeLikeEncodingJSON that they are the right
// ones after the whole decode.
var rawInBody = jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, raw *json.RawMessage) error {
	val, err := dec.ReadValue()
	if err != nil {
		return err
	}
	*raw = json.RawMessage(val[:len(val):len(val)])
	return nil
})

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
