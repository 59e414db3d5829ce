package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// serve checks the sign-in configuration before it listens: a malformed
// selection is a usage error (64), an RS whose authorization server the
// front cannot use a configuration error (78); each message names the
// setting.
func TestServeChecksSignInAtStartUp(t *testing.T) {
	t.Parallel()
	ds, err := demodata.Build(demodata.Options{Records: 50})
	if err != nil {
		t.Fatal(err)
	}
	noAS := rstest.NewServer(ds) // no authorization server mounted
	t.Cleanup(noAS.Close)
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := file("good.json", demoSignInDetails)
	cases := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"not JSON", []string{"--sign-in-details", file("bad.json", "nope")}, exitUsage, "--sign-in-details"},
		{"no instance ids", []string{"--sign-in-details", file("empty.json", `[{"type":"t","connector_id":"gmail","streams":[{"name":"*","instance_ids":[""]}]}]`)}, exitUsage, "instance_ids"},
		{"missing file", []string{"--sign-in-details", filepath.Join(dir, "absent.json")}, exitUsage, "--sign-in-details"},
		{"both forms", []string{"--sign-in-details", good, "--sign-in-connector", "slack"}, exitUsage, "not both"},
		{"RS without an authorization server", []string{"--sign-in-connector", "slack"}, exitConfig, "authorization server"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			args := append([]string{"--provider-url", noAS.URL, "--addr", "127.0.0.1:0"}, tc.args...)
			code := runServe(context.Background(), args, func(string) string { return "" }, &bytes.Buffer{}, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.says) {
				t.Errorf("exit %d, stderr %q; want %d mentioning %q", code, stderr.String(), tc.code, tc.says)
			}
		})
	}
}
