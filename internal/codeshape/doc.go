// Package codeshape holds only a test: it measures every production
// function's cyclomatic complexity (gocyclo's count: 1 + each if, for,
// case, && and ||) and fails above 15, so functions stay small enough to
// read by the build rather than by review. A function that must stay
// whole opts out with a //gocyclo:ignore directive and a comment saying
// why.
package codeshape
