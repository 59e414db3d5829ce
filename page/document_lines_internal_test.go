package page

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// A long requested value is cut on its line with the exact continuation:
// the offset is where the shown prefix stops in the stored value.
func TestFieldLinesCutWithContinuation(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("line one\nünïcødé ", 400)
	payload := objectJSON([]member{{"notes", long}, {"n", 7}, {"tags", []string{"a", "b"}}})
	members, _ := ObjectMembers(payload)
	ref := contentladder.RecordRef{ConnectionID: "cin_1", Stream: "s", RecordID: "r:1"}
	text := fieldLines(ref, members, []string{"notes", "n", "tags", "gone"}, "")
	m := continueRe.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no continuation:\n%s", text)
	}
	var shown int
	fmt.Sscan(m[1], &shown)
	prefix := strings.TrimPrefix(strings.SplitN(text, " [cut at", 2)[0], "notes: ")
	prefix = strings.TrimSuffix(prefix, Ellipsis)
	if want := flatten(string([]rune(long)[:shown])); prefix != want {
		t.Errorf("shown prefix is not the first %d chars of the value", shown)
	}
	if !strings.Contains(m[3], fmt.Sprintf(`"offset_chars":%d`, shown)) || !strings.Contains(m[3], `"id":"cin_1/s:r:1"`) {
		t.Errorf("continuation %s", m[3])
	}
	for _, want := range []string{"\nn: 7\n", "\ntags: [\"a\",\"b\"]\n", "\ngone: (not in this record"} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q:\n%s", want, text)
		}
	}
}

var continueRe = regexp.MustCompile(`\[cut at (\d+) of (\d+) chars; continue with read_record_field (\{[^}]*\})\]`)
