// Package codeshape holds checks of the code's shape, run as tests, and
// the tools that measure it.
//
// The complexity check measures every production function's cyclomatic
// complexity (gocyclo's count: 1 + each if, for, case, && and ||) and
// fails above 15, so functions stay small enough to read by the build
// rather than by review. A function that must stay whole opts out with a
// //gocyclo:ignore directive and a comment saying why.
//
// The label check fails on a comment that cites a requirement or a
// measured behaviour of the real RS by a label docs/ does not define, or
// cites the issue tracker.
//
// The sleep check fails on a wall-clock sleep in a test (time.Sleep, or a
// bare receive from time.After) unless it runs in a testing/synctest
// bubble, or it waits for a real external process — a spawned binary,
// nginx, a host — and says so in a "// waits for …" comment on the line
// before, in a package whose tests start processes. A test that waits for
// our own code awaits what the code signals or moves an injected clock.
//
// cmd/filegraph draws one package's file graph (which file refers to
// which) and counts its floors and the arrows that close cycles.
package codeshape
