package bearer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/bearer"
)

func TestWellFormed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tok  string
		want bool
	}{
		{"4321c92db1b096820479b67aaeed36d026a92527e8ecf308ed027aed37979dee", true},
		{"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln", true},
		{"a-b.c_d~e+f/g==", true},
		{"abc=", true},
		{"", false},
		{"=", false},
		{"abc!def", false},
		{"ab=c", false},
		{"abc def", false},
		{"abc\r\nX-Evil: 1", false},
		{"tökén", false},
		{`abc"def`, false},
		{strings.Repeat("a", bearer.MaxBytes), true},
		{strings.Repeat("a", bearer.MaxBytes+1), false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%.20q", tt.tok), func(t *testing.T) {
			t.Parallel()
			if got := bearer.WellFormed(tt.tok); got != tt.want {
				t.Errorf("WellFormed(%.40q) = %v, want %v", tt.tok, got, tt.want)
			}
		})
	}
}

func FuzzWellFormed(f *testing.F) {
	for _, s := range []string{"abc", "abc!def", "a==", "eyJ.eyJ.sig", "a\r\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		if !bearer.WellFormed(tok) {
			return
		}
		// Whatever is accepted is safe in a header and bounded.
		if len(tok) > bearer.MaxBytes || strings.ContainsAny(tok, " \t\r\n\",;\\") {
			t.Fatalf("accepted %q", tok)
		}
		for _, r := range tok {
			if r > 0x7e || r < 0x21 {
				t.Fatalf("accepted non-visible byte in %q", tok)
			}
		}
		if i := strings.IndexByte(tok, '='); i >= 0 && strings.Trim(tok[i:], "=") != "" {
			t.Fatalf("accepted '=' before the end in %q", tok)
		}
	})
}

func TestServedKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind string
		want bool
	}{
		{"client", true}, {" Client ", true},
		{"owner", false}, {"mcp_package", false}, {"control_plane", false}, {"", false}, {"clientx", false},
	}
	for _, tt := range tests {
		if got := bearer.Served(tt.kind); got != tt.want {
			t.Errorf("Served(%q) = %v, want %v", tt.kind, got, tt.want)
		}
	}
}

func TestOwnerLabelsAndScopes(t *testing.T) {
	t.Parallel()
	labels := []struct {
		label string
		want  bool
	}{{"owner", true}, {"OWNER ", true}, {"control-plane", true}, {"control_plane", true}, {"client", false}, {"", false}}
	for _, tt := range labels {
		if got := bearer.OwnerLabel(tt.label); got != tt.want {
			t.Errorf("OwnerLabel(%q) = %v, want %v", tt.label, got, tt.want)
		}
	}
	scopes := []struct {
		scope string
		want  bool
	}{{"read pdpp:owner", true}, {"owner:all", true}, {"control", true}, {"read write", false}, {"", false}}
	for _, tt := range scopes {
		if got := bearer.OwnerScope(tt.scope); got != tt.want {
			t.Errorf("OwnerScope(%q) = %v, want %v", tt.scope, got, tt.want)
		}
	}
}

func ExampleWellFormed() {
	fmt.Println(bearer.WellFormed("abc.def_ghi"), bearer.WellFormed("abc!def"))
	// Output: true false
}
