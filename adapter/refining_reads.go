package adapter

import "github.com/pdpp/pdpp-mcp/internal/fanout"

// DefaultMaxRefiningReads is how many refining RS reads (hit titles,
// lexical-miss checks) one adapter process has in flight at once when
// Config.MaxRefiningReads is zero. A first search page starts one title
// read per hit (25 by default) all at once, so one page fits in one wave;
// a second user's page queues behind it rather than doubling what the RS
// serves at once. The reference RS answers every request with
// `Connection: close` (captured in rsclient/rstest/testdata/real-captures),
// so each read in flight is also a new TCP connection at the RS: the bound
// is what keeps many users' first searches from becoming a connection
// storm there.
const DefaultMaxRefiningReads = 32

// readLimit bounds the refining reads in flight across every call of one
// Server (one per process: serve and stdio build one Server). Reads that
// are the answer itself (the search, a record page) are not under it: a
// backlog of titles never delays an answer, it only turns late titles
// into stated fallbacks. It is the fan-out's shared limiter: a fan-out of
// refining reads passes it as fanout.Options.Shared, and a read shared
// through a cache takes its slot inside the cache's fetch.
type readLimit = fanout.Limiter

func newReadLimit(n int) *readLimit { return fanout.NewLimiter(n) }
