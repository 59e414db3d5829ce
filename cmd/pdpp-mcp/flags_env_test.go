package main

import (
	"context"
	"strings"
	"testing"
)

// helpFlags runs `pdpp-mcp <cmd> --help` under env and returns each
// flag's help text (its usage and printed default) by name.
func helpFlags(t *testing.T, cmd string, env map[string]string) map[string]string {
	t.Helper()
	var out, errOut strings.Builder
	if code := run(context.Background(), []string{cmd, "--help"}, func(k string) string { return env[k] }, &out, &errOut); code != exitOK {
		t.Fatalf("%s --help: exit %d, stderr %q", cmd, code, errOut.String())
	}
	flags := map[string]string{}
	name := ""
	for _, line := range strings.Split(out.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "  -"); ok {
			name, _, _ = strings.Cut(rest, " ")
			continue
		}
		if name != "" && strings.HasPrefix(line, "    \t") {
			flags[name] += strings.TrimPrefix(line, "    \t") + " "
		}
	}
	if len(flags) == 0 {
		t.Fatalf("%s --help lists no flags:\n%s", cmd, out.String())
	}
	return flags
}

// TestEveryFlagHasAnEnvironmentVariable: as --help promises, every flag
// of every command names its environment variable.
func TestEveryFlagHasAnEnvironmentVariable(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"serve", "stdio", "demo", "mockrs"} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			for name, help := range helpFlags(t, cmd, nil) {
				if name == "version" {
					continue // a request, not a setting
				}
				if !envNamed.MatchString(help) {
					t.Errorf("%s --%s names no environment variable: %q", cmd, name, help)
				}
			}
		})
	}
}

// TestDemoAndMockRSVariablesTakeEffect: a variable sets its flag (shown
// as the default by --help), and a value the flag refuses is a usage
// error naming the variable.
func TestDemoAndMockRSVariablesTakeEffect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd, flag, key, value, wantHelp string
	}{
		{"mockrs", "records", "PDPP_MCP_MOCKRS_RECORDS", "7", "(default 7)"},
		{"mockrs", "json", "PDPP_MCP_MOCKRS_JSON", "true", "(default true)"},
		{"mockrs", "fault-status", "PDPP_MCP_MOCKRS_FAULT_STATUS", "503", "(default 503)"},
		{"mockrs", "lexical-gap", "PDPP_MCP_MOCKRS_LEXICAL_GAP", "cin_a:messages", "cin_a messages"},
		{"demo", "token-ttl", "PDPP_MCP_DEMO_TOKEN_TTL", "2m", "(default 2m0s)"},
		{"demo", "rs-addr", "PDPP_MCP_DEMO_RS_ADDR", "127.0.0.1:17999", `(default "127.0.0.1:17999")`},
		{"demo", "real-auth", "PDPP_MCP_DEMO_REAL_AUTH", "true", "(default true)"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			help := helpFlags(t, tt.cmd, map[string]string{tt.key: tt.value})[tt.flag]
			if !strings.Contains(help, "("+tt.key+")") || !strings.Contains(help, tt.wantHelp) {
				t.Errorf("%s --%s with %s=%s: help %q, want the variable named and %s", tt.cmd, tt.flag, tt.key, tt.value, help, tt.wantHelp)
			}
		})
	}
	for _, tt := range []struct{ cmd, key string }{{"mockrs", "PDPP_MCP_MOCKRS_RECORDS"}, {"demo", "PDPP_MCP_DEMO_TOKEN_TTL"}} {
		var out, errOut strings.Builder
		code := run(context.Background(), []string{tt.cmd, "--help"}, func(k string) string {
			if k == tt.key {
				return "many"
			}
			return ""
		}, &out, &errOut)
		if code != exitUsage || !strings.Contains(errOut.String(), tt.key+`="many"`) {
			t.Errorf("%s with %s=many: exit %d, stderr %q; want 64 naming the variable", tt.cmd, tt.key, code, errOut.String())
		}
	}
}
