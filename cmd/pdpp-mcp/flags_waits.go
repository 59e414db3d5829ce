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

// addRefiningReadsFlag registers --rs-max-refining-reads (serve and
// stdio): how many reads that only refine pages (search hit titles,
// lexical-miss checks) the process has at the RS at once, across every
// user. Its flag default is empty (unset: the adapter's default, which the
// help text names once).
func addRefiningReadsFlag(fs *flag.FlagSet, env func(string) string) *string {
	return fs.String("rs-max-refining-reads", envOr(env, "PDPP_MCP_RS_MAX_REFINING_READS", ""),
		fmt.Sprintf("reads that refine pages (search hit titles, lexical-miss checks) at the RS at once across all calls; more wait, late titles are marked pending (default %d) (PDPP_MCP_RS_MAX_REFINING_READS)", adapter.DefaultMaxRefiningReads))
}

// parseRefiningReads is the flag's value as adapter.Config.MaxRefiningReads:
// a positive whole number, or 0 (unset) for the adapter's default.
func parseRefiningReads(v string) (int, error) {
	n, err := strconv.Atoi(orZero(v))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("--rs-max-refining-reads %q: want a positive whole number", v)
	}
	return n, nil
}
