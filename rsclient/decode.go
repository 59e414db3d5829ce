package rsclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// UnmarshalJSON decodes meta and keeps the object verbatim in Raw.
func (m *Meta) UnmarshalJSON(b []byte) error {
	type wire Meta
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = Meta(w)
	m.Raw = rawCopy(b)
	return nil
}

// UnmarshalJSON decodes a record and keeps the object verbatim in Raw.
func (r *Record) UnmarshalJSON(b []byte) error {
	type wire Record
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = Record(w)
	r.Raw = rawCopy(b)
	return nil
}

// UnmarshalJSON decodes a hit and keeps the object verbatim in Raw.
func (h *SearchHit) UnmarshalJSON(b []byte) error {
	type wire SearchHit
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*h = SearchHit(w)
	h.Raw = rawCopy(b)
	return nil
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
		Raw:                  rawCopy(b),
	}
	return nil
}

func rawCopy(b []byte) json.RawMessage {
	return append(json.RawMessage(nil), bytes.TrimSpace(b)...)
}

// errNotObject: a 2xx body must be a JSON object on every route.
var errNotObject = errors.New("body is not a JSON object")

// decodeObject checks that body is exactly one JSON object and decodes it
// into v. Unknown keys are ignored; wrong types for known keys are errors.
func decodeObject(body []byte, v any) error {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return errNotObject
	}
	return json.Unmarshal(t, v)
}

// decodeSuccess decodes a 2xx body into T; check, if non-nil, validates the
// shape beyond JSON types.
func decodeSuccess[T any](body []byte, check func(*T) error) (*T, error) {
	v := new(T)
	if err := decodeObject(body, v); err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// errNoData: list bodies must carry a "data" array (missing or null is not
// an empty page; it means the RS answered something else).
var errNoData = errors.New(`list body lacks a "data" array`)

func requireData[E any](data []E) error {
	if data == nil {
		return errNoData
	}
	return nil
}
