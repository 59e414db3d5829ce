package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
		{"no instance ids", []string{"--sign-in-details", file("empty.json", strings.Replace(demoSignInDetails, `"instance_ids":["`, `"instance_ids":["","`, 1))}, exitUsage, "instance_ids"},
		{"no purpose_code", []string{"--sign-in-details", file("nopurpose.json", strings.Replace(demoSignInDetails, `"purpose_code":"https://pdpp.dev/purpose/personal_ai_assistant",`, "", 1))}, exitUsage, "purpose_code is required"},
		{"a member the AS does not take", []string{"--sign-in-details", file("extra.json", strings.Replace(demoSignInDetails, `"purpose_code"`, `"purpose"`, 1))}, exitUsage, `member "purpose" is not one`},
		{"a short source id", []string{"--sign-in-details", file("short.json", strings.Replace(demoSignInDetails, "https://registry.pdpp.dev/connectors/gmail", "gmail", 1))}, exitUsage, "source.id must be the connector's source URI"},
		{"the .org type", []string{"--sign-in-details", file("org.json", strings.Replace(demoSignInDetails, "pdpp.dev/data-access", "pdpp.org/data-access", 1))}, exitUsage, `type is required and must be "https://pdpp.dev/data-access"`},
		{"no access_mode", []string{"--sign-in-details", file("nomode.json", strings.Replace(demoSignInDetails, `"access_mode":"continuous",`, "", 1))}, exitUsage, "access_mode is required"},
		{"README's example passes the check (and stops at discovery)", []string{"--sign-in-details", file("readme.json", readmeSignInExample(t))}, exitConfig, "authorization server"},
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

// readmeSignInExample is README's --sign-in-details example (the JSON
// block after "This is the demo's selection").
func readmeSignInExample(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "This is the demo's selection")
	if !ok {
		t.Fatal("README lost its sign-in example")
	}
	_, rest, _ = strings.Cut(rest, "```json\n")
	block, _, _ := strings.Cut(rest, "```")
	return block
}

// README's --sign-in-details example is the demo's selection, so an
// operator copying it gets what demo --real-auth runs.
func TestReadmeSignInExampleIsTheDemoSelection(t *testing.T) {
	t.Parallel()
	var readme, demo any
	if err := json.Unmarshal([]byte(readmeSignInExample(t)), &readme); err != nil {
		t.Fatalf("README's example: %v", err)
	}
	if err := json.Unmarshal([]byte(demoSignInDetails), &demo); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(demo, readme); diff != "" {
		t.Errorf("README's example (-demo +README):\n%s", diff)
	}
}
