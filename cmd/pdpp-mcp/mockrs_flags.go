package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
)

// faultFlags are the mockrs fault-injection flags (rstest.Faults).
type faultFlags struct {
	path      *string
	every     *int
	latency   *time.Duration
	status    *int
	reset     *bool
	malformed *bool
	oversized *int
}

// addFaultFlags registers the fault flags on fs.
func addFaultFlags(fs *flag.FlagSet) *faultFlags {
	return &faultFlags{
		path:      fs.String("fault-path", "", "inject faults only on paths with this prefix (e.g. /v1/streams/); empty = every path"),
		every:     fs.Int("fault-every", 1, "inject on every N-th matching request"),
		latency:   fs.Duration("fault-latency", 0, "delay matching responses by this long"),
		status:    fs.Int("fault-status", 0, "answer matching requests with this 5xx status and the error envelope"),
		reset:     fs.Bool("fault-reset", false, "close matching connections without a response"),
		malformed: fs.Bool("fault-malformed", false, "answer matching requests with truncated JSON"),
		oversized: fs.Int("fault-oversized", 0, "answer matching requests with a valid JSON body of this many bytes"),
	}
}

// faults builds the configured rstest.Faults; nil when no fault is set.
func (f *faultFlags) faults() (*rstest.Faults, error) {
	if *f.status != 0 && (*f.status < 500 || *f.status > 599) {
		return nil, fmt.Errorf("--fault-status must be a 5xx status, got %d", *f.status)
	}
	if *f.latency < 0 || *f.oversized < 0 || *f.every < 1 {
		return nil, fmt.Errorf("--fault-latency and --fault-oversized must not be negative, --fault-every at least 1")
	}
	if *f.latency == 0 && *f.status == 0 && !*f.reset && !*f.malformed && *f.oversized == 0 {
		return nil, nil
	}
	return &rstest.Faults{PathPrefix: *f.path, EveryN: *f.every, Latency: *f.latency, Status5xx: *f.status,
		Reset: *f.reset, MalformedJSON: *f.malformed, OversizedBytes: *f.oversized}, nil
}

// requestLogLine is one --request-log line. It names the credential
// (owner, grant:<id>, none, unknown) and never carries the bearer.
type requestLogLine struct {
	Time      time.Time `json:"time"`
	Method    string    `json:"method"`
	Path      string    `json:"path"`
	Query     string    `json:"query,omitempty"`
	Principal string    `json:"principal"`
}

// openRequestLog opens the --request-log destination ("-" = stderr) and
// returns the hook writing one JSON line per request, plus a closer.
func openRequestLog(dest string, stderr io.Writer) (func(rstest.RecordedRequest), func() error, error) {
	if dest == "" {
		return nil, func() error { return nil }, nil
	}
	w, closer := stderr, func() error { return nil }
	if dest != "-" {
		f, err := os.OpenFile(dest, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, err
		}
		w, closer = f, f.Close
	}
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	hook := func(r rstest.RecordedRequest) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(requestLogLine{Time: r.Time.UTC(), Method: r.Method, Path: r.Path, Query: r.RawQuery, Principal: r.Principal})
	}
	return hook, closer, nil
}

// lexicalGapFlag collects repeated --lexical-gap CONNECTION_ID:STREAM
// values.
type lexicalGapFlag []rstest.LexicalGap

// String renders the flag value for flag's defaults.
func (g *lexicalGapFlag) String() string { return fmt.Sprint(*g) }

// Set parses one CONNECTION_ID:STREAM value.
func (g *lexicalGapFlag) Set(v string) error {
	conn, stream, ok := strings.Cut(v, ":")
	if !ok || conn == "" || stream == "" {
		return fmt.Errorf("want CONNECTION_ID:STREAM, got %q", v)
	}
	*g = append(*g, rstest.LexicalGap{ConnectionID: conn, Stream: stream})
	return nil
}
