package adapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// benchAdapter is an adapter over the given demo tokens (default: three
// grants) against a loopback mock RS, with the schema cache warm. The mock answers each distinct
// request once; repeats replay its recorded bytes, so what a benchmark
// measures is the adapter (and the loopback HTTP exchange), not the mock
// building and encoding a page.
func benchAdapter(b testing.TB, tokens ...string) *adapter.Server {
	b.Helper()
	a, _ := countedBenchAdapter(b, tokens...)
	return a
}

// countedBenchAdapter is benchAdapter with a count of the RS requests it
// makes (replayed ones included: each is an exchange on the wire).
func countedBenchAdapter(b testing.TB, tokens ...string) (*adapter.Server, *atomic.Int64) {
	b.Helper()
	if len(tokens) == 0 {
		tokens = threeGrants
	}
	var calls atomic.Int64
	count := func(next http.Handler) http.Handler {
		replay := testenv.ReplayOnce(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			replay.ServeHTTP(w, r)
		})
	}
	rs := testenv.StartRS(b, testenv.Options{NoContract: true, Raw: count})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		b.Fatal(err)
	}
	var grants []adapter.Grant
	for _, tok := range tokens {
		grants = append(grants, adapter.NewGrant(tok))
	}
	a, err := adapter.New(adapter.Config{RS: rc, Grants: grants})
	if err != nil {
		b.Fatal(err)
	}
	return a, &calls
}

// benchCall times one tool call; with a request counter it also reports
// the RS requests each call makes (rs_calls/op).
func benchCall(b *testing.B, a *adapter.Server, tool string, args map[string]any, calls ...*atomic.Int64) {
	b.Helper()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	// As the transports answer: the result encoded by the adapter and
	// spliced into mcp-go's envelope (adapter.ResultSplicer).
	var sp adapter.ResultSplicer
	ctx := adapter.WithRequest(context.Background(), adapter.Request{Results: &sp})
	env, _ := json.Marshal(a.MCP().HandleMessage(ctx, msg)) // warm caches
	sp.Join(env)
	var before int64
	if len(calls) > 0 {
		before = calls[0].Load()
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		env, _ := json.Marshal(a.MCP().HandleMessage(ctx, msg))
		b.SetBytes(int64(len(sp.Join(env))))
		n++
	}
	if len(calls) > 0 && n > 0 {
		b.ReportMetric(float64(calls[0].Load()-before)/float64(n), "rs_calls/op")
	}
}

func BenchmarkToolsList(b *testing.B) {
	a := benchAdapter(b)
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = json.Marshal(a.MCP().HandleMessage(context.Background(), msg))
	}
}

func BenchmarkSchemaGlobal(b *testing.B) { benchCall(b, benchAdapter(b), "schema", map[string]any{}) }

func BenchmarkSchemaStream(b *testing.B) {
	benchCall(b, benchAdapter(b), "schema", map[string]any{"stream": "messages"})
}

func BenchmarkQueryRecords25(b *testing.B) {
	benchCall(b, benchAdapter(b), "query_records", map[string]any{"stream": "message_bodies", "limit": 25, "connection_id": demodata.GmailWorkConnectionID})
}

// BenchmarkSearchFanIn3 reports RS requests per search too: one search
// per grant plus one projected title read per hit (D24).
func BenchmarkSearchFanIn3(b *testing.B) {
	a, calls := countedBenchAdapter(b)
	benchCall(b, a, "search", map[string]any{"q": "invoice", "limit": 25}, calls)
}

func BenchmarkFetchLongBody(b *testing.B) {
	benchCall(b, benchAdapter(b), "fetch", map[string]any{"id": demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID})
}

func BenchmarkReadRecordField(b *testing.B) {
	benchCall(b, benchAdapter(b), "read_record_field", map[string]any{"id": demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID,
		"field_path": "body_text", "q": demodata.LongBodyTerm})
}

func BenchmarkQueryRecordsMessages25(b *testing.B) {
	benchCall(b, benchAdapter(b), "query_records", map[string]any{"stream": "messages", "limit": 25, "connection_id": demodata.GmailWorkConnectionID})
}

func BenchmarkAggregateCount(b *testing.B) {
	benchCall(b, benchAdapter(b), "aggregate", map[string]any{"stream": "messages", "metric": "count", "connection_id": demodata.GmailWorkConnectionID})
}

// BenchmarkSearchOneGrant is the end-to-end mix's search (one grant).
func BenchmarkSearchOneGrant(b *testing.B) {
	a, calls := countedBenchAdapter(b, threeGrants[0])
	benchCall(b, a, "search", map[string]any{"q": "invoice", "limit": 25}, calls)
}
