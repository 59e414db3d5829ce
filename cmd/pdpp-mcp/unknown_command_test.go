package main

import (
	"context"
	"strings"
	"testing"
)

// TestUnknownCommand: a first word that is no command exits 64 listing
// the commands, with the nearest one when it looks like a typo.
func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		arg, wantHint string
	}{
		{"server", `did you mean "serve"?`},
		{"Serve", `did you mean "serve"?`},
		{"dmeo", `did you mean "demo"?`},
		{"mock", `did you mean "mockrs"?`},
		{"versoin", `did you mean "version"?`},
		{"connect-to-everything", ""},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			t.Parallel()
			var out, errOut strings.Builder
			code := run(context.Background(), []string{tt.arg}, func(string) string { return "" }, &out, &errOut)
			if code != exitUsage || out.Len() != 0 {
				t.Errorf("exit %d, stdout %q; want 64 and nothing on stdout", code, out.String())
			}
			msg := errOut.String()
			if !strings.Contains(msg, `unknown command "`+tt.arg+`"`) {
				t.Errorf("stderr %q does not name the word", msg)
			}
			for name := range subcommands {
				if !strings.Contains(msg, name) {
					t.Errorf("stderr %q does not list the command %s", msg, name)
				}
			}
			if tt.wantHint != "" && !strings.Contains(msg, tt.wantHint) {
				t.Errorf("stderr %q lacks %s", msg, tt.wantHint)
			}
			if tt.wantHint == "" && strings.Contains(msg, "did you mean") {
				t.Errorf("stderr %q suggests a command for a word far from all", msg)
			}
		})
	}
}
