package page

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateRunes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		n    int
		want string
		cut  bool
	}{
		{"hello", 5, "hello", false},
		{"hello", 4, "hel…", true},
		{"héllo wörld", 3, "hé…", true},
		{"👋🏽 hi", 2, "👋…", true},
		{"abc", 1, "…", true},
		{"abc", 0, "", true},
		{"", 0, "", false},
		{"a\xffb", 3, "a\uFFFDb", false},
		{"a\xff\xfeb", 3, "a\uFFFD…", true},
	}
	for _, tt := range tests {
		got, cut := TruncateRunes(tt.s, tt.n)
		if got != tt.want || cut != tt.cut {
			t.Errorf("TruncateRunes(%q, %d) = %q, %v; want %q, %v", tt.s, tt.n, got, cut, tt.want, tt.cut)
		}
	}
}

func TestTruncateMarked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, s string
		n       int
		want    string
		cut     bool
	}{
		{"fits", "a <mark>b</mark> c", 5, "a <mark>b</mark> c", false},
		{"cut inside mark closes it", "see <mark>integration</mark> now", 9, "see <mark>inte</mark>…", true},
		{"cut right after open drops it", "abcd<mark>efg</mark>", 5, "abcd…", true},
		{"cut after close", "<mark>ab</mark>cdef", 4, "<mark>ab</mark>c…", true},
		{"never inside a tag", "abc<mark>d</mark>", 3, "ab…", true},
		{"unclosed input", "a <mark>b c", 10, "a <mark>b c</mark>", false},
		{"dangling open at end", "abc<mark>", 10, "abc", false},
		{"stray close repaired", "a</mark>b", 10, "a<mark></mark>b", false},
		{"nested open repaired", "<mark>a<mark>b</mark>c</mark>", 10, "<mark>a</mark><mark>b</mark>c<mark></mark>", false},
		{"other tags are text", "<b>bold</b>", 6, "<b>bo…", true},
		{"uppercase is text", "<MARK>x", 7, "<MARK>x", false},
		{"multibyte", "ünï<mark>cødé</mark>", 5, "ünï<mark>c</mark>…", true},
		{"n zero", "<mark>x</mark>", 0, "", true},
		{"n one", "<mark>xy</mark>", 1, "…", true},
		{"spliced tag stays text", "<ma</mark>rk>x", 20, "<ma<mark></mark>rk>x", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, cut := TruncateMarked(tt.s, tt.n)
			if got != tt.want || cut != tt.cut {
				t.Errorf("TruncateMarked(%q, %d) = %q, %v; want %q, %v", tt.s, tt.n, got, cut, tt.want, tt.cut)
			}
			if !balanced(got) {
				t.Errorf("unbalanced result %q", got)
			}
		})
	}
}

func TestStripMarks(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a <mark>b</mark> c": "a b c",
		"<ma<mark>rk>":       "<mark>", // one pass: what remains is text
		"<b>x</b>":           "<b>x</b>",
	} {
		if got := StripMarks(in); got != want {
			t.Errorf("StripMarks(%q) = %q, want %q", in, got, want)
		}
	}
}

// balanced reports whether s's <mark> tags alternate open/close and end closed.
func balanced(s string) bool {
	open := false
	for _, tok := range tokenizeMarks(s) {
		switch {
		case tok.tag == 1 && open, tok.tag == -1 && !open:
			return false
		case tok.tag != 0:
			open = tok.tag == 1
		}
	}
	return !open
}

func FuzzTruncateRunes(f *testing.F) {
	f.Add("héllo wörld", 4)
	f.Add("a\xffb", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		got, cut := TruncateRunes(s, n)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 %q", got)
		}
		if utf8.RuneCountInString(got) > max(n, 0) && cut {
			t.Fatalf("%q exceeds %d runes", got, n)
		}
		if !cut && got != validUTF8(s) {
			t.Fatalf("uncut result %q differs from input %q", got, s)
		}
		if cut && n > 0 && !strings.HasPrefix(validUTF8(s), strings.TrimSuffix(got, Ellipsis)) {
			t.Fatalf("%q is not a prefix of %q", got, s)
		}
	})
}

func FuzzTruncateMarked(f *testing.F) {
	f.Add("see <mark>integration</mark> now", 9)
	f.Add("<ma</mark>rk>x", 3)
	f.Add("<mark><mark></mark>", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n > 1<<16 {
			return
		}
		got, cut := TruncateMarked(s, n)
		if !balanced(got) {
			t.Fatalf("TruncateMarked(%q, %d) = %q is unbalanced", s, n, got)
		}
		plain := StripMarks(strings.TrimSuffix(got, Ellipsis))
		if !cut {
			plain = StripMarks(got)
		}
		if !strings.HasPrefix(StripMarks(validUTF8(s)), plain) {
			t.Fatalf("StripMarks(%q) is not a prefix of StripMarks(%q)", got, s)
		}
		if cut && utf8.RuneCountInString(StripMarks(got)) > max(n, 0) {
			t.Fatalf("%q shows more than %d runes", got, n)
		}
	})
}
