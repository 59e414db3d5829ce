package rsclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// benchBody is a gmail-like message body of n characters: prose with some
// punctuation and non-ASCII, so string decoding does real escape work.
func benchBody(n int) string {
	const para = "Hi team — the Q3 invoice for \"Projects/Roadmap\" is attached; see <notes> & totals.\n"
	return strings.Repeat(para, n/len(para)+1)[:n]
}

// benchRecordsPage is a records page of n gmail message records, each with
// a body of bodyChars characters (the benchmark's profile: 25 × 20 KB).
func benchRecordsPage(n, bodyChars int) []byte {
	type rec struct {
		Object       string         `json:"object"`
		ID           string         `json:"id"`
		Stream       string         `json:"stream"`
		ConnectionID string         `json:"connection_id"`
		ConnectorKey string         `json:"connector_key"`
		EmittedAt    string         `json:"emitted_at"`
		Data         map[string]any `json:"data"`
	}
	page := struct {
		Object     string         `json:"object"`
		Data       []rec          `json:"data"`
		HasMore    bool           `json:"has_more"`
		NextCursor string         `json:"next_cursor"`
		Meta       map[string]any `json:"meta"`
	}{Object: "list", HasMore: true, NextCursor: "eyJjdXJzb3IiOiIyNSJ9", Meta: map[string]any{"count": map[string]any{"kind": "none"}, "warnings": []any{}}}
	body := benchBody(bodyChars)
	for i := range n {
		id := fmt.Sprintf("18c4f2a9b3e%05d", i)
		page.Data = append(page.Data, rec{Object: "record", ID: id, Stream: "message_bodies",
			ConnectionID: "cin_gmail_work", ConnectorKey: "https://registry.pdpp.dev/connectors/gmail",
			EmittedAt: "2026-03-01T09:00:00.000Z", Data: map[string]any{
				"id": id, "thread_id": "t" + id, "subject": "Invoice " + id, "from": "billing@example.com",
				"to": []string{"me@example.com"}, "sent_at": "2026-03-01T08:59:00Z",
				"labels": []string{"INBOX", "Projects/Roadmap"}, "body_text": body,
			}})
	}
	b, _ := json.Marshal(page)
	return b
}

// benchServer answers every request with body and its Content-Length,
// like the real RS (every capture in rs-captures-real carries one) and the
// mock RS.
func benchServer(b *testing.B, body []byte) *Client {
	b.Helper()
	return benchServerChunked(b, body, false)
}

// benchServerChunked is benchServer; chunked leaves Content-Length out, so
// net/http sends a body over 2 KB chunked and the client reads it not
// knowing its length.
func benchServerChunked(b *testing.B, body []byte, chunked bool) *Client {
	b.Helper()
	length := strconv.Itoa(len(body))
	srv := newRecorder(b, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !chunked {
			w.Header().Set("Content-Length", length)
		}
		_, _ = w.Write(body)
	})
	return newTestClient(b, srv.URL)
}

func benchLoop(b *testing.B, size int, call func(context.Context) error) {
	b.Helper()
	ctx := context.Background()
	if err := call(ctx); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if err := call(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecords25x20KB(b *testing.B) {
	body := benchRecordsPage(25, 20_000)
	c := benchServer(b, body)
	benchLoop(b, len(body), func(ctx context.Context) error {
		_, _, err := c.Records(ctx, testBearer, RecordsQuery{Stream: "message_bodies", Limit: 25})
		return err
	})
}

// BenchmarkRecords25x20KBChunked is BenchmarkRecords25x20KB with a body of
// unknown length (chunked), the read path for an RS behind a proxy that
// drops Content-Length.
func BenchmarkRecords25x20KBChunked(b *testing.B) {
	body := benchRecordsPage(25, 20_000)
	c := benchServerChunked(b, body, true)
	benchLoop(b, len(body), func(ctx context.Context) error {
		_, _, err := c.Records(ctx, testBearer, RecordsQuery{Stream: "message_bodies", Limit: 25})
		return err
	})
}

func BenchmarkRecords25Small(b *testing.B) {
	body := benchRecordsPage(25, 200)
	c := benchServer(b, body)
	benchLoop(b, len(body), func(ctx context.Context) error {
		_, _, err := c.Records(ctx, testBearer, RecordsQuery{Stream: "message_bodies", Limit: 25})
		return err
	})
}

func BenchmarkRecord50KB(b *testing.B) {
	page := benchRecordsPage(1, 50_000)
	var list struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(page, &list); err != nil {
		b.Fatal(err)
	}
	body := list.Data[0]
	c := benchServer(b, body)
	benchLoop(b, len(body), func(ctx context.Context) error {
		_, _, err := c.Record(ctx, testBearer, RecordQuery{Stream: "message_bodies", RecordID: "18c4f2a9b3e00000"})
		return err
	})
}

func BenchmarkSearch25(b *testing.B) {
	hits := make([]map[string]any, 25)
	for i := range hits {
		hits[i] = map[string]any{"connection_id": "cin_gmail_work", "stream": "messages", "record_key": fmt.Sprintf("m%03d", i),
			"emitted_at": "2026-03-01T09:00:00.000Z", "retrieval_mode": "lexical", "matched_fields": []string{"subject", "body_text"},
			"snippet": map[string]any{"field": "body_text", "text": "the Q3 <mark>invoice</mark> for " + benchBody(200)},
			"score":   3.25}
	}
	body, _ := json.Marshal(map[string]any{"object": "list", "data": hits, "has_more": true, "next_cursor": "c25",
		"meta": map[string]any{"count": nil, "recall": map[string]any{"complete": false, "truncated": false}}})
	c := benchServer(b, body)
	benchLoop(b, len(body), func(ctx context.Context) error {
		_, _, err := c.Search(ctx, testBearer, SearchQuery{Q: "invoice", Limit: 25})
		return err
	})
}

func BenchmarkFieldWindow16K(b *testing.B) {
	body, _ := json.Marshal(map[string]any{"object": "field_window", "stream": "message_bodies", "record_id": "m1", "connection_id": "cin_gmail_work",
		"field":  map[string]any{"path": "body_text", "type": "string"},
		"window": map[string]any{"text": benchBody(16384), "total_chars": 50000, "start_chars": 0, "end_chars": 16384, "limit_chars": 16384, "complete": false, "has_more": true, "next_offset_chars": 16384},
		"meta":   map[string]any{"warnings": []any{}}})
	c := benchServer(b, body)
	benchLoop(b, len(body), func(ctx context.Context) error {
		_, _, err := c.FieldWindow(ctx, testBearer, FieldWindowQuery{Stream: "message_bodies", RecordID: "m1", Field: "body_text"})
		return err
	})
}

func BenchmarkAggregateGroups(b *testing.B) {
	groups := make([]map[string]any, 50)
	for i := range groups {
		groups[i] = map[string]any{"key": fmt.Sprintf("sender%02d@example.com", i), "count": 100 - i}
	}
	body, _ := json.Marshal(map[string]any{"object": "aggregation", "metric": "count", "stream": "messages", "group_by": "from",
		"groups": groups, "limit": 50, "other_count": 12, "filtered_record_count": 5000, "meta": map[string]any{"warnings": []any{}}})
	c := benchServer(b, body)
	benchLoop(b, len(body), func(ctx context.Context) error {
		_, _, err := c.Aggregate(ctx, testBearer, AggregateQuery{Stream: "messages", Metric: "count", GroupBy: "from"})
		return err
	})
}

// BenchmarkCallOverhead is a call whose answer costs nothing to decode
// (an empty page): what remains is the request through resty and
// net/http, the budgeted read and the bookkeeping of one call.
func BenchmarkCallOverhead(b *testing.B) {
	body := []byte(`{"object":"list","data":[],"has_more":false,"meta":{"count":{"kind":"none"}}}`)
	c := benchServer(b, body)
	benchLoop(b, len(body), func(ctx context.Context) error {
		_, _, err := c.Records(ctx, testBearer, RecordsQuery{Stream: "message_bodies", Limit: 25})
		return err
	})
}
