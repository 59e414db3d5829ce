package schemaindex

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/golden"
)

// checkGolden compares got with testdata/<name>; -update rewrites it. A
// missing golden file is a failure so a forgotten -update cannot pass.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	want := golden.Read(t, path, []byte(got))
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("golden %s mismatch (-want +got):\n%s", path, diff)
	}
}

// mustParseFile parses a testdata body through a grant key.
func mustParseFile(t testing.TB, name, grantKey string) *Doc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(b, Source{GrantKey: grantKey})
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return d
}

// gmailSlack is the Example B package: Example A (Gmail, two connections)
// plus the Slack grant; both carry a stream named "messages".
func gmailSlack(t testing.TB) *Index {
	t.Helper()
	return Merge(mustParseFile(t, "gmail_example_a.json", "gk1"), mustParseFile(t, "slack_example_b.json", "gk2"))
}
