package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// Stdin closes with 16 tool calls in flight — 5 at the RS
// (mcp-go's worker pool) and 11 queued behind them — and every one gets
// an answer, a typed `cancelled`, before the process exits. mcp-go alone
// drops the queued ones.
func TestStdioEOFAnswersEveryCallInFlight(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	reads := testenv.NewArrivals("/v1/streams")
	rs := testenv.StartRS(t, testenv.Options{NoContract: true, OnRequest: reads.Observe}) // the slow answers are cut off, never written
	dir := t.TempDir()
	cacheWith(t, dir, rs.URL, credJSON(demodata.GmailToken, ""))
	s := startStdio(t, bin, dir, "--provider-url", rs.URL)
	if code, text := s.call("schema", map[string]any{}); code != "" {
		t.Fatalf("schema: %s", text)
	}
	rs.Server.SetFaults(&rstest.Faults{PathPrefix: "/v1/streams", Latency: time.Minute})
	const calls = 16
	var want []int
	for i := range calls {
		id := 100 + i
		want = append(want, id)
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"query_records","arguments":{"stream":"messages","limit":2}}}`, id))
	}
	reads.Await(t, 5, 10*time.Second)
	closed := time.Now()
	_ = s.stdin.Close()
	var got []int
	for line := range s.lines {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.ID < 100 {
			t.Errorf("unexpected line %q", line)
			continue
		}
		got = append(got, msg.ID)
		if !msg.Result.IsError || len(msg.Result.Content) == 0 || !strings.Contains(msg.Result.Content[0].Text, `"code":"cancelled"`) {
			t.Errorf("call %d: want a typed cancelled result, got %s", msg.ID, line)
		}
	}
	sort.Ints(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers after EOF (-want +got):\n%s\nstderr:\n%s", diff, s.stderr.String())
	}
	t.Logf("%d answers, stdout closed %v after stdin", len(got), time.Since(closed).Round(time.Millisecond))
}
