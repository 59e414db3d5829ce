package adapter_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// How a fan-out's waits add up, on a synctest bubble's clock over an
// in-memory RS: a source queued behind others gets its whole Source wait
// from when its read starts, and a call that ended sends no read it had
// queued.

// pacedRS is the mock RS reached without a network, answering each
// request on path after delay of the bubble's clock (or not at all when
// delay is negative, until the request's context ends). empty, when set,
// strips the hits of the first answer on path: the first check to answer
// finds nothing, whichever source it was.
type pacedRS struct {
	rs    http.Handler
	path  string
	delay time.Duration
	empty bool

	mu       sync.Mutex
	asked    int // requests on path that reached the RS
	answered int // requests on path answered
}

func (p *pacedRS) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == p.path {
		p.mu.Lock()
		p.asked++
		p.mu.Unlock()
		wait := make(<-chan time.Time) // never, for a negative delay
		if p.delay >= 0 {
			wait = time.After(p.delay)
		}
		select {
		case <-wait:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	rec := httptest.NewRecorder()
	p.rs.ServeHTTP(rec, r)
	res := rec.Result()
	if r.URL.Path != p.path {
		return res, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answered++
	if p.empty && p.answered == 1 {
		return withoutHits(res)
	}
	return res, nil
}

// withoutHits is a search answer with its data emptied and no next page.
func withoutHits(res *http.Response) (*http.Response, error) {
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	var page map[string]json.RawMessage
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, err
	}
	page["data"], page["has_more"] = json.RawMessage("[]"), json.RawMessage("false")
	delete(page, "next_cursor")
	if body, err = json.Marshal(page); err != nil {
		return nil, err
	}
	res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	res.Header.Del("Content-Length")
	return res, nil
}

// pacedServer is an adapter over grants reading the mock RS through rs.
func pacedServer(t *testing.T, rs *pacedRS, cfg adapter.Config, grants ...string) *adapter.Server {
	t.Helper()
	rc, err := rsclient.New(rsclient.Config{BaseURL: "http://rs.test", Timeout: time.Hour, Transport: rs})
	if err != nil {
		t.Fatal(err)
	}
	cfg.RS, cfg.Version = rc, "test"
	for _, tok := range grants {
		cfg.Grants = append(cfg.Grants, adapter.NewGrant(tok))
	}
	srv, err := adapter.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestFanInQueuedSourcesGetTheirWholeSourceWait: three grants searched one
// at a time (FanOutConcurrency 1), each search answered after 4 s, each
// source allowed 5 s. Every source's wait starts when its search starts,
// so all three answer (12 s in all) and the page has no
// source_unavailable warning; a wait started when the source was queued
// would have cut the second source at 5 s and the third before it began.
func TestFanInQueuedSourcesGetTheirWholeSourceWait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mock, err := rstest.New(testenv.Dataset(t), rstest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rs := &pacedRS{rs: mock, path: "/v1/search", delay: 4 * time.Second}
		waits := adapter.UnboundedWaits
		waits.Source = 5 * time.Second
		srv := pacedServer(t, rs, adapter.Config{FanOutConcurrency: 1, Waits: waits},
			demodata.GmailToken, demodata.SlackToken, demodata.ChatGPTToken)
		start := time.Now()
		r := newClient(t, srv).call("search", map[string]any{"q": "invoice"})
		if r.IsError || strings.Contains(r.text(), "source_unavailable") {
			t.Fatalf("a queued source lost its wait:\n%s", r.text())
		}
		if took := time.Since(start); took != 12*time.Second {
			t.Errorf("the search took %v of the bubble's clock, want three 4 s searches one after another", took)
		}
		if rs.asked != 3 || rs.answered != 3 {
			t.Errorf("%d searches asked, %d answered; want 3 and 3", rs.asked, rs.answered)
		}
	})
}

// TestCoverageCheckQueuedBehindTheReadLimitGetsItsWholeSourceWait: a
// lexical miss over two grants checks the semantic retry on each, one at a
// time under a refining-read limit of 1; each check is answered after
// 4 s, the first without hits, and each is allowed 5 s. The second check
// waits 4 s for its slot and still gets its whole 5 s, so its hit makes
// the page offer the retry; a wait started at queueing would have cut it
// at 5 s, and with no check finding anything the retry would go unsaid.
func TestCoverageCheckQueuedBehindTheReadLimitGetsItsWholeSourceWait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		gaps := append(append([]rstest.LexicalGap(nil), messagesGaps...),
			rstest.LexicalGap{ConnectionID: demodata.SlackConnectionID, Stream: "messages"})
		mock, err := rstest.New(testenv.Dataset(t), rstest.Options{Semantic: true, LexicalGaps: gaps})
		if err != nil {
			t.Fatal(err)
		}
		rs := &pacedRS{rs: mock, path: "/v1/search/semantic", delay: 4 * time.Second, empty: true}
		waits := adapter.UnboundedWaits
		waits.Source = 5 * time.Second
		srv := pacedServer(t, rs, adapter.Config{MaxRefiningReads: 1, Waits: waits}, demodata.GmailToken, demodata.SlackToken)
		r := newClient(t, srv).call("search", map[string]any{"q": "invoice", "streams": []string{"messages"}})
		if !retryRE.MatchString(r.text()) {
			t.Errorf("no retry suggested: the queued check lost its wait (%d asked, %d answered):\n%s", rs.asked, rs.answered, r.text())
		}
		if rs.asked != 2 || rs.answered != 2 {
			t.Errorf("%d checks asked, %d answered; want 2 and 2", rs.asked, rs.answered)
		}
	})
}

// TestFanInSendsNoQueuedSearchOnceTheCallEnded: three grants searched one
// at a time against an RS that never answers a search; the call ends at
// its own deadline, and the two searches still queued then are never sent
// (a slot wait that ignored the call's end would send each, cancelled).
func TestFanInSendsNoQueuedSearchOnceTheCallEnded(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mock, err := rstest.New(testenv.Dataset(t), rstest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rs := &pacedRS{rs: mock, path: "/v1/search", delay: -1}
		waits := adapter.UnboundedWaits
		waits.Call = 2 * time.Second
		srv := pacedServer(t, rs, adapter.Config{FanOutConcurrency: 1, Waits: waits},
			demodata.GmailToken, demodata.SlackToken, demodata.ChatGPTToken)
		start := time.Now()
		r := newClient(t, srv).call("search", map[string]any{"q": "invoice"})
		if took := time.Since(start); took != 2*time.Second {
			t.Errorf("the call took %v, want its 2 s deadline", took)
		}
		if code := r.errorCode(t); code != "rs_timeout" {
			t.Errorf("code %q, want rs_timeout: %s", code, r.text())
		}
		if rs.asked != 1 {
			t.Errorf("%d searches reached the RS, want only the one running when the call ended", rs.asked)
		}
	})
}
