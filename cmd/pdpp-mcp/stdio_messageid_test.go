package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMessageID pins what the stdio drain reads of a message: the id and
// method of a request, the id of a response, nothing of a notification or
// a line that is not a JSON-RPC object.
func TestMessageID(t *testing.T) {
	t.Parallel()
	type got struct {
		ID     string
		Method string
		OK     bool
	}
	for _, tc := range []struct {
		msg  string
		want got
	}{
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x"}}`, got{"4", "tools/call", true}},
		{`{"method":"tools/call","params":{},"id": "a b" ,"jsonrpc":"2.0"}`, got{`"a b"`, "tools/call", true}},
		{`{"jsonrpc":"2.0","id":4,"result":{"content":[]}}`, got{"4", "", true}},
		{`{"jsonrpc":"2.0","result":{"x":1},"id":{"k" : 1}}`, got{`{"k":1}`, "", true}},
		{`{"jsonrpc":"2.0","id":5,"error":{"code":-32601}}`, got{"5", "", true}},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, got{}},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`, got{}},
		{`{"jsonrpc":"2.0","id":7}`, got{}},
		{`[1,2]`, got{}},
		{`not json`, got{}},
		{``, got{}},
	} {
		id, method, ok := messageID([]byte(tc.msg))
		if diff := cmp.Diff(tc.want, got{string(id), method, ok}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.msg, diff)
		}
	}
}

// FuzzMessageID: never panics; an id it returns is compact valid JSON,
// and on a well-formed message with one id it is encoding/json's id.
func FuzzMessageID(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`, `{"id":"x","result":{}}`, `{"id":[1],"error":1}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		id, _, ok := messageID(msg)
		if !ok {
			return
		}
		if !json.Valid(id) || string(compactJSON(id)) != string(id) {
			t.Fatalf("id %q is not compact JSON", id)
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(msg, &m) == nil {
			if want := compactJSON(m["id"]); string(want) != string(id) && countKey(msg, "id") == 1 {
				t.Fatalf("id %q, encoding/json says %q", id, want)
			}
		}
	})
}

// countKey counts top-level members named key (a message with a repeated
// id is ambiguous; the drain takes the first).
func countKey(msg []byte, key string) int {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0
	}
	n := 0
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return n
		}
		if k == key {
			n++
		}
		if dec.Decode(new(json.RawMessage)) != nil {
			return n
		}
	}
	return n
}
