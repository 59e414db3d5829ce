package hosted_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/hosted"
)

// shellArgs runs `sh -c 'printf "%s\0" WORDS'` and returns the arguments
// the shell made of the words: the ground truth for quoting.
func shellArgs(t testing.TB, words string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `printf '%s\0' `+words).Output()
	if err != nil {
		t.Fatalf("sh %q: %v", words, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// TestShellQuoteRoundTrip: every quoted value is exactly one argument with
// the value's bytes once a POSIX shell has read it.
func TestShellQuoteRoundTrip(t *testing.T) {
	t.Parallel()
	for _, v := range []string{
		"/home/ann/go/bin/pdpp-mcp", "http://127.0.0.1:7671", "/home/Ann Lee/.cache", "it's", `a"b`, "$HOME",
		"`id`", "a\\b", "*", "~", "", "x;y", "a\nb", "--cache-root", "ünï",
	} {
		if diff := cmp.Diff([]string{v}, shellArgs(t, hosted.ShellQuote(v))); diff != "" {
			t.Errorf("ShellQuote(%q) = %s (-want +got):\n%s", v, hosted.ShellQuote(v), diff)
		}
	}
}

// FuzzShellQuote checks the round trip for any value without NUL (which
// no argument can hold).
func FuzzShellQuote(f *testing.F) {
	for _, s := range []string{"plain", "with space", "it's", "$(x)", "\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if v == "" || strings.ContainsRune(v, 0) || !utf8.ValidString(v) {
			t.Skip()
		}
		if got := shellArgs(t, hosted.ShellQuote(v)); len(got) != 1 || got[0] != v {
			t.Errorf("ShellQuote(%q) = %s read back as %q", v, hosted.ShellQuote(v), got)
		}
	})
}

// TestStdioCommands: each host's form carries the same command and
// arguments; the add-json and .mcp.json objects decode to them.
func TestStdioCommands(t *testing.T) {
	t.Parallel()
	exe, args := "/opt/pdpp mcp/pdpp-mcp", hosted.StdioArgs("https://pdpp.example", "/home/ann/.cache/pdpp-mcp/demo")
	shellWords := append([]string{hosted.ShellQuote(exe)}, hosted.ShellQuoteAll(args)...)
	type entry struct {
		Type    string   `json:"type,omitempty"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	for _, tc := range []struct {
		name, line, prefix string
	}{
		{"claude add", hosted.ClaudeCodeStdioCommand("pdpp-stdio", shellWords[0], shellWords[1:]), "claude mcp add pdpp-stdio -- "},
		{"codex add", hosted.CodexStdioCommand("pdpp-stdio", shellWords[0], shellWords[1:]), "codex mcp add pdpp-stdio -- "},
	} {
		rest, ok := strings.CutPrefix(tc.line, tc.prefix)
		if !ok {
			t.Errorf("%s: %q lacks prefix %q", tc.name, tc.line, tc.prefix)
			continue
		}
		if diff := cmp.Diff(append([]string{exe}, args...), shellArgs(t, rest)); diff != "" {
			t.Errorf("%s: argv (-want +got):\n%s", tc.name, diff)
		}
	}
	addJSON := shellArgs(t, strings.TrimPrefix(hosted.ClaudeCodeAddJSONCommand("pdpp-stdio", exe, args), "claude mcp add-json "))
	var inner entry
	if len(addJSON) != 2 || addJSON[0] != "pdpp-stdio" || json.Unmarshal([]byte(addJSON[1]), &inner) != nil {
		t.Fatalf("add-json words = %q, want name and one JSON object", addJSON)
	}
	if diff := cmp.Diff(entry{Type: "stdio", Command: exe, Args: args}, inner); diff != "" {
		t.Errorf("add-json object (-want +got):\n%s", diff)
	}
	var block struct {
		MCPServers map[string]entry `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(hosted.MCPServersJSON("pdpp-stdio", exe, args)), &block); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]entry{"pdpp-stdio": {Command: exe, Args: args}}, block.MCPServers); diff != "" {
		t.Errorf(".mcp.json block (-want +got):\n%s", diff)
	}
}
