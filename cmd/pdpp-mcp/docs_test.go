package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestDocsSpeakToUsers: README and CONTRIBUTING name what a reader can
// type (--verify-rate, PDPP_MCP_VERIFY_RATE), never a Go field of the
// packages' options (hosted.Options.VerifyRate), and say what a target is
// rather than citing an issue number only the project's tracker knows.
func TestDocsSpeakToUsers(t *testing.T) {
	t.Parallel()
	forbidden := []struct {
		re   *regexp.Regexp
		what string
	}{
		{regexp.MustCompile(`\b(?:hosted|adapter|rsclient|bearerauth|rstest|credcache)\.(?:Options|Config)\.[A-Z]\w*`),
			"a Go field; name the flag or environment variable"},
		{regexp.MustCompile(`(?i)\bissue\s+#?\d+`), "an issue number; say what it asked for"},
	}
	for _, doc := range []string{"../../README.md", "../../CONTRIBUTING.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, f := range forbidden {
				if m := f.re.FindString(line); m != "" {
					t.Errorf("%s:%d names %q: %s", doc, i+1, m, f.what)
				}
			}
		}
	}
}

// TestMakeDemoSaysWhatItDoes: a cold `make demo` compiles for a minute or
// more before the demo prints anything; the first thing it runs says so.
func TestMakeDemoSaysWhatItDoes(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	cmd := exec.CommandContext(t.Context(), "make", "-n", "--no-print-directory", "demo")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make -n demo: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	build := -1
	for i, l := range lines {
		if !strings.HasPrefix(l, "echo ") && strings.Contains(l, "go build") {
			build = i
			break
		}
	}
	if build < 1 || !strings.HasPrefix(lines[0], "echo ") || !strings.Contains(lines[0], "building") {
		t.Errorf("make demo runs %q first; want an echo saying it is building before the go build (line %d):\n%s", lines[0], build+1, out)
	}
}
