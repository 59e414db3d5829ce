package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pdpp/pdpp-mcp/adapter"
)

func TestParseWaits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    adapter.Waits
		wantErr bool
	}{
		{"false", adapter.Waits{}, false},
		{"true", adapter.UnboundedWaits, false},
		{"1", adapter.UnboundedWaits, false},
		{"sometimes", adapter.Waits{}, true},
	} {
		got, err := parseWaits(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("parseWaits(%q) error %v, want error %t", tc.in, err, tc.wantErr)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("parseWaits(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestParseRefiningReads(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    int
		wantErr bool
	}{
		{"", 0, false}, // unset: the adapter's default
		{"8", 8, false},
		{"-1", 0, true},
		{"many", 0, true},
	} {
		got, err := parseRefiningReads(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parseRefiningReads(%q) = %d, %v; want %d, error %t", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

// The refining-read limit reaches the adapter's configuration from the
// flag or its variable, on serve and stdio alike (flag beats variable).
func TestRefiningReadsFlagReachesConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want int
	}{
		{"unset", nil, nil, 0},
		{"environment", nil, map[string]string{"PDPP_MCP_RS_MAX_REFINING_READS": "12"}, 12},
		{"flag beats environment", []string{"--rs-max-refining-reads", "5"}, map[string]string{"PDPP_MCP_RS_MAX_REFINING_READS": "12"}, 5},
	} {
		var stdout, stderr bytes.Buffer
		serve, code, ok := parseServeFlags(append([]string{"--provider-url", "http://127.0.0.1:1"}, tc.args...), mapEnv(tc.env), &stdout, &stderr)
		if !ok {
			t.Fatalf("%s: serve flags (%d): %s", tc.name, code, stderr.String())
		}
		stdio, code, ok := parseStdioFlags(append([]string{"--provider-url", "http://127.0.0.1:1"}, tc.args...), mapEnv(tc.env), &stdout, &stderr)
		if !ok {
			t.Fatalf("%s: stdio flags (%d): %s", tc.name, code, stderr.String())
		}
		if serve.cfg.MaxRefiningReads != tc.want || stdio.refiningReads != tc.want {
			t.Errorf("%s: serve %d, stdio %d; want %d", tc.name, serve.cfg.MaxRefiningReads, stdio.refiningReads, tc.want)
		}
	}
}
