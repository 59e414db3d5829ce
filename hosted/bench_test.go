package hosted_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// benchDoor is the hosted door set up as `pdpp-mcp serve` runs it —
// metrics on, the RS client counted, a JSON access log at INFO (written
// to io.Discard, so the benchmark measures building the line, not a
// terminal) — over loopback HTTP, with the bearer's verdict and the
// schema cache warm, against a mock that replays its recorded answers
// (testenv.ReplayOnce). What it measures is the door: everything between the
// request on POST /mcp and the adapter's tool handler, and the answer.
func benchDoor(b *testing.B) (url string, client *http.Client) {
	b.Helper()
	rs := testenv.StartRS(b, testenv.Options{NoContract: true, Raw: testenv.ReplayOnce})
	metrics := hosted.NewMetrics()
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL, Transport: metrics.Transport(nil)})
	if err != nil {
		b.Fatal(err)
	}
	logger := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	a, err := adapter.New(adapter.Config{RS: rc, Version: "bench", Logger: logger, Observer: metrics})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(hosted.New(a, hosted.Options{Metrics: metrics, Logger: logger}))
	b.Cleanup(hs.Close)
	return hs.URL + "/mcp", hs.Client()
}

// benchPost sends one JSON-RPC body with the bearer and drains the answer,
// failing on anything but 200.
func benchPost(b *testing.B, client *http.Client, url, body string) int {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+demodata.GmailToken)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("status %d", resp.StatusCode)
	}
	return int(n)
}

func benchDoorCall(b *testing.B, body string) {
	url, client := benchDoor(b)
	benchPost(b, client, url, body) // verdict and schema cache warm
	benchPost(b, client, url, body)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.SetBytes(int64(benchPost(b, client, url, body)))
	}
}

// BenchmarkMCPSchemaCall is the cheapest tool call through the door:
// schema() answered from the adapter's cache, so the cost is the door's
// own (HTTP, bearer cache, mcp-go transport, metrics, access log) plus the
// client side of one loopback exchange.
func BenchmarkMCPSchemaCall(b *testing.B) { benchDoorCall(b, toolsCallSchema) }

// BenchmarkMCPToolsList is tools/list through the door: a larger answer
// written without any RS call.
func BenchmarkMCPToolsList(b *testing.B) { benchDoorCall(b, toolsList) }

// BenchmarkHTTPFloor is the same exchange against a handler that only
// drains the request and answers fixed bytes of the schema answer's size:
// the floor net/http and the client impose, to subtract from the door's
// figures.
func BenchmarkHTTPFloor(b *testing.B) {
	answer := []byte(`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat(" ", 1030) + `{}}`)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	b.Cleanup(hs.Close)
	url, client := hs.URL+"/mcp", hs.Client()
	benchPost(b, client, url, toolsCallSchema)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.SetBytes(int64(benchPost(b, client, url, toolsCallSchema)))
	}
}

// BenchmarkMCPQueryRecords25 is a page of 25 long Gmail bodies through the
// door (about 37 KiB of answer): what the door costs per answer byte.
func BenchmarkMCPQueryRecords25(b *testing.B) {
	benchDoorCall(b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query_records","arguments":{"stream":"message_bodies","limit":25,"connection_id":"`+demodata.GmailWorkConnectionID+`"}}}`)
}

// BenchmarkMCPMix is one op per round of the end-to-end benchmark's nine
// calls (e2e/bench: schema ×2, query_records ×2, aggregate ×2, search,
// fetch, read_record_field) through the door, so a CPU profile of it is
// the hosted process's profile under `make bench-e2e`, minus the RS.
func BenchmarkMCPMix(b *testing.B) {
	work := demodata.GmailWorkConnectionID
	long := work + "/message_bodies:" + demodata.LongBodyMessageID
	calls := []string{
		`"schema","arguments":{}`,
		`"schema","arguments":{"stream":"messages","connection_id":"` + work + `"}`,
		`"query_records","arguments":{"stream":"message_bodies","limit":25,"connection_id":"` + work + `"}`,
		`"query_records","arguments":{"stream":"messages","limit":25,"connection_id":"` + work + `"}`,
		`"aggregate","arguments":{"stream":"messages","metric":"count","connection_id":"` + work + `"}`,
		`"aggregate","arguments":{"stream":"messages","metric":"count","group_by_time":"received_at","granularity":"month","connection_id":"` + work + `"}`,
		`"search","arguments":{"q":"invoice","limit":25}`,
		`"fetch","arguments":{"id":"` + long + `"}`,
		`"read_record_field","arguments":{"id":"` + long + `","field_path":"body_text","q":"` + demodata.LongBodyTerm + `"}`,
	}
	for i, c := range calls {
		calls[i] = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + c + `}}`
	}
	url, client := benchDoor(b)
	for _, body := range calls { // verdict, schema cache and replay warm
		benchPost(b, client, url, body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, body := range calls {
			n += benchPost(b, client, url, body)
		}
		b.SetBytes(int64(n))
	}
}
