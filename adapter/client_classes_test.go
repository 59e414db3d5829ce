package adapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// bearerTransport adds a client token to every request, as a host would.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// sdkSession connects the official Go SDK client to a hosted adapter.
func sdkSession(t *testing.T, token string) (*sdk.ClientSession, *testenv.RS) {
	t.Helper()
	rs := testenv.StartRS(t, testenv.Options{})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(hosted.New(a, hosted.Options{}))
	t.Cleanup(hs.Close)
	client := sdk.NewClient(&sdk.Implementation{Name: "client-class-test", Version: "1"}, nil)
	sess, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{
		Endpoint: hs.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{token}}, DisableStandaloneSSE: true, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	return sess, rs
}

func callSDK(t *testing.T, s *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s returned an error: %s", tool, sdkText(res))
	}
	return res
}

func sdkText(r *sdk.CallToolResult) string {
	if len(r.Content) == 0 {
		return ""
	}
	if tc, ok := r.Content[0].(*sdk.TextContent); ok {
		return tc.Text
	}
	return ""
}

// passageAround is the paragraph of text that contains term.
func passageAround(text, term string) string {
	i := strings.Index(text, term)
	start := strings.LastIndex(text[:i], "\n\n")
	if start < 0 {
		start = 0
	} else {
		start += 2
	}
	end := strings.Index(text[i:], "\n\n")
	if end < 0 {
		return text[start:]
	}
	return text[start : i+end]
}

// longBody is the ground truth the three clients must reconstruct.
func longBody(t *testing.T) string {
	t.Helper()
	for _, r := range testenv.Dataset(t).Records {
		if r.Stream == "message_bodies" && r.ID == demodata.LongBodyMessageID && r.ConnectionID == demodata.GmailWorkConnectionID {
			var p struct {
				Body string `json:"body_text"`
			}
			if err := json.Unmarshal(r.Data, &p); err != nil {
				t.Fatal(err)
			}
			return p.Body
		}
	}
	t.Fatal("long body not in dataset")
	return ""
}

// window is what a client assembles: text at known offsets.
type window struct {
	start int
	text  string
}

// assemble grows a passage from windows until it covers the paragraph
// around the term (blank lines on both sides, or the field's ends).
func covers(ws []window, total int) (string, bool) {
	if len(ws) == 0 {
		return "", false
	}
	lo, hi := ws[0].start, ws[0].start
	buf := map[int]rune{}
	for _, w := range ws {
		for i, r := range []rune(w.text) {
			buf[w.start+i] = r
		}
		lo = min(lo, w.start)
		hi = max(hi, w.start+len([]rune(w.text)))
	}
	var b strings.Builder
	for i := lo; i < hi; i++ {
		r, ok := buf[i]
		if !ok {
			return "", false
		}
		b.WriteRune(r)
	}
	return b.String(), lo == 0 || hi == total
}

var (
	hitLineRe = regexp.MustCompile(`(?m)^\d+\. (\S+) "[^"]*" (\w+): `)
	headerRe  = regexp.MustCompile(`^\{.*\}`)
	startRe   = regexp.MustCompile(`"start_chars":(\d+)`)
	totalRe   = regexp.MustCompile(`"total_chars":(\d+)`)
)

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Class 1: reads only content[] text and calls read_record_field.
func TestContentOnlyClientReadsPassage(t *testing.T) {
	t.Parallel()
	sess, _ := sdkSession(t, demodata.GmailToken)
	term := demodata.LongBodyTerm
	res := callSDK(t, sess, "search", map[string]any{"q": term})
	m := hitLineRe.FindStringSubmatch(sdkText(res))
	if m == nil {
		t.Fatalf("no hit line in text:\n%s", sdkText(res))
	}
	id, field := m[1], m[2]
	w := callSDK(t, sess, "read_record_field", map[string]any{"id": id, "field_path": field, "q": term, "before_chars": 40, "after_chars": 40})
	var ws []window
	for step := 0; step < 20; step++ {
		text := sdkText(w)
		header := headerRe.FindString(text)
		ws = append(ws, window{start: atoi(t, startRe.FindStringSubmatch(header)[1]), text: strings.TrimPrefix(text, header+"\n")})
		got, _ := covers(ws, atoi(t, totalRe.FindStringSubmatch(header)[1]))
		i := strings.Index(got, term)
		before, after := got[:i], got[i:]
		if strings.Contains(before, "\n\n") && strings.Contains(after, "\n\n") {
			if passageAround(got, term) != passageAround(longBody(t), term) {
				t.Fatal("assembled passage differs from the record")
			}
			if step == 0 {
				t.Fatal("the first window already covered the passage; paging was not exercised")
			}
			return
		}
		// Follow the continuation printed in the header line.
		var h struct {
			Next     *struct{ Args map[string]any } `json:"next"`
			Previous *struct{ Args map[string]any } `json:"previous"`
		}
		if err := json.Unmarshal([]byte(header), &h); err != nil {
			t.Fatal(err)
		}
		switch {
		case !strings.Contains(before, "\n\n") && h.Previous != nil:
			w = callSDK(t, sess, "read_record_field", h.Previous.Args)
		case h.Next != nil:
			w = callSDK(t, sess, "read_record_field", h.Next.Args)
		default:
			t.Fatalf("no way to continue:\n%s", header)
		}
	}
	t.Fatal("content-only client did not assemble the passage")
}

// Class 2: reads structuredContent only, no prose: a hit's id and matched
// field, its highlighted term, then the window pages' next/previous calls.
func TestStructuredClientReadsPassage(t *testing.T) {
	t.Parallel()
	sess, _ := sdkSession(t, demodata.GmailToken)
	term := demodata.LongBodyTerm
	res := callSDK(t, sess, "search", map[string]any{"q": term})
	raw, _ := json.Marshal(res.StructuredContent)
	var sc struct {
		Hits [][5]string `json:"hits"` // id, title, source, field, snippet
	}
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	if len(sc.Hits) == 0 || sc.Hits[0][3] == "" || !strings.Contains(sc.Hits[0][4], "<mark>") {
		t.Fatalf("structured search lacks a hit with a matched field: %s", raw)
	}
	hit := sc.Hits[0]
	marked := hit[4][strings.Index(hit[4], "<mark>")+len("<mark>"):]
	args := map[string]any{"id": hit[0], "field_path": hit[3], "q": marked[:strings.Index(marked, "</mark>")],
		"before_chars": 40, "after_chars": 40}
	var ws []window
	var total int
	for step := 0; step < 20; step++ {
		r := callSDK(t, sess, "read_record_field", args)
		if step > 0 && args["cursor"] == nil {
			t.Fatal("structured client should continue with cursors")
		}
		raw, _ := json.Marshal(r.StructuredContent)
		var doc struct {
			Text     string `json:"text"`
			Start    int    `json:"start_chars"`
			Total    int    `json:"total_chars"`
			Next     *call  `json:"next"`
			Previous *call  `json:"previous"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		ws, total = append(ws, window{doc.Start, doc.Text}), doc.Total
		got, _ := covers(ws, total)
		before := got[:strings.Index(got, term)]
		after := got[strings.Index(got, term):]
		if strings.Contains(before, "\n\n") && strings.Contains(after, "\n\n") {
			if passageAround(got, term) != passageAround(longBody(t), term) {
				t.Fatal("assembled passage differs from the record")
			}
			if step == 0 {
				t.Fatal("paging was not exercised")
			}
			return
		}
		switch {
		case !strings.Contains(before, "\n\n") && doc.Previous != nil:
			args = doc.Previous.Args
		case doc.Next != nil:
			args = doc.Next.Args
		default:
			t.Fatal("no call to continue with")
		}
	}
	t.Fatal("structured client did not assemble the passage")
}

// call is a tool call a result suggests: the tool and its arguments.
type call struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// Class 3: follows resource_link through resources/read, paging by URI.
func TestResourceClientReadsPassage(t *testing.T) {
	t.Parallel()
	sess, _ := sdkSession(t, demodata.GmailToken)
	term := demodata.LongBodyTerm
	res := callSDK(t, sess, "search", map[string]any{"q": term})
	var uri string
	for _, c := range res.Content {
		if l, ok := c.(*sdk.ResourceLink); ok && strings.HasPrefix(l.URI, "pdpp://field-window/") {
			uri = l.URI
			break
		}
	}
	if uri == "" {
		t.Fatal("search returned no field-window resource_link")
	}
	var ws []window
	for step := 0; step < 30; step++ {
		rr, err := sess.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("resources/read %s: %v", uri, err)
		}
		if len(rr.Contents) != 2 {
			t.Fatalf("want text + JSON contents, got %d", len(rr.Contents))
		}
		var doc struct {
			Window struct {
				Text  string `json:"text"`
				Start int    `json:"start_chars"`
				Total int    `json:"total_chars"`
			} `json:"window"`
			Resource struct {
				NextURI     *string `json:"next_uri"`
				PreviousURI *string `json:"previous_uri"`
			} `json:"resource"`
		}
		if err := json.Unmarshal([]byte(rr.Contents[1].Text), &doc); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, window{doc.Window.Start, doc.Window.Text})
		got, _ := covers(ws, doc.Window.Total)
		i := strings.Index(got, term)
		if i >= 0 && strings.Contains(got[:i], "\n\n") && strings.Contains(got[i:], "\n\n") {
			if passageAround(got, term) != passageAround(longBody(t), term) {
				t.Fatal("assembled passage differs from the record")
			}
			// Paging by URI continues exactly where the window ended.
			if doc.Resource.NextURI == nil {
				t.Fatal("no next_uri on a window inside a 50,000-char field")
			}
			next, err := sess.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: *doc.Resource.NextURI})
			if err != nil {
				t.Fatal(err)
			}
			var nd struct {
				Window struct {
					Start int `json:"start_chars"`
				} `json:"window"`
			}
			if err := json.Unmarshal([]byte(next.Contents[1].Text), &nd); err != nil {
				t.Fatal(err)
			}
			if want := doc.Window.Start + len([]rune(doc.Window.Text)); nd.Window.Start != want {
				t.Errorf("next window starts at %d, want %d", nd.Window.Start, want)
			}
			body := longBody(t)
			if got := next.Contents[0].Text; !strings.Contains(got, string([]rune(body)[nd.Window.Start:nd.Window.Start+100])) {
				t.Error("next window text does not match the field")
			}
			return
		}
		switch {
		case (i < 0 || !strings.Contains(got[:i], "\n\n")) && doc.Resource.PreviousURI != nil:
			uri = *doc.Resource.PreviousURI
		case doc.Resource.NextURI != nil:
			uri = *doc.Resource.NextURI
		default:
			t.Fatal("no adjacent window URI")
		}
	}
	t.Fatal("resource client did not assemble the passage")
}
