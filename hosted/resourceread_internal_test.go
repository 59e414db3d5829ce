package hosted

import (
	"encoding/json"
	"testing"
)

// FuzzMayReadResource: every body that decodes to a resources/read call,
// alone or in a batch, is recognised — the filter may say yes too often,
// never too rarely (a no skips typing the answer's resource errors).
func FuzzMayReadResource(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"pdpp://record/x"}}`,
		`{"method":"resources\/read"}`, `{"method":"resources\u002fread"}`, `{"method":"\u0072esources/read"}`,
		`[{"method":"tools/list"},{"method":"resources/read"}]`, `{"method":"tools/call"}`, `{"Method":"resources/read"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var one struct{ Method string }
		var batch []struct{ Method string }
		reads := json.Unmarshal(body, &one) == nil && one.Method == "resources/read"
		if json.Unmarshal(body, &batch) == nil {
			for _, m := range batch {
				reads = reads || m.Method == "resources/read"
			}
		}
		if reads && !mayReadResource(body) {
			t.Errorf("mayReadResource(%q) = false for a resources/read call", body)
		}
	})
}

// A tools/call's answer is typed too (an unknown tool name, answered by
// mcp-go before any adapter code); other methods' answers are not scanned.
func TestMayNeedTyping(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"serach"}}`: true,
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x"}}`:   true,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`:                            false,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`:                false,
	} {
		if got := mayNeedTyping([]byte(body)); got != want {
			t.Errorf("mayNeedTyping(%s) = %t, want %t", body, got, want)
		}
	}
}
