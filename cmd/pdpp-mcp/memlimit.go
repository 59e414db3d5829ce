package main

import (
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/pdpp/pdpp-mcp/internal/heapfloor"
)

// memoryLimitShare is the part of the container's memory limit the Go
// runtime aims to stay under. GOMEMLIMIT at 100 % of the limit leaves
// nothing for what the runtime does not count (thread stacks outside the
// heap, the binary's text, kernel buffers charged to the cgroup), so the
// pod could be killed before the collector had worked harder.
const memoryLimitShare = 0.9

// softMemoryLimit is the runtime soft limit for a container limit of
// PDPP_MCP_MEMORY_LIMIT bytes (the Deployment sets it from
// resourceFieldRef limits.memory): 90 % of it. ok is false — and nothing
// is to be set — when GOMEMLIMIT is set (the operator's word wins) or the
// variable is unset, unparseable or not positive.
func softMemoryLimit(env func(string) string) (int64, bool) {
	if strings.TrimSpace(env("GOMEMLIMIT")) != "" {
		return 0, false
	}
	limit, err := strconv.ParseInt(strings.TrimSpace(env("PDPP_MCP_MEMORY_LIMIT")), 10, 64)
	if err != nil || limit <= 0 {
		return 0, false
	}
	return int64(float64(limit) * memoryLimitShare), true
}

// applyMemoryLimit sets the runtime soft memory limit softMemoryLimit asks
// for, if any.
func applyMemoryLimit(env func(string) string) {
	if l, ok := softMemoryLimit(env); ok {
		debug.SetMemoryLimit(l)
	}
}

// heapFloor is the heap the collector lets fill before it runs while the
// live heap is small (internal/heapfloor): the adapter's live heap is 1–2
// MB, so at Go's 4 MB minimum goal it collected every four or five calls.
// 12 MB keeps the process under 40 MB resident under 64 clients (16 MB
// went over; BENCHMARKS.md, round 5) and collects about three times less
// often at low load.
const heapFloor = 12 << 20

// applyHeapFloor starts the heap floor unless the operator set GOGC,
// whose word wins (as GOMEMLIMIT's does over the container share).
func applyHeapFloor(env func(string) string) {
	if strings.TrimSpace(env("GOGC")) == "" {
		heapfloor.Start(heapFloor)
	}
}
