package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

var stdioNextCursorRE = regexp.MustCompile(` next_cursor=(\S+)`)

// oneCall runs one stdio process for one tools/call (the Inspector CLI's
// way: a process per call) and returns its result text and isError.
func oneCall(t *testing.T, bin, dir string, env map[string]string, providerURL, tool string, args map[string]any) (string, bool) {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 4, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	res := runBinary(t, bin, dir, env, mcpSession+string(req)+"\n", "--provider-url", providerURL)
	if res.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	for line := range strings.SplitSeq(res.stdout, "\n") {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.ID == 4 && len(msg.Result.Content) > 0 {
			return msg.Result.Content[0].Text, msg.Result.IsError
		}
	}
	t.Fatalf("no answer to the call; stdout:\n%s", res.stdout)
	return "", false
}

// A next_cursor printed by one stdio process continues in the
// next one (a restarted server, a process per call), because both seal
// with the secret kept 0600 beside the credential cache; a configured
// PDPP_MCP_CURSOR_SECRET is used instead, and a bad one refuses to start.
func TestStdioCursorSurvivesRestart(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	rs := testenv.StartRS(t, testenv.Options{})
	first := map[string]any{"stream": "messages", "connection_id": demodata.GmailWorkConnectionID, "changes_since": "beginning", "limit": 5}
	next := func(c string) map[string]any {
		return map[string]any{"stream": "messages", "connection_id": demodata.GmailWorkConnectionID, "cursor": c}
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		file bool // the secret is kept in the cache root
	}{
		{"secret kept beside the cache", nil, true},
		{"configured secret", map[string]string{"PDPP_MCP_CURSOR_SECRET": strings.Repeat("s3cr", 10)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cacheWith(t, dir, rs.URL, credJSON(demodata.GmailToken, ""))
			text, isErr := oneCall(t, bin, dir, tc.env, rs.URL, "query_records", first)
			m := stdioNextCursorRE.FindStringSubmatch(text)
			if isErr || m == nil {
				t.Fatalf("first page: %s", text)
			}
			if text, isErr := oneCall(t, bin, dir, tc.env, rs.URL, "query_records", next(m[1])); isErr {
				t.Fatalf("the next process must continue the cursor: %s", text)
			}
			st, err := os.Stat(filepath.Join(dir, ".pdpp", credcache.CursorSecretFile))
			switch {
			case tc.file && (err != nil || st.Mode().Perm() != 0o600):
				t.Errorf("secret file: %v (err %v), want mode 0600", st, err)
			case !tc.file && err == nil:
				t.Error("a configured secret must not leave a secret file")
			}
		})
	}
	t.Run("short configured secret", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		cacheWith(t, dir, rs.URL, credJSON(demodata.GmailToken, ""))
		res := runBinary(t, bin, dir, map[string]string{"PDPP_MCP_CURSOR_SECRET": "short"}, mcpSession, "--provider-url", rs.URL)
		if res.code != exitConfig || !strings.Contains(res.stderr, "PDPP_MCP_CURSOR_SECRET") {
			t.Errorf("exit %d, want %d naming the variable; stderr:\n%s", res.code, exitConfig, res.stderr)
		}
	})
}
