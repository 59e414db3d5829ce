package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHelpAndVersion: asking for help or the version is not an error. It
// answers on stdout with exit 0, for the binary and every subcommand.
func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	want := appVersionOf(t, bin)
	cases := []struct {
		args       []string
		wantStdout []string
	}{
		{[]string{"version"}, []string{want + "\n"}},
		{[]string{"--version"}, []string{want + "\n"}},
		{[]string{"serve", "--version"}, []string{want + "\n"}},
		{[]string{"help"}, []string{"usage:", "pdpp-mcp serve", "-provider-url", "PDPP_CACHE_ROOT", "-log-format"}},
		{[]string{"--help"}, []string{"usage:", "pdpp-mcp demo"}},
		{[]string{"-h"}, []string{"usage:"}},
		{[]string{"help", "serve"}, []string{"usage: pdpp-mcp serve", "-metrics-addr", "PDPP_MCP_CURSOR_SECRET_FILE", "-log-level"}},
		{[]string{"serve", "--help"}, []string{"-jwks-url string", "PDPP_MCP_SHUTDOWN_TIMEOUT"}},
		{[]string{"demo", "--help"}, []string{"usage: pdpp-mcp demo", "-log-format"}},
		{[]string{"stdio", "--help"}, []string{"usage: pdpp-mcp", "-cache-root"}},
		{[]string{"mockrs", "--help"}, []string{"usage: pdpp-mcp mockrs", "-fault-status", "-request-log"}},
		{[]string{"help", "mockrs"}, []string{"usage: pdpp-mcp mockrs", "-auth-grant"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			res := runBinary(t, bin, t.TempDir(), nil, "", tc.args...)
			if res.code != 0 {
				t.Fatalf("exit %d, want 0; stderr:\n%s", res.code, res.stderr)
			}
			for _, w := range tc.wantStdout {
				if !strings.Contains(res.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, res.stdout)
				}
			}
			if res.stderr != "" {
				t.Errorf("stderr must stay empty, got:\n%s", res.stderr)
			}
		})
	}
}

// appVersionOf is the version a binary built without ldflags must report:
// its main module version from the embedded build info (what `go install
// …@vX` records), or "dev" for a local build, which Go marks "(devel)".
func appVersionOf(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	m := regexp.MustCompile(`(?m)^\s+mod\s+github\.com/pdpp/pdpp-mcp\s+(\S+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no main module line in build info:\n%s", out)
	}
	if v := string(m[1]); v != "(devel)" {
		return v
	}
	return "dev"
}

// TestVersionWithoutLdflags builds the binary exactly as `go build` or
// `go install` would, without -X main.version, and checks that the
// version it prints is a sane one from the build info.
func TestVersionWithoutLdflags(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	res := runBinary(t, bin, t.TempDir(), nil, "", "version")
	got := strings.TrimSpace(res.stdout)
	if res.code != 0 || res.stderr != "" {
		t.Fatalf("version: exit %d, stderr %q", res.code, res.stderr)
	}
	if diff := cmp.Diff(appVersionOf(t, bin), got); diff != "" {
		t.Errorf("version (-build info +printed):\n%s", diff)
	}
	if !regexp.MustCompile(`^(dev|v\d+\.\d+\.\d+\S*)$`).MatchString(got) {
		t.Errorf("version %q is neither a module version nor dev", got)
	}
}

// TestVersionPrecedence: an ldflags stamp wins over the build info.
func TestVersionPrecedence(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = "v9.8.7"
	if got := appVersion(); got != "v9.8.7" {
		t.Errorf("appVersion() = %q with ldflags stamp v9.8.7", got)
	}
	version = ""
	if got := appVersion(); got == "" || got == "(devel)" {
		t.Errorf("appVersion() = %q without a stamp; want a module version or dev", got)
	}
}

// TestServeFlagEnvPrecedence pins the one documented order: a flag on the
// command line wins over its environment variable, which wins over the
// default. The container image sets only variables, so every setting of a
// Deployment takes effect.
func TestServeFlagEnvPrecedence(t *testing.T) {
	t.Parallel()
	base := []string{"--provider-url", "http://127.0.0.1:1"}
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want []string // addr, metrics addr, shutdown timeout
	}{
		{"defaults", base, nil, []string{"127.0.0.1:7670", "", "10s"}},
		{"environment", base, map[string]string{"PDPP_MCP_ADDR": "127.0.0.1:8000", "PDPP_MCP_METRICS_ADDR": "127.0.0.1:9090", "PDPP_MCP_SHUTDOWN_TIMEOUT": "20s"},
			[]string{"127.0.0.1:8000", "127.0.0.1:9090", "20s"}},
		{"flags beat environment", append(base, "--addr", "127.0.0.1:8001", "--metrics-addr", "127.0.0.1:9091", "--shutdown-timeout", "3s"),
			map[string]string{"PDPP_MCP_ADDR": "127.0.0.1:8000", "PDPP_MCP_METRICS_ADDR": "127.0.0.1:9090", "PDPP_MCP_SHUTDOWN_TIMEOUT": "20s"},
			[]string{"127.0.0.1:8001", "127.0.0.1:9091", "3s"}},
		{"blank variable is unset", base, map[string]string{"PDPP_MCP_ADDR": "  "}, []string{"127.0.0.1:7670", "", "10s"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			f, code, ok := parseServeFlags(tc.args, mapEnv(tc.env), &stdout, &stderr)
			if !ok {
				t.Fatalf("parse failed (%d): %s", code, stderr.String())
			}
			got := []string{f.addr, f.metricsAddr, f.shutdownTimeout.String()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("addr, metrics addr, shutdown (-want +got):\n%s", diff)
			}
		})
	}
}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestServeWarnsWithoutCursorSecret: replicas without a shared secret
// break each other's cursors, so serve says so at start-up — and stays
// quiet when a secret is configured, also through a _FILE.
func TestServeWarnsWithoutCursorSecret(t *testing.T) {
	t.Parallel()
	secretFile := filepath.Join(t.TempDir(), "cursor_secret")
	if err := os.WriteFile(secretFile, []byte(strings.Repeat("k", 48)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		env      map[string]string
		wantWarn bool
	}{
		{"no secret", nil, true},
		{"secret in env", map[string]string{"PDPP_MCP_CURSOR_SECRET": strings.Repeat("e", 32)}, false},
		{"secret in file", map[string]string{"PDPP_MCP_CURSOR_SECRET_FILE": secretFile}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			cancel() // serve starts, logs, and shuts down at once
			var stdout, stderr bytes.Buffer
			code := run(ctx, []string{"serve", "--provider-url", "http://127.0.0.1:1", "--addr", "127.0.0.1:0"}, mapEnv(tc.env), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			warned := false
			for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				var rec struct{ Level, Msg string }
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("stderr line is not a JSON log record: %q", line)
				}
				warned = warned || (rec.Level == "WARN" && strings.Contains(rec.Msg, "no cursor secret"))
			}
			if warned != tc.wantWarn {
				t.Errorf("warned=%v, want %v; stderr:\n%s", warned, tc.wantWarn, stderr.String())
			}
		})
	}
}

// TestSecretFromEnv covers the direct and _FILE forms of a secret.
func TestSecretFromEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "s")
	if err := os.WriteFile(file, []byte("from-file\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), maxSecretFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name               string
		env                map[string]string
		wantValue, wantSrc string
		wantErr            string
	}{
		{"unset", nil, "", "", ""},
		{"direct", map[string]string{"S": "direct"}, "direct", "S", ""},
		{"file, newline dropped", map[string]string{"S_FILE": file}, "from-file", "S_FILE", ""},
		{"both", map[string]string{"S": "x", "S_FILE": file}, "", "", "both S and S_FILE"},
		{"missing file", map[string]string{"S_FILE": filepath.Join(dir, "nope")}, "", "", "S_FILE:"},
		{"oversized file", map[string]string{"S_FILE": big}, "", "", "larger than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, src, err := secretFromEnv(mapEnv(tc.env), "S")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tc.wantValue, tc.wantSrc}, []string{v, src}); diff != "" {
				t.Errorf("value, source (-want +got):\n%s", diff)
			}
		})
	}
}

// TestServeLimitFlags: the verification rate and the RS byte budget are
// settable by flag or variable (flag first), default to the packages'
// own defaults (zero), and refuse what is not a non-negative number.
func TestServeLimitFlags(t *testing.T) {
	t.Parallel()
	base := []string{"--provider-url", "http://127.0.0.1:1"}
	cases := []struct {
		name    string
		args    []string
		env     map[string]string
		want    limits
		wantErr string
	}{
		{"defaults", base, nil, limits{}, ""},
		{"environment", base, map[string]string{"PDPP_MCP_VERIFY_RATE": "2.5", "PDPP_MCP_VERIFY_BURST": "10", "PDPP_MCP_VERIFY_IPV6_PREFIX": "56", "PDPP_MCP_RS_MAX_BYTES_IN_FLIGHT": "1048576"},
			limits{VerifyRate: 2.5, VerifyBurst: 10, VerifyIPv6Prefix: 56, MaxRSBytesInFlight: 1 << 20}, ""},
		{"flags beat environment", append(base, "--verify-rate", "1", "--verify-burst", "3", "--verify-ipv6-prefix", "128", "--rs-max-bytes-in-flight", "4096"),
			map[string]string{"PDPP_MCP_VERIFY_RATE": "2.5", "PDPP_MCP_VERIFY_BURST": "10", "PDPP_MCP_VERIFY_IPV6_PREFIX": "48"}, limits{VerifyRate: 1, VerifyBurst: 3, VerifyIPv6Prefix: 128, MaxRSBytesInFlight: 4096}, ""},
		{"prefix too long", append(base, "--verify-ipv6-prefix", "129"), nil, limits{}, "--verify-ipv6-prefix"},
		{"prefix not a number", base, map[string]string{"PDPP_MCP_VERIFY_IPV6_PREFIX": "/64"}, limits{}, "--verify-ipv6-prefix"},
		{"negative rate", append(base, "--verify-rate", "-1"), nil, limits{}, "--verify-rate"},
		{"NaN rate", append(base, "--verify-rate", "NaN"), nil, limits{}, "--verify-rate"},
		{"infinite rate", base, map[string]string{"PDPP_MCP_VERIFY_RATE": "+Inf"}, limits{}, "--verify-rate"},
		{"fractional burst", append(base, "--verify-burst", "1.5"), nil, limits{}, "--verify-burst"},
		{"budget with a unit", append(base, "--rs-max-bytes-in-flight", "64MiB"), nil, limits{}, "--rs-max-bytes-in-flight"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			f, code, ok := parseServeFlags(tc.args, mapEnv(tc.env), &stdout, &stderr)
			if tc.wantErr != "" {
				if ok || code != exitUsage || !strings.Contains(stderr.String(), tc.wantErr) {
					t.Fatalf("ok %v, exit %d, stderr %q; want exit %d naming %s", ok, code, stderr.String(), exitUsage, tc.wantErr)
				}
				return
			}
			if !ok {
				t.Fatalf("parse failed (%d): %s", code, stderr.String())
			}
			if diff := cmp.Diff(tc.want, f.cfg.Limits); diff != "" {
				t.Errorf("limits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMaxResultBytesFlag: serve, stdio and demo take --max-result-bytes
// (or PDPP_MCP_MAX_RESULT_BYTES; the flag first), default to the adapter's
// ceiling (zero), and refuse a value below what a page's handles need, a
// huge one, or one that is not a number (exit 64).
func TestMaxResultBytesFlag(t *testing.T) {
	t.Parallel()
	parse := map[string]func(args []string, env map[string]string) (int, int, bool, string){
		"serve": func(args []string, env map[string]string) (int, int, bool, string) {
			var stdout, stderr bytes.Buffer
			f, code, ok := parseServeFlags(append([]string{"--provider-url", "http://127.0.0.1:1"}, args...), mapEnv(env), &stdout, &stderr)
			return f.cfg.MaxResultBytes, code, ok, stderr.String()
		},
		"stdio": func(args []string, env map[string]string) (int, int, bool, string) {
			var stdout, stderr bytes.Buffer
			f, code, ok := parseStdioFlags(append([]string{"--provider-url", "http://127.0.0.1:1"}, args...), mapEnv(env), &stdout, &stderr)
			return f.maxResultBytes, code, ok, stderr.String()
		},
		"demo": func(args []string, env map[string]string) (int, int, bool, string) {
			var stdout, stderr bytes.Buffer
			d, code, ok := parseDemoFlags(args, mapEnv(env), &stdout, &stderr)
			return d.maxResultBytes, code, ok, stderr.String()
		},
	}
	cases := []struct {
		name    string
		args    []string
		env     map[string]string
		want    int
		wantErr bool
	}{
		{"default", nil, nil, 0, false},
		{"environment", nil, map[string]string{"PDPP_MCP_MAX_RESULT_BYTES": "24000"}, 24000, false},
		{"flag beats environment", []string{"--max-result-bytes", "30000"}, map[string]string{"PDPP_MCP_MAX_RESULT_BYTES": "24000"}, 30000, false},
		{"below the minimum", []string{"--max-result-bytes", "1000"}, nil, 0, true},
		{"huge", []string{"--max-result-bytes", "99999999"}, nil, 0, true},
		{"with a unit", []string{"--max-result-bytes", "11KB"}, nil, 0, true},
	}
	for mode, p := range parse {
		for _, tc := range cases {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				got, code, ok, stderr := p(tc.args, tc.env)
				if tc.wantErr {
					if ok || code != exitUsage || !strings.Contains(stderr, "--max-result-bytes") {
						t.Fatalf("ok %v, exit %d, stderr %q; want exit %d naming --max-result-bytes", ok, code, stderr, exitUsage)
					}
					return
				}
				if !ok || got != tc.want {
					t.Fatalf("ok %v (exit %d, %s), max-result-bytes %d; want %d", ok, code, stderr, got, tc.want)
				}
			})
		}
	}
}
