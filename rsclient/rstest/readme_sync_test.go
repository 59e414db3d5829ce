package rstest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readmeSection is the README heading whose Go block is readme_test.go.
const readmeSection = "## The mock RS in your own tests"

// TestREADMESnippetCompiles: the README's rstest snippet is readme_test.go
// verbatim, so it compiles and runs with this package's tests (the snippet
// once named an undefined clock and ignored MintClientToken's error).
func TestREADMESnippetCompiles(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	got, ok := goBlockAfter(string(readme), readmeSection)
	if !ok {
		t.Fatalf("README.md has no ```go block under %q", readmeSection)
	}
	if diff := cmp.Diff(string(file), got); diff != "" {
		t.Errorf("README.md's snippet under %q is not rsclient/rstest/readme_test.go verbatim; copy the file into the README (-file +README):\n%s", readmeSection, diff)
	}
}

// goBlockAfter is the body of the first ```go fenced block after heading.
func goBlockAfter(doc, heading string) (string, bool) {
	_, rest, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		return "", false
	}
	_, rest, ok = strings.Cut(rest, "\n```go\n")
	if !ok {
		return "", false
	}
	body, _, ok := strings.Cut(rest, "\n```\n")
	return body + "\n", ok
}
