package rstest

import (
	"bytes"
	"encoding/json"
	"errors"
)

// obj is a JSON object that keeps its key order, so responses read like the
// reference RS's (which builds them with insertion-ordered JS objects).
type obj []kv

// kv is one member of an obj.
type kv struct {
	K string
	V any
}

// get returns the value of k.
func (o obj) get(k string) (any, bool) {
	for _, e := range o {
		if e.K == k {
			return e.V, true
		}
	}
	return nil, false
}

// MarshalJSON writes the members in order.
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.K)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(e.V)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// rawMembers splits a JSON object into its members in document order,
// keeping each value verbatim.
func rawMembers(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, errors.New("not a JSON object")
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
		vals = append(vals, v)
	}
	return keys, vals, nil
}

// projectRaw keeps the members of a JSON object for which keep is true, in
// document order. A nil keep keeps everything.
func projectRaw(raw json.RawMessage, keep func(string) bool) json.RawMessage {
	if keep == nil {
		return raw
	}
	keys, vals, err := rawMembers(raw)
	if err != nil {
		return json.RawMessage("{}")
	}
	o := make(obj, 0, len(keys))
	for i, k := range keys {
		if keep(k) {
			o = append(o, kv{k, vals[i]})
		}
	}
	b, _ := o.MarshalJSON()
	return b
}

// decodePayload decodes a record payload with json.Number so integers keep
// their precision.
func decodePayload(raw json.RawMessage) map[string]any {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return map[string]any{}
	}
	return m
}
