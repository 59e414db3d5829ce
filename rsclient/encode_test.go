package rsclient

import (
	"encoding/json"
	"math"
	"net/url"
	"strings"
	"testing"
)

// Expected outputs below were produced by node: encodeURIComponent(s),
// new URLSearchParams([["k", s]]).toString(), String(n).

func TestEncodeURIComponent(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"C0123:1714.0002", "C0123%3A1714.0002"},
		{"a b/c?d", "a%20b%2Fc%3Fd"},
		{"it's (ok)!*~", "it's%20(ok)!*~"},
		{"-_.!~*'()", "-_.!~*'()"},
		{`["user_123","2026-04-01"]`, "%5B%22user_123%22%2C%222026-04-01%22%5D"},
		{"a+b=c&d@e$f,g;h#i", "a%2Bb%3Dc%26d%40e%24f%2Cg%3Bh%23i"},
		{"100%", "100%25"},
		{"café", "caf%C3%A9"},
		{"😀", "%F0%9F%98%80"},
		{"", ""},
		{"cin_x/stream:rec", "cin_x%2Fstream%3Arec"},
		{"\x00\x7f", "%00%7F"},
	}
	for _, tt := range tests {
		if got := encodeURIComponent(tt.in); got != tt.want {
			t.Errorf("encodeURIComponent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormEncode(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"a b", "a+b"},
		{"filter[user_id]", "filter%5Buser_id%5D"},
		{"it's (ok)!*~", "it%27s+%28ok%29%21*%7E"},
		{"a+b=c&d", "a%2Bb%3Dc%26d"},
		{"ab+/cd==", "ab%2B%2Fcd%3D%3D"},
		{"-._*", "-._*"},
		{"café", "caf%C3%A9"},
		{"C0123:1714.0002", "C0123%3A1714.0002"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := formEncode(tt.in); got != tt.want {
			t.Errorf("formEncode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatScalar(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      any
		want    string
		wantErr bool
	}{
		{float64(1), "1", false},
		{1.5, "1.5", false},
		{math.Copysign(0, -1), "0", false},
		{0.1, "0.1", false},
		{0.30000000000000004, "0.30000000000000004", false}, // 0.1+0.2 at run time
		{1e6, "1000000", false},
		{1e20, "100000000000000000000", false},
		{1.2345678901234568e20, "123456789012345680000", false},
		{1e21, "1e+21", false},
		{2.5e25, "2.5e+25", false},
		{1e-6, "0.000001", false},
		{0.000123, "0.000123", false},
		{1e-7, "1e-7", false},
		{1.5e-7, "1.5e-7", false},
		{-42.75, "-42.75", false},
		{5e-324, "5e-324", false},
		{math.MaxFloat64, "1.7976931348623157e+308", false},
		{float32(0.5), "0.5", false},
		{42, "42", false},
		{int64(-9007199254740993), "-9007199254740993", false},
		{int32(7), "7", false},
		{uint8(255), "255", false},
		{true, "true", false},
		{false, "false", false},
		{"a b", "a b", false},
		{json.Number("12"), "12", false},
		{json.Number("12345678901234567890"), "12345678901234567890", false},
		{json.Number("1.50"), "1.5", false},
		{json.Number("1E3"), "1000", false},
		{json.Number("-0.0"), "0", false},
		{json.Number("abc"), "", true},
		{json.Number("Inf"), "", true},
		{json.Number("0x10"), "", true},
		{math.NaN(), "", true},
		{math.Inf(1), "", true},
		{map[string]any{"gte": 1}, "", true},
		{[]any{1}, "", true},
		{struct{}{}, "", true},
		{nil, "", true},
	}
	for _, tt := range tests {
		got, err := formatScalar(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("formatScalar(%#v) = %q, %v; want %q, err=%v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func FuzzEncodeURIComponent(f *testing.F) {
	for _, s := range []string{"C0123:1714.0002", "a b/c?d", "it's (ok)!*~", "café", "%", "\xff\xfe", `["a","b"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := encodeURIComponent(s)
		dec, err := url.PathUnescape(enc)
		if err != nil || dec != s {
			t.Fatalf("PathUnescape(%q) = %q, %v; want %q", enc, dec, err, s)
		}
		for i := 0; i < len(enc); i++ {
			c := enc[i]
			if c == '%' {
				if i+2 >= len(enc) || strings.IndexByte(upperHex, enc[i+1]) < 0 || strings.IndexByte(upperHex, enc[i+2]) < 0 {
					t.Fatalf("bad escape in %q", enc)
				}
				i += 2
				continue
			}
			if !isURIComponentSafe(c) {
				t.Fatalf("unescaped %q in %q", c, enc)
			}
		}
		// A safe path segment survives url.Parse unchanged in EscapedPath,
		// which is what net/http puts on the wire.
		u, err := url.Parse("http://h/v1/streams/" + enc)
		if err != nil || u.EscapedPath() != "/v1/streams/"+enc {
			t.Fatalf("EscapedPath(%q) = %q, %v", enc, u.EscapedPath(), err)
		}
	})
}
