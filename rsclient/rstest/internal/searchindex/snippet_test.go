package searchindex

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// words returns "w0 w1 … w(n-1)".
func words(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("w%d", i)
	}
	return strings.Join(parts, " ")
}

func TestSnippet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, q, want string
	}{
		{"contract example", "This is a threaded reply.", "threaded", "This is a <mark>threaded</mark> reply."},
		{"original casing and punctuation", "Hello, WORLD!!", "world", "Hello, <mark>WORLD</mark>!!"},
		{"every occurrence marked", "to be or not to be", "be", "to <mark>be</mark> or not to <mark>be</mark>"},
		{"no match", "nothing to see", "zebra", ""},
		{"leading and trailing separators kept", "  «quoted»  ", "quoted", "  «<mark>quoted</mark>»  "},
		{"window in the middle", words(100), "w50",
			"…" + strings.Replace(strings.Join(strings.Fields(words(86))[38:], " "), "w50", "<mark>w50</mark>", 1) + "…"},
		{"window at the start", words(100), "w3",
			strings.Replace(words(48), "w3 ", "<mark>w3</mark> ", 1) + "…"},
		{"window at the end", words(100), "w99",
			"…" + strings.Replace(strings.Join(strings.Fields(words(100))[52:], " "), "w99", "<mark>w99</mark>", 1)},
		{"literal tags neutralized", "a </mark> b <mark> c", "b", "a &lt;/mark> <mark>b</mark> &lt;mark> c"},
		{"matched token inside a literal tag", "<mark>", "mark", "<<mark>mark</mark>>"},
		{"giant token is cut on a rune boundary", "x " + strings.Repeat("é", 1500) + " y", strings.Repeat("é", 1500),
			"…<mark>" + strings.Repeat("é", MaxSnippetBytes/2) + "</mark>…"},
		{"combining marks stay in the token", "cafe\u0301 noir", "cafe\u0301", "<mark>cafe\u0301</mark> noir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Snippet(tt.text, tt.q)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Snippet(%.40q, %.20q) (-want +got):\n%s", tt.text, tt.q, diff)
			}
			checkSnippet(t, tt.text, got)
		})
	}
}

func TestLexicalBestField(t *testing.T) {
	t.Parallel()
	ix := New()
	ix.Add(Doc{Key: key("m"), Fields: []Field{
		{Name: "subject", Text: "budget"},
		{Name: "secret", Text: "budget budget budget"},
		{Name: "body", Text: "the budget and the budget"},
		{Name: "footer", Text: "nothing"},
		{Name: "sig", Text: "budget"},
	}})
	hideSecret := func(_ DocKey, f string) bool { return f != "secret" }
	got := ix.Lexical(Query{Text: "budget", FieldAllowed: hideSecret})
	want := []Hit{{
		Key: key("m"), Score: got[0].Score, MatchedFields: []string{"subject", "body", "sig"},
		SnippetField: "body", Snippet: "the <mark>budget</mark> and the <mark>budget</mark>",
		Sources: []string{SourceLexical},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("best field (-want +got):\n%s", diff)
	}
}

// checkSnippet asserts the snippet invariants: <mark> tags alternate
// open/close and never nest, and the text without tags and edge ellipses is
// a verbatim substring of the original.
func checkSnippet(t *testing.T, text, snippet string) {
	t.Helper()
	if snippet == "" {
		return
	}
	var plain strings.Builder
	open := false
	for s := snippet; s != ""; {
		switch {
		case strings.HasPrefix(s, MarkOpen):
			if open {
				t.Fatalf("nested <mark> in %q", snippet)
			}
			open, s = true, s[len(MarkOpen):]
		case strings.HasPrefix(s, MarkClose):
			if !open {
				t.Fatalf("unopened </mark> in %q", snippet)
			}
			open, s = false, s[len(MarkClose):]
		default:
			plain.WriteByte(s[0])
			s = s[1:]
		}
	}
	if open {
		t.Fatalf("unclosed <mark> in %q", snippet)
	}
	if !utf8.ValidString(snippet) && utf8.ValidString(text) {
		t.Fatalf("snippet %q is not valid UTF-8", snippet)
	}
	p := strings.NewReplacer("&lt;mark>", MarkOpen, "&lt;/mark>", MarkClose).Replace(plain.String())
	for _, c := range []string{p, strings.TrimPrefix(p, Ellipsis), strings.TrimSuffix(p, Ellipsis),
		strings.TrimSuffix(strings.TrimPrefix(p, Ellipsis), Ellipsis)} {
		if strings.Contains(text, c) {
			return
		}
	}
	t.Fatalf("snippet text %q is not a substring of %q", p, text)
}

func FuzzSnippet(f *testing.F) {
	f.Add("This is a threaded reply.", "threaded")
	f.Add(words(200), "w120 w7")
	f.Add("a </mark> b <mark> c", "mark b")
	f.Add("Réunion à Zürich", "ZÜRICH")
	f.Add("x\xffy é\u0301", "y")
	f.Fuzz(func(t *testing.T, text, q string) {
		if strings.Contains(text, "&lt;") {
			t.Skip("literal entity would be ambiguous with neutralized tags")
		}
		s := Snippet(text, q)
		checkSnippet(t, text, s)
		if s != "" && !strings.Contains(s, MarkOpen) {
			t.Fatalf("non-empty snippet %q without a mark", s)
		}
	})
}

func FuzzTokenize(f *testing.F) {
	f.Add("Hello, World! 123 café\u0301 東京")
	f.Add("\xff\xfe a-b_c")
	f.Fuzz(func(t *testing.T, s string) {
		prev := 0
		forEachToken(s, func(tok string, start, end int) bool {
			if start < prev || end <= start || end > len(s) {
				t.Fatalf("bad range [%d,%d) after %d in %q", start, end, prev, s)
			}
			if tok != strings.ToLower(s[start:end]) {
				t.Fatalf("token %q is not the lower-cased %q", tok, s[start:end])
			}
			for _, r := range s[start:end] {
				if !isTokenRune(r) || r == utf8.RuneError {
					t.Fatalf("separator %q inside token %q", r, tok)
				}
			}
			for _, r := range s[prev:start] {
				if isTokenRune(r) && r != utf8.RuneError {
					t.Fatalf("token rune %q skipped in %q", r, s)
				}
			}
			prev = end
			return true
		})
		if len(queryTerms(s)) > MaxQueryTerms {
			t.Fatalf("queryTerms not bounded")
		}
	})
}
