package contentladder_test

import (
	"fmt"
	"testing"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/page"
)

// FuzzQuoteCutsAsTruncateRunes keeps the cut of error messages' quoted
// input the one page.TruncateRunes makes, which error messages used before
// page moved out of this package.
func FuzzQuoteCutsAsTruncateRunes(f *testing.F) {
	for _, s := range []string{"", "a/b:c", "\xff\xfe", "é", string(make([]byte, 81)), "x\x00\ny"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cut, _ := page.TruncateRunes(s, 80)
		if got, want := contentladder.Quote(s), fmt.Sprintf("%q", cut); got != want {
			t.Errorf("quote(%q) = %s, page.TruncateRunes then %%q = %s", s, got, want)
		}
	})
}
