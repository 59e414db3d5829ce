package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/pdpp/pdpp-mcp/adapter"
)

// addWaitFlag registers --wait-for-details (serve and stdio): wait for
// every read that only refines a page (hit titles, capability probes,
// search metadata, a slow source's part of a search) instead of
// answering with the page's stated fallback after a few seconds. Output
// then never depends on how fast the RS or the machine is: what a
// recording, a golden file or a test on a busy machine needs.
func addWaitFlag(fs *flag.FlagSet, env func(string) string) *string {
	return fs.String("wait-for-details", envOr(env, "PDPP_MCP_WAIT_FOR_DETAILS", "false"),
		"wait for every title, probe and slow source however long the RS takes, instead of a stated fallback after a few seconds (reproducible pages) (PDPP_MCP_WAIT_FOR_DETAILS)")
}

// parseWaits is the adapter's Waits for the flag's value: the defaults, or
// unbounded.
func parseWaits(v string) (adapter.Waits, error) {
	wait, err := strconv.ParseBool(v)
	if err != nil {
		return adapter.Waits{}, fmt.Errorf("--wait-for-details %q: want true or false", v)
	}
	if wait {
		return adapter.UnboundedWaits, nil
	}
	return adapter.Waits{}, nil
}
