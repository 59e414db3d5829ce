package adapter_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// Limits of the fault matrix: the RS deadline is what ends a fault that
// never answers, and it is also all a healthy call gets, so it is far above
// what a healthy call takes on a loaded machine under -race (at 1 s the
// healthy search of the slow-metadata row timed out under load); the byte
// limits are small, so the oversized answer and the byte budget are real.
const (
	matrixRSTimeout   = 5 * time.Second
	matrixMaxBody     = 64 << 10
	matrixMaxInFlight = 128 << 10
)

// rsFault is one fault class of the matrix: either the mock RS's own fault
// injection (mock) or, where the mock cannot produce it, a handler wrapped
// around the mock (wrap). Code is the typed code every tool must answer
// with; "" means the tool must succeed (the fault hits only optional data).
type rsFault struct {
	name   string
	mock   *rstest.Faults
	wrap   func(w http.ResponseWriter, r *http.Request)
	code   string
	status int // http_status of the result (RS answers), 0 for transport faults
	// metadata faults hit /.well-known/oauth-protected-resource instead of
	// the tool's own data route.
	metadata bool
}

// matrixFaults are the RS fault classes TestRSFaultMatrix runs every tool
// and resource read against.
func matrixFaults() []rsFault {
	return []rsFault{
		{name: "5xx", mock: &rstest.Faults{Status5xx: http.StatusServiceUnavailable}, code: "api_error", status: http.StatusServiceUnavailable},
		{name: "connection reset", mock: &rstest.Faults{Reset: true}, code: rsclient.CodeUnavailable},
		{name: "malformed JSON", mock: &rstest.Faults{MalformedJSON: true}, code: rsclient.CodeInvalidResponse},
		{name: "truncated body", wrap: truncatedBody, code: rsclient.CodeUnavailable},
		{name: "oversized body", mock: &rstest.Faults{OversizedBytes: 4 * matrixMaxBody}, code: rsclient.CodeResponseTooLarge},
		{name: "slow body", wrap: trickleBody, code: rsclient.CodeTimeout},
		{name: "never answers", mock: &rstest.Faults{Latency: time.Hour}, code: rsclient.CodeTimeout},
		{name: "off-origin redirect", wrap: offOriginRedirect, code: rsclient.CodeOffOrigin},
		{name: "wrong shape 200", wrap: wrongShape, code: rsclient.CodeInvalidResponse},
		// Metadata only refines schema(stream) text and the hosted door's
		// discovery document: a tool answers without it, within a deadline.
		{name: "slow metadata", mock: &rstest.Faults{Latency: time.Hour}, metadata: true},
	}
}

// truncatedBody promises more bytes than it sends, then drops the
// connection mid-body.
func truncatedBody(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", "4096")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`{"object":"list","has_more":false,"data":[{"object":"record","id":"m1"`))
	w.(http.Flusher).Flush()
	panic(http.ErrAbortHandler) // close without the rest
}

// trickleBody sends a valid-looking body one byte every 20 ms, forever:
// headers arrive at once, so only the whole-call deadline can end it.
func trickleBody(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	body := `{"object":"list","has_more":false,"data":[` + strings.Repeat(" ", 1<<20)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 0; i < len(body); i++ {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
		if _, err := w.Write([]byte{body[i]}); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

// offOriginRedirect points the client at another origin; following it
// would carry the bearer there.
func offOriginRedirect(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "http://attacker.invalid"+r.URL.RequestURI(), http.StatusFound)
}

// wrongShape answers 200 with JSON that is no route's answer.
func wrongShape(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"nope":["not","this","route's","shape"]}`))
}

// matrixCall is one column: a tool call or a resources/read.
type matrixCall struct {
	name string
	tool string // tools/call name; "" for resources/read
	args map[string]any
	uri  string // resources/read URI
	// cold: the call needs no warm schema first (the schema tool itself).
	cold bool
}

func matrixCalls() []matrixCall {
	work := demodata.GmailWorkConnectionID
	ref := contentladder.RecordRef{ConnectionID: work, Stream: "message_bodies", RecordID: demodata.LongBodyMessageID}
	id := ref.ID()
	return []matrixCall{
		{name: "schema", tool: "schema", args: map[string]any{"stream": "messages"}, cold: true},
		{name: "query_records", tool: "query_records", args: map[string]any{"stream": "messages", "connection_id": work, "limit": 5}},
		{name: "aggregate", tool: "aggregate", args: map[string]any{"stream": "messages", "metric": "count", "connection_id": work}},
		{name: "search", tool: "search", args: map[string]any{"q": "invoice"}},
		{name: "fetch", tool: "fetch", args: map[string]any{"id": id}},
		{name: "read_record_field", tool: "read_record_field", args: map[string]any{"id": id, "field_path": "body_text"}},
		{name: "resources/read record", uri: contentladder.RecordURI(ref)},
		{name: "resources/read field window",
			uri: contentladder.FieldWindowURI(contentladder.WindowSpec{Ref: ref, FieldPath: "body_text", LimitChars: 200})},
	}
}

// TestRSFaultMatrix: every RS fault class × every tool
// and resource read is answered with the fault's typed error code within
// the call's deadline; afterwards no call holds budget bytes, the bytes in
// flight never exceeded MaxBytesInFlight, and no goroutine is left.
//
// Each row (fault class) has one mock RS; each cell its own adapter and RS
// client over it. The row warms the cells' schema caches while the RS is
// healthy, switches the fault on for the row's routes, then runs its cells
// in parallel.
//
// Not parallel at the top level on purpose: rows and cells run in parallel
// with each other only, so the goroutine check sees the matrix alone.
// It takes seconds of wall time (under 1 s of CPU): the "never answers" and
// "slow body" rows wait out the 1 s RS deadline on every RS call of a cell.
func TestRSFaultMatrix(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Run("rows", func(t *testing.T) {
		for _, f := range matrixFaults() {
			t.Run(f.name, func(t *testing.T) {
				t.Parallel()
				runMatrixRow(t, f)
			})
		}
	})
	goleak.VerifyNone(t, ignore)
}

var matrixData = sync.OnceValues(func() (*rstest.Dataset, error) {
	return demodata.Build(demodata.Options{Records: 40})
})

// matrixDataset is a small demo dataset (the well-known records, few
// others): indexing is most of a mock RS's start-up, and the matrix starts
// one per row.
func matrixDataset(t *testing.T) *rstest.Dataset {
	t.Helper()
	ds, err := matrixData()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// The routes a row's fault applies to: every data and schema route
// (/v1/schema, /v1/streams/…, /v1/search), or the metadata document.
const (
	dataRoutes    = "/v1/s"
	metadataRoute = "/.well-known/oauth-protected-resource"
)

func runMatrixRow(t *testing.T, f rsFault) {
	route := dataRoutes
	if f.metadata {
		route = metadataRoute
	}
	sw := &switchableFault{prefix: route, fault: f.wrap}
	rs := testenv.StartRS(t, testenv.Options{NoContract: true, Raw: sw.wrap, Dataset: matrixDataset(t)})
	type cell struct {
		mc matrixCall
		rc *rsclient.Client
		c  *client
	}
	var cells []cell
	for _, mc := range matrixCalls() {
		rc, c := matrixAdapter(t, rs.URL, !mc.cold)
		cells = append(cells, cell{mc, rc, c})
	}
	if f.mock != nil {
		mf := *f.mock
		mf.PathPrefix = route
		rs.Server.SetFaults(&mf)
	}
	sw.armed.Store(true)
	for _, cl := range cells {
		t.Run(cl.mc.name, func(t *testing.T) {
			t.Parallel()
			runMatrixCell(t, f, cl.mc, cl.rc, cl.c)
		})
	}
}

// switchableFault wraps the mock RS with a fault handler that applies to
// one path prefix once armed.
type switchableFault struct {
	prefix string
	fault  func(http.ResponseWriter, *http.Request)
	armed  atomic.Bool
}

func (s *switchableFault) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.fault != nil && s.armed.Load() && strings.HasPrefix(r.URL.Path, s.prefix) {
			s.fault(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func runMatrixCell(t *testing.T, f rsFault, mc matrixCall, rc *rsclient.Client, c *client) {
	// A cell whose fault never answers ends only by the RS deadline: its
	// expected code (rs_timeout) is the proof, not a wall-clock bound.
	code, status, text := matrixOutcome(t, c, mc)
	if code != f.code || status != f.status {
		t.Errorf("code %q http_status %d, want %q %d:\n%s", code, status, f.code, f.status, text)
	}
	now, peak := rc.BytesInFlight()
	if now != 0 {
		t.Errorf("%d B of the byte budget still held after the call", now)
	}
	if peak > matrixMaxInFlight {
		t.Errorf("peak %d B in flight, budget %d B", peak, matrixMaxInFlight)
	}
}

// matrixAdapter builds an adapter over the Gmail grant with the matrix's
// short RS limits. With warm, its schema is fetched and cached first, while
// the RS is healthy; on a loaded machine that fetch may miss the short
// deadline, so setup (never the measured call) gets a few fresh tries.
func matrixAdapter(t *testing.T, rsURL string, warm bool) (*rsclient.Client, *client) {
	t.Helper()
	var last string
	for range 5 {
		rc, err := rsclient.New(rsclient.Config{BaseURL: rsURL, Timeout: matrixRSTimeout,
			MaxBodyBytes: matrixMaxBody, MaxBytesInFlight: matrixMaxInFlight})
		if err != nil {
			t.Fatal(err)
		}
		// Titles and probes are awaited: a read that outlives its call by
		// design (it goes on to fill the cache) would still hold bytes of
		// the budget when the cell checks that the call gave them all back.
		a, err := adapter.New(adapter.Config{RS: rc, Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken)},
			Waits: adapter.Waits{HitTitles: adapter.Unbounded, CapabilityProbe: adapter.Unbounded}})
		if err != nil {
			t.Fatal(err)
		}
		c := newClient(t, a)
		if !warm {
			return rc, c
		}
		r := c.call("schema", map[string]any{})
		// schema(stream) also reads the RS's metadata: cached, a lexical
		// search's read of it beside the search (which outlives a search
		// the fault ends at once) is not started during the cell.
		if !r.IsError && !c.call("schema", map[string]any{"stream": "messages"}).IsError {
			return rc, c
		}
		last = r.text()
	}
	t.Fatalf("the healthy RS never answered schema in time: %s", last)
	return nil, nil
}

// matrixOutcome runs the column's call and returns the typed code and
// http_status of its error ("" and 0 on success) and the text to show.
func matrixOutcome(t *testing.T, c *client, mc matrixCall) (code string, status int, text string) {
	t.Helper()
	var body []byte
	if mc.tool != "" {
		r := c.call(mc.tool, mc.args)
		if !r.IsError {
			return "", 0, r.text()
		}
		body = []byte(r.text())
	} else {
		res, err := c.rpcRaw("resources/read", map[string]any{"uri": mc.uri})
		if err == nil {
			return "", 0, string(res)
		}
		var re *rpcError
		if !errors.As(err, &re) {
			t.Fatalf("resources/read: %v", err)
		}
		body = re.Data
	}
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
		HTTPStatus int `json:"http_status"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Error.Code == "" {
		t.Fatalf("not a typed error (%v): %s", err, body)
	}
	return env.Error.Code, env.HTTPStatus, string(body)
}
