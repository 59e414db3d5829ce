package main

import (
	"flag"
	"fmt"
	"regexp"
	"strings"
)

// envNamed finds the "(PDPP_…)" a flag's usage ends its sentence with:
// the flags of serve and stdio name their variables by hand.
var envNamed = regexp.MustCompile(`\((PDPP_[A-Z0-9_]+)\)`)

// bindEnv gives every flag of fs that names no environment variable yet
// the variable prefix + its name in upper snake case (--token-ttl under
// prefix PDPP_MCP_DEMO_ is PDPP_MCP_DEMO_TOKEN_TTL), names it in the
// flag's usage, and applies a set variable now, so the command line,
// parsed afterwards, wins over it (for a repeatable flag, adds to it).
// --help then shows the variable's value as the default. Call it after
// defining the flags and before parsing; a value the flag refuses is a
// usage error. A nil env reads as empty (in-process callers that pass no
// environment).
func bindEnv(fs *flag.FlagSet, env func(string) string, prefix string) error {
	if env == nil {
		env = func(string) string { return "" }
	}
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if envNamed.MatchString(f.Usage) {
			return
		}
		key := prefix + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		f.Usage += " (" + key + ")"
		v := strings.TrimSpace(env(key))
		if v == "" || err != nil {
			return
		}
		if setErr := fs.Set(f.Name, v); setErr != nil {
			err = fmt.Errorf("%s=%q: %v", key, v, setErr)
			return
		}
		f.DefValue = f.Value.String()
	})
	return err
}
