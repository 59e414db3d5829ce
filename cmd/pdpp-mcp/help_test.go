package main

import (
	"context"
	"flag"
	"reflect"
	"strings"
	"testing"
)

// TestServeFlagsHelp: every serve option can be set from the environment
// (the container passes no flags), and --help states each default once —
// never a "(default 5)" in the text beside flag's own `(default "0")`.
func TestServeFlagsHelp(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	defineServeFlags(fs, func(string) string { return "" })
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "version" {
			return // a request, not a setting
		}
		if !strings.Contains(f.Usage, "(PDPP_") {
			t.Errorf("--%s names no environment variable: %q", f.Name, f.Usage)
		}
		printed := printsDefault(f)
		if n := strings.Count(f.Usage, "(default"); n > 1 || (n == 1 && printed) {
			t.Errorf("--%s states its default twice: text %q and flag default %q", f.Name, f.Usage, f.DefValue)
		}
	})
}

// TestHelpIsNotTheThing: `<command> --help` prints usage on stdout and
// exits 0 for every command, version included (it printed the version).
func TestHelpIsNotTheThing(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"version", "serve", "demo", "mockrs", "stdio"} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			var out, errOut strings.Builder
			code := run(context.Background(), []string{cmd, "--help"}, func(string) string { return "" }, &out, &errOut)
			if code != exitOK || errOut.Len() != 0 {
				t.Fatalf("exit %d, stderr %q", code, errOut.String())
			}
			if !strings.HasPrefix(out.String(), "usage: pdpp-mcp") {
				t.Errorf("stdout does not start with the usage:\n%s", out.String())
			}
		})
	}
}

// printsDefault reports whether flag.PrintDefaults adds `(default …)` for
// f: when its default differs from its type's zero value, as the flag
// package decides it.
func printsDefault(f *flag.Flag) bool {
	zero := reflect.New(reflect.TypeOf(f.Value).Elem()).Interface().(flag.Value)
	return f.DefValue != zero.String()
}
