package page

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeStringMatchesUnmarshal: every string literal json.Valid
// accepts decodes to what json.Unmarshal makes of it.
func FuzzDecodeStringMatchesUnmarshal(f *testing.F) {
	for _, s := range []string{`""`, `"plain"`, `"a\nb\tc\\d\"e\/f\b\f\r"`, `"\u00e9\u2028"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, "\"bad \xff\xfe utf8\"", `"\uD83D\uDE00"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		var want string
		// Callers pass exactly one literal, quotes included.
		if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' || !json.Valid([]byte(lit)) || json.Unmarshal([]byte(lit), &want) != nil {
			return
		}
		if got := DecodeJSONString([]byte(lit)); got != want {
			t.Fatalf("DecodeJSONString(%q) = %q, json.Unmarshal %q", lit, got, want)
		}
	})
}
