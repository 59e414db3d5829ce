package page

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzAppendJSONStringMatchesEncoder: AppendJSONString writes what a
// json.Encoder without HTML escaping writes, for any string (invalid
// UTF-8, controls, U+2028 included).
func FuzzAppendJSONStringMatchesEncoder(f *testing.F) {
	for _, s := range []string{"", "plain", "a\nb\tc\\d\"e/f\b\f\r\x00\x1f\x7f", "é\u2028\u2029😀",
		"bad \xff\xfe utf8", "<mark>x</mark> & y", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := string(AppendJSONString([]byte("x"), s)); got != "x"+string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Fatalf("AppendJSONString(%q) = %s, encoding/json %s", s, got[1:], want.Bytes())
		}
		if n, want := JSONStringLen(s), len(AppendJSONString(nil, s)); n != want {
			t.Fatalf("JSONStringLen(%q) = %d, AppendJSONString writes %d", s, n, want)
		}
	})
}

// FuzzScanStringMatchesDecode: ScanString counts and classifies a literal
// as its fully decoded value would be (json.Unmarshal, utf8, IsLargeBase64,
// base64Meta), and its prefix is that value's first runes.
func FuzzScanStringMatchesDecode(f *testing.F) {
	b64 := string(bytes.Repeat([]byte("QUJD"), 80))
	for _, s := range []string{`""`, `"plain"`, `"a\nb\tc\\d\"e\/f"`, `"\u00e9\u2028"`, `"\ud83d\ude00 x"`, `"\ud83d"`,
		"\"bad \xff\xfe utf8\"", `"` + b64 + `"`, `"` + b64[:200] + `\r\n` + b64[200:] + `"`,
		`"data:image/png;base64,` + b64 + `"`, `"` + b64[:300] + ` "`, `"` + b64[:255] + `\/"`} {
		f.Add(s, 3)
		f.Add(s, 1001)
	}
	f.Fuzz(func(t *testing.T, lit string, prefix int) {
		var v string
		if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' || !json.Valid([]byte(lit)) || json.Unmarshal([]byte(lit), &v) != nil {
			return
		}
		prefix = max(0, prefix%2000)
		want := StringInfo{Prefix: runePrefix(v, prefix), Runes: utf8.RuneCountInString(v), Binary: IsLargeBase64(v)}
		if want.Binary {
			want.MIMEType, want.SizeBytes = base64Meta(v)
		}
		if diff := cmp.Diff(want, ScanString([]byte(lit), prefix)); diff != "" {
			t.Fatalf("ScanString(%q, %d) (-decoded +scan):\n%s", lit, prefix, diff)
		}
	})
}

// FuzzSkipJSONString: the quote-to-quote jump ends every literal where a
// byte-by-byte walk does and agrees on escapes.
func FuzzSkipJSONString(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"\""`, `"\\"`, `"\\\""`, `"a\\\\"`, `"x\"y\\"`, `"\u0022"`} {
		f.Add(s + `,"tail"`)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		in := []byte(doc)
		if len(in) == 0 || in[0] != '"' || !json.Valid(in[:skipValueReference(in)]) {
			return
		}
		wantEnd, wantEsc := skipValueReference(in), bytes.IndexByte(in[1:skipValueReference(in)-1], '\\') >= 0
		end, esc := SkipJSONString(in, 0)
		if end != wantEnd || esc != wantEsc {
			t.Fatalf("SkipJSONString(%q) = %d, %v; byte walk %d, %v", doc, end, esc, wantEnd, wantEsc)
		}
	})
}

// skipValueReference is the byte-by-byte walk to the end of the string
// literal at in[0], or len(in) when it does not close.
func skipValueReference(in []byte) int {
	for j := 1; j < len(in); j++ {
		switch in[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(in)
}

// FuzzCompactRunesMatchesCompact: counted without compacting, the same
// number json.Compact's output has.
func FuzzCompactRunesMatchesCompact(f *testing.F) {
	for _, s := range []string{`{}`, ` { "a" : [ 1 , 2 ] , "b":"x y\t\u00e9 \"q\" é" } `, "[\"\xff\", 1 ]", `"  "`, `12`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var b bytes.Buffer
		if !json.Valid([]byte(doc)) || json.Compact(&b, []byte(doc)) != nil {
			return
		}
		if got, want := CompactRunes([]byte(doc)), utf8.RuneCount(b.Bytes()); got != want {
			t.Fatalf("CompactRunes(%q) = %d, json.Compact has %d runes", doc, got, want)
		}
	})
}
