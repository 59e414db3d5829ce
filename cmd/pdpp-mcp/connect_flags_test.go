package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"
)

// connect --help is usage on stdout; every flag but the request for help
// names its environment variable; bad flags are usage errors (64) that
// name the flag, before anything is contacted.
func TestConnectFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	details := filepath.Join(dir, "details.json")
	if err := os.WriteFile(details, []byte(`[{"type":"https://pdpp.dev/data-access","source":{"kind":"connector","id":"https://registry.pdpp.dev/connectors/gmail"},"purpose_code":"https://pdpp.dev/purpose/personal_ai_assistant","access_mode":"continuous","streams":[{"name":"messages","instance_ids":["cin_1"]}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`[{"type":"x","streams":[]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		args       []string
		env        map[string]string
		code       int
		wantStderr string
	}{
		{"help", []string{"--help"}, nil, exitOK, ""},
		{"no URL", nil, nil, exitUsage, "missing --provider-url"},
		{"URL without scheme", []string{"rs.example"}, nil, exitUsage, "has no scheme"},
		{"both selections", []string{"http://127.0.0.1:1", "--sign-in-details", details, "--connector", "gmail"}, nil, exitUsage, "not both"},
		{"details file missing", []string{"http://127.0.0.1:1", "--sign-in-details", filepath.Join(dir, "none.json")}, nil, exitUsage, "--sign-in-details"},
		{"details malformed", []string{"http://127.0.0.1:1", "--sign-in-details", bad}, nil, exitUsage, "authorization_details[0]"},
		{"bad timeout", []string{"http://127.0.0.1:1", "--timeout", "soon"}, nil, exitUsage, "--timeout"},
		{"bad no-browser variable", []string{"http://127.0.0.1:1"}, map[string]string{"PDPP_MCP_NO_BROWSER": "maybe"}, exitUsage, "PDPP_MCP_NO_BROWSER"},
		{"owner credentials present", []string{"http://127.0.0.1:1"}, map[string]string{"PDPP_OWNER_TOKEN": "x"}, exitNoPerm, "owner credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut strings.Builder
			code := run(context.Background(), append([]string{"connect"}, tc.args...), mapEnv(tc.env), &out, &errOut)
			if code != tc.code || !strings.Contains(errOut.String(), tc.wantStderr) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", code, tc.code, tc.wantStderr, errOut.String())
			}
			if tc.name == "help" && !strings.HasPrefix(out.String(), "usage: pdpp-mcp connect") {
				t.Errorf("help on stdout:\n%s", out.String())
			}
		})
	}
	var out strings.Builder
	parseConnectFlags([]string{"--help"}, mapEnv(nil), &out, &out)
	flags := strings.Split(out.String(), "\n  -")[1:]
	if len(flags) != 6 {
		t.Errorf("%d flags in the usage, want 6:\n%s", len(flags), out.String())
	}
	for _, line := range flags {
		if !strings.Contains(line, "(PDPP_") {
			t.Errorf("a connect flag names no environment variable: %q", line)
		}
	}
}

// The selection flags become the authorize request's parameters exactly
// as serve's sign-in front sends them: one of authorization_details
// (compacted) or connector_id, and nothing without a selection.
func TestConnectSelectionParams(t *testing.T) {
	t.Parallel()
	details := filepath.Join(t.TempDir(), "d.json")
	if err := os.WriteFile(details, []byte(`[{"type": "https://pdpp.dev/data-access", "source": {"kind": "connector", "id": "https://registry.pdpp.dev/connectors/slack"}, "purpose_code": "https://pdpp.dev/purpose/personal_ai_assistant", "access_mode": "continuous", "streams": [{"name": "messages"}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, details, connector string
		want                     url.Values
	}{
		{"connector", "", "slack", url.Values{"connector_id": {"slack"}}},
		{"details", details, "", url.Values{"authorization_details": {`[{"type":"https://pdpp.dev/data-access","source":{"kind":"connector","id":"https://registry.pdpp.dev/connectors/slack"},"purpose_code":"https://pdpp.dev/purpose/personal_ai_assistant","access_mode":"continuous","streams":[{"name":"messages"}]}]`}}},
		{"none", "", "", url.Values{}},
	} {
		sel, err := connectSelection(tc.details, tc.connector)
		if err != nil {
			t.Fatal(err)
		}
		conf := oauth2.Config{Endpoint: oauth2.Endpoint{AuthURL: "https://as.example/authorize"}}
		u, _ := url.Parse(conf.AuthCodeURL("st", selectionParams(sel)...))
		got := url.Values{}
		for _, k := range []string{"connector_id", "authorization_details"} {
			if u.Query().Has(k) {
				got[k] = u.Query()[k]
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
