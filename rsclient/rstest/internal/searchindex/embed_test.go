package searchindex

import (
	"hash/fnv"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEmbedFeatures checks the allocation-free trigram walk against a
// straightforward []rune implementation.
func TestEmbedFeatures(t *testing.T) {
	t.Parallel()
	ref := func(text string) []uint32 {
		var out []uint32
		for _, tok := range Tokenize(text) {
			r := []rune(" " + tok + " ")
			for i := 0; i+3 <= len(r); i++ {
				h := fnv.New32a()
				h.Write([]byte("t" + string(r[i:i+3])))
				out = append(out, h.Sum32())
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, text := range []string{"", "a", "ab", "abc", "Hello wörld 東京タワー x", "same same same", "é\u0301 1"} {
		_, got := embed(text)
		if diff := cmp.Diff(ref(text), got, cmp.Comparer(func(a, b []uint32) bool { return slices.Equal(a, b) })); diff != "" {
			t.Errorf("embed(%q) features (-want +got):\n%s", text, diff)
		}
	}
}
