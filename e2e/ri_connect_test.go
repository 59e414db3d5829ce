package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/internal/ritest"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
)

// riDetails is the sign-in selection the reference AS grants: both seeded
// Gmail connections, with the purpose and access mode it requires.
func riDetails(t *testing.T, ri *ritest.RI) string {
	t.Helper()
	var streams []map[string]any
	for _, s := range ritest.DefaultStreams {
		streams = append(streams, map[string]any{"name": s, "instance_ids": []string{ri.Connections["work"], ri.Connections["personal"]}})
	}
	raw, _ := json.Marshal([]map[string]any{{"type": "https://pdpp.dev/data-access",
		"source":       map[string]any{"kind": "connector", "id": "https://registry.pdpp.dev/connectors/gmail"},
		"purpose_code": "https://pdpp.dev/purpose/personal_ai_assistant", "access_mode": "continuous", "streams": streams}})
	path := filepath.Join(t.TempDir(), "details.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// riConnect runs `pdpp-mcp connect` against the RI with --no-browser and
// approves the printed URL as the owner; it returns the cache root.
func riConnect(t *testing.T, ri *ritest.RI) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), ".pdpp")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, "connect", ri.RSURL, "--sign-in-details", riDetails(t, ri),
		"--cache-root", root, "--no-browser", "--timeout", "2m")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root}
	cmd.WaitDelay = 5 * time.Second
	stdout := &testLogWriter{t: t, prefix: "connect: "}
	cmd.Stdout = stdout
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	approved := make(chan error, 1)
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		t.Logf("connect: %s", sc.Text())
		if u, ok := strings.CutPrefix(sc.Text(), "  http"); ok {
			go func() { approved <- ri.Approve(ctx, "http"+u) }()
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("connect: %v", err)
	}
	if err := <-approved; err != nil {
		t.Fatalf("the owner's approval: %v", err)
	}
	return root
}

// riRewrite edits the cached credential as a person with an editor would.
func riRewrite(t *testing.T, path string, edit func(cred map[string]any)) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	cred := doc["credential"].(map[string]any)
	if edit == nil {
		return cred
	}
	edit(cred)
	raw, _ = json.Marshal(doc)
	if err := os.WriteFile(path+".edit", raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".edit", path); err != nil {
		t.Fatal(err)
	}
	return cred
}

// TestRIConnectAndRenewal: `pdpp-mcp connect` signs in at the reference
// AS the header-free way and writes the cache with a refresh token; a
// stdio session on it renews its token with no user action, twice (two
// token lifetimes, each ended early by moving expires_at into the past,
// as 600 s cannot be waited for here). Each renewal rotates the refresh
// token at the real AS, which revokes a grant whose spent refresh token
// comes back: every read after it working shows none was reused.
func TestRIConnectAndRenewal(t *testing.T) {
	t.Parallel()
	ri := ritest.Shared(t)
	root := riConnect(t, ri)
	path, _ := credcache.CacheFilePath(root, ri.RSURL)
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("cache %s: %v %v", path, err, st)
	}
	first := riRewrite(t, path, nil)
	if first["refresh_token"] == nil || first["grant_id"] == nil {
		t.Fatalf("the cache holds no refresh token or grant: %v keys", len(first))
	}

	stderr := &testenv.Output{}
	cmd := exec.Command(binPath, "--provider-url", ri.RSURL, "--cache-root", root)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, waitForDetails}
	cmd.Stderr = stderr
	s := connect(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, defaultProtocol)
	watchProcess(t, cmd, false)
	read := map[string]any{"stream": "messages", "limit": 2}
	if res := s.call("query_records", read); res.IsError {
		t.Fatalf("first read: %s", res.Text)
	}
	seen := map[any]bool{first["refresh_token"]: true}
	for lifetime := 1; lifetime <= 2; lifetime++ {
		riRewrite(t, path, func(c map[string]any) { c["expires_at"] = time.Now().Add(-time.Minute).UTC().Format(time.RFC3339) })
		if res := s.call("query_records", read); res.IsError {
			t.Fatalf("lifetime %d: %s\nstderr:\n%s", lifetime, res.Text, stderr.String())
		}
		rt := riRewrite(t, path, nil)["refresh_token"]
		if seen[rt] {
			t.Errorf("lifetime %d: the refresh token did not rotate", lifetime)
		}
		seen[rt] = true
	}
	if res := s.call("query_records", read); res.IsError {
		t.Fatalf("after two renewals: %s", res.Text)
	}
	if n := strings.Count(stderr.String(), "renewed the cached credential"); n != 2 {
		t.Errorf("%d renewals reported, want 2:\n%s", n, stderr.String())
	}
	for rt := range seen {
		if strings.Contains(stderr.String(), rt.(string)) {
			t.Error("stderr quotes a refresh token")
		}
	}
}
