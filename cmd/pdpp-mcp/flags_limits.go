package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// limitFlags are serve's load limits: how fast one client may present
// never-seen bearers (each costs a verification) and how many RS answer
// bytes the adapter holds at once.
type limitFlags struct {
	verifyRate, verifyBurst, verifyIPv6Prefix, rsBytes *string
}

// limits are the parsed limitFlags; zero means the package default.
type limits struct {
	VerifyRate         float64
	VerifyBurst        int
	VerifyIPv6Prefix   int
	MaxRSBytesInFlight int64
}

// addLimitFlags registers the limit flags. Their flag default is empty
// (unset: the package default, which the help text names once), so
// `--help` does not print a second, meaningless `(default "0")`.
func addLimitFlags(fs *flag.FlagSet, env func(string) string) limitFlags {
	return limitFlags{
		verifyRate: fs.String("verify-rate", envOr(env, "PDPP_MCP_VERIFY_RATE", ""),
			"never-seen bearers one client may have verified per second (default 5) (PDPP_MCP_VERIFY_RATE)"),
		verifyBurst: fs.String("verify-burst", envOr(env, "PDPP_MCP_VERIFY_BURST", ""),
			"burst of never-seen bearers per client (default 30) (PDPP_MCP_VERIFY_BURST)"),
		verifyIPv6Prefix: fs.String("verify-ipv6-prefix", envOr(env, "PDPP_MCP_VERIFY_IPV6_PREFIX", ""),
			"leading bits of an IPv6 address that make one client for the verification budget, 1 to 128 (default 64: one host commonly holds a /64) (PDPP_MCP_VERIFY_IPV6_PREFIX)"),
		rsBytes: fs.String("rs-max-bytes-in-flight", envOr(env, "PDPP_MCP_RS_MAX_BYTES_IN_FLIGHT", ""),
			"RS answer bytes held at once across all calls; more waits (default 64 MiB) (PDPP_MCP_RS_MAX_BYTES_IN_FLIGHT)"),
	}
}

// parse checks the limits: numbers, not negative; unset is zero (the
// package default).
func (l limitFlags) parse() (limits, error) {
	var out limits
	var err error
	if out.VerifyRate, err = strconv.ParseFloat(orZero(*l.verifyRate), 64); err != nil || !(out.VerifyRate >= 0) || math.IsInf(out.VerifyRate, 0) {
		return out, fmt.Errorf("--verify-rate %q: want a non-negative number of bearers per second", *l.verifyRate)
	}
	if out.VerifyBurst, err = strconv.Atoi(orZero(*l.verifyBurst)); err != nil || out.VerifyBurst < 0 {
		return out, fmt.Errorf("--verify-burst %q: want a non-negative whole number", *l.verifyBurst)
	}
	if out.VerifyIPv6Prefix, err = strconv.Atoi(orZero(*l.verifyIPv6Prefix)); err != nil || out.VerifyIPv6Prefix < 0 || out.VerifyIPv6Prefix > 128 {
		return out, fmt.Errorf("--verify-ipv6-prefix %q: want a prefix length from 1 to 128", *l.verifyIPv6Prefix)
	}
	if out.MaxRSBytesInFlight, err = strconv.ParseInt(orZero(*l.rsBytes), 10, 64); err != nil || out.MaxRSBytesInFlight < 0 {
		return out, fmt.Errorf("--rs-max-bytes-in-flight %q: want a non-negative number of bytes", *l.rsBytes)
	}
	return out, nil
}

// orZero reads an unset (empty) numeric flag as "0".
func orZero(s string) string {
	if strings.TrimSpace(s) == "" {
		return "0"
	}
	return s
}
