package page

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzDocStringsMatchWholeDecoding: fetch decodes only each string
// member's first docPrefixRunes runes, yet every use buildDocument makes
// of them — which members count (not blank), each value, its rune count,
// whether it is binary, and the body as cut for the text — equals what
// decoding every member whole gives (the code it replaced).
func FuzzDocStringsMatchWholeDecoding(f *testing.F) {
	f.Add("title", 3, " ", 1, false)
	f.Add("b\\u00e9\"\xff\u2028", 5000, "x", 2, true)
	f.Add("   ", docPrefixRunes, "y", 1, false)
	f.Add("QUJD", 20000, "=", 0, false)
	f.Fuzz(func(t *testing.T, unit string, repeat int, tail string, spaces int, escape bool) {
		repeat = max(0, min(repeat, 12000))
		body := strings.Repeat(unit, repeat) + tail
		if spaces > 0 { // a blank start, text only past the decoded prefix
			body = strings.Repeat(" ", min(spaces*docPrefixRunes, 3*docPrefixRunes)) + tail
		}
		var raw []byte
		if escape {
			raw, _ = json.Marshal(body) // \u escapes for <, >, & and controls
		} else {
			raw = AppendJSONString(nil, body)
		}
		members := []Member{{Key: "body", Value: raw}, {Key: "n", Value: json.RawMessage("1")}, {Key: "short", Value: json.RawMessage(`"hi"`)}}
		got := stringMembers(members)
		want := map[string]string{}
		for _, m := range members {
			if m.Value[0] != '"' {
				continue
			}
			if s := DecodeJSONString(m.Value); strings.TrimSpace(s) != "" {
				want[m.Key] = s
			}
		}
		type use struct {
			Value  string
			Runes  int
			Binary bool
			Text   string
			Cut    bool
		}
		wantUses, gotUses := map[string]use{}, map[string]use{}
		for k, s := range want {
			text, cut := TruncateRunes(s, fetchTextChars)
			wantUses[k] = use{s, utf8.RuneCountInString(s), IsLargeBase64(s), text, cut}
		}
		for k, d := range got {
			text, cut := TruncateRunes(d.si.Prefix, fetchTextChars)
			gotUses[k] = use{d.value(), d.si.Runes, d.si.Binary, text, cut}
		}
		if diff := cmp.Diff(wantUses, gotUses); diff != "" {
			t.Fatalf("string members (-whole decoding +prefix):\n%.2000s", diff)
		}
	})
}
