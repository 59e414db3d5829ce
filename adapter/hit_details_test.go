package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// rsCalls counts the mock RS's requests by route, and can refuse record
// detail reads (the title read's failure path).
type rsCalls struct {
	mu            sync.Mutex
	search        int
	detail        []string // the fields= of each record detail read
	refuseDetails bool
}

func (c *rsCalls) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		isDetail := strings.Contains(p, "/records/") && !strings.HasSuffix(p, "/field-window")
		c.mu.Lock()
		switch {
		case strings.HasPrefix(p, "/v1/search"):
			c.search++
		case isDetail:
			c.detail = append(c.detail, strings.Join(r.URL.Query()["fields"], ","))
		}
		refuse := isDetail && c.refuseDetails
		c.mu.Unlock()
		if refuse {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":{"code":"unavailable","message":"down","type":"api_error"}}`))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// TestSearchHitsCarryTitleAndEventTime: a hit's title is
// its record's subject and its line shows the record's event time (never
// cut), in both channels, on the mock in the full posture and in the real
// RS's (no roles advertised, D1: fields picked by name); the title read
// costs one projected record read per hit. When the reads fail, the page
// still answers with the ingest-time fallback titles.
func TestSearchHitsCarryTitleAndEventTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		posture rstest.Capabilities
		refuse  bool
	}{
		{"full posture", rstest.CapabilitiesFull, false},
		{"real RS posture", rstest.CapabilitiesDeclared, false},
		{"record reads fail", rstest.CapabilitiesDeclared, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			calls := &rsCalls{refuseDetails: tc.refuse}
			e := newEnv(t, testenv.Options{Capabilities: tc.posture, Raw: calls.wrap, NoContract: tc.refuse}, demodata.GmailToken)
			res := e.c.call("search", map[string]any{"q": "invoice", "streams": []string{"messages"}, "limit": 10,
				"connection_id": demodata.GmailWorkConnectionID})
			sr := decodeSearch(t, res)
			if len(sr.Results) < 3 {
				t.Fatalf("want several hits, got %d:\n%s", len(sr.Results), res.text())
			}
			calls.mu.Lock()
			searches, detail := calls.search, calls.detail
			calls.mu.Unlock()
			if searches != 1 || len(detail) != len(sr.Results) {
				t.Errorf("RS calls: %d searches, %d record reads for %d hits; want 1 and one per hit", searches, len(detail), len(sr.Results))
			}
			for _, f := range detail {
				if f != "date" && f != "subject,date" {
					t.Errorf("title read projected %q, want date (the snippet is the subject) or subject,date", f)
				}
			}
			// The same search again reads no record twice: the titles are
			// kept per token and record (hit_detail_cache.go). A failed
			// read is not kept, so its hits are read again.
			again := e.c.call("search", map[string]any{"q": "invoice", "streams": []string{"messages"}, "limit": 10,
				"connection_id": demodata.GmailWorkConnectionID})
			calls.mu.Lock()
			reread := len(calls.detail) - len(detail)
			calls.mu.Unlock()
			if want := map[bool]int{false: 0, true: len(sr.Results)}[tc.refuse]; reread != want || again.text() != res.text() {
				t.Errorf("the second search read %d records (want %d), same page %t", reread, want, again.text() == res.text())
			}
			calls.mu.Lock()
			calls.refuseDetails = false
			calls.mu.Unlock()
			truth := recordTruth(t, e.rs.URL, sr.Results)
			for _, h := range sr.Results {
				rec := truth[h.ID]
				want := rec["subject"] + " — " + rec["date"]
				ok := h.Title == want
				if tc.refuse { // the snippet's whole subject, else source / stream / ingest time
					want = rec["subject"] + ` or "Work Gmail / messages / ingested …"`
					ok = h.Title == rec["subject"] || strings.HasPrefix(h.Title, "Work Gmail / messages / ingested ")
				}
				if !ok {
					t.Errorf("hit %s title %q, want %q", h.ID, h.Title, want)
				}
				if !strings.Contains(res.text(), " "+strconv.Quote(h.Title)) {
					t.Errorf("text line of %s does not show the title %q:\n%s", h.ID, h.Title, res.text())
				}
			}
		})
	}
}

// recordTruth reads each hit's record straight from the RS (whole, as
// strings) to compare the titles against.
func recordTruth(t *testing.T, base string, hits []hitRow) map[string]map[string]string {
	t.Helper()
	rc, err := rsclient.New(rsclient.Config{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, h := range hits {
		rec, _, err := rc.Record(context.Background(), demodata.GmailToken, rsclient.RecordQuery{Stream: h.Stream, RecordID: h.RecordID, ConnectionID: h.ConnectionID})
		if err != nil {
			t.Fatalf("truth read of %s: %v", h.ID, err)
		}
		out[h.ID] = stringMembers(t, rec.Data)
	}
	return out
}

// stringMembers is a JSON object's string members.
func stringMembers(t *testing.T, data json.RawMessage) map[string]string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// A page whose hits span several streams, titled by concurrent record
// reads (run under -race in make test): each hit gets a title.
func TestHitTitlesAcrossStreamsConcurrently(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared}, demodata.GmailToken)
	res := e.c.call("search", map[string]any{"q": "invoice", "limit": 25})
	sr := decodeSearch(t, res)
	streams := map[string]bool{}
	for _, h := range sr.Results {
		streams[h.ConnectionID+"/"+h.Stream] = true
		if h.Title == "" {
			t.Errorf("hit %s has no title", h.ID)
		}
	}
	if len(streams) < 2 {
		t.Fatalf("want hits from several streams, got %v:\n%s", streams, res.text())
	}
}

// A page never waits past its title budget: while the RS withholds every
// record read, the search still answers, each hit with its fallback title,
// and a hit whose title read was still running says so (marked, with one
// page warning, in both channels). A hit whose snippet is its whole title
// keeps it unmarked (only its date was being read). The withheld reads
// go on: once the RS answers them, the same search shows every real title
// and reads no record again. The withheld reads never answer while the
// first page waits, so that page is the same however fast the machine is.
func TestSearchTitlesWithheldKeepFallbacks(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var mu sync.Mutex
	detailReads := 0
	withhold := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/records/") {
				mu.Lock()
				detailReads++
				mu.Unlock()
				select { // held until the test lets the RS answer
				case <-r.Context().Done():
					return
				case <-release:
				}
			}
			next.ServeHTTP(w, r)
		})
	}
	rs := testenv.StartRS(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared, Raw: withhold, NoContract: true})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // before the server's Close waits for them
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{RS: rc, Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken)},
		Waits: adapter.Waits{HitTitles: 20 * time.Millisecond, Source: adapter.Unbounded}})
	if err != nil {
		t.Fatal(err)
	}
	readsDone := make(chan struct{}, 64)
	adapter.SetTitleReadDone(srv, func() { readsDone <- struct{}{} })
	c := newClient(t, srv)
	args := map[string]any{"q": "invoice", "streams": []string{"messages"}, "limit": 10, "connection_id": demodata.GmailWorkConnectionID}
	res := c.call("search", args)
	// The page is due and its reads are still held: they run on to fill
	// the cache, but nothing of the page waits for them any more.
	if waiting := waitersOfTitleReads(srv); len(waiting) > 0 {
		t.Errorf("after the page was due, %d goroutines still wait for its title reads:\n%s", len(waiting), strings.Join(waiting, "\n\n"))
	}
	withheld := decodeSearch(t, res)
	// The same search where every record read is refused at once: its
	// titles are the fallbacks by construction.
	calls := &rsCalls{refuseDetails: true}
	refused := decodeSearch(t, newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared, Raw: calls.wrap, NoContract: true},
		demodata.GmailToken).c.call("search", args))
	if len(withheld.Results) < 3 {
		t.Fatalf("want several hits, got %d", len(withheld.Results))
	}
	var want, got, pendingHits []string
	for i, h := range refused.Results {
		title := h.Title
		if h.Field != "subject" { // the title itself was being read
			title = "(title pending) " + title
			pendingHits = append(pendingHits, strconv.Itoa(i+1))
		}
		want = append(want, h.ID+" "+title)
		if !strings.Contains(res.text(), " "+strconv.Quote(title)) {
			t.Errorf("the text does not show hit %d's title as %q:\n%s", i+1, title, res.text())
		}
	}
	for _, h := range withheld.Results {
		got = append(got, h.ID+" "+h.Title)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("titles while the reads are withheld (-want +got):\n%s", diff)
	}
	if len(pendingHits) == 0 {
		t.Fatal("no hit needed its title read: the test proves nothing")
	}
	// The marks say which hits (checked above); one warning says what the
	// mark means, in both channels.
	note := `warning titles_pending: a hit marked "(title pending)" had its title not read in time`
	if !strings.Contains(res.text(), note) || len(withheld.Warnings) == 0 || !strings.HasPrefix(withheld.Warnings[len(withheld.Warnings)-1], note) {
		t.Errorf("the page does not say what the pending mark means (want %q in both channels):\n%s\nstructured warnings: %q", note, res.text(), withheld.Warnings)
	}

	// The RS answers now; every read the first page left running ends and
	// fills the cache.
	once.Do(func() { close(release) })
	for range withheld.Results {
		<-readsDone
	}
	mu.Lock()
	before := detailReads
	mu.Unlock()
	again := decodeSearch(t, c.call("search", args))
	mu.Lock()
	reread := detailReads - before
	mu.Unlock()
	if reread != 0 || len(again.Warnings) != 0 {
		t.Errorf("the search again read %d records and warned %q; want none: the late reads filled the cache", reread, again.Warnings)
	}
	truth := recordTruth(t, rs.URL, again.Results)
	for _, h := range again.Results {
		if w := truth[h.ID]["subject"] + " — " + truth[h.ID]["date"]; h.Title != w {
			t.Errorf("hit %s title %q after the late reads, want %q", h.ID, h.Title, w)
		}
	}
}

// waitersOfTitleReads are the stacks of goroutines waiting for a started
// read (softcache's Wait) on behalf of srv: a method of srv on the stack
// (its receiver is the frame's first argument), so other tests' servers,
// running in parallel, do not count.
func waitersOfTitleReads(srv *adapter.Server) []string {
	server := fmt.Sprintf("(%p, ", srv)
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "softcache.Started[...].Wait(") && strings.Contains(g, server) {
			out = append(out, g)
		}
	}
	return out
}
