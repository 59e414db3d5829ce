package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// stdio writes tool results through the adapter's fast path (encoded
// once, spliced into mcp-go's answer): each answer line is the JSON value
// mcp-go's own encoding of the same call gives.
func TestStdioToolAnswersMatchMCPGo(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "test", Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken)}})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	writes := &lineWrites{w: outW}
	go func() {
		done <- serveStdio(t.Context(), srv, inR, writes, slog.New(slog.DiscardHandler))
		_ = outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 4<<20)
	long := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	for i, call := range []string{
		`{"name":"schema","arguments":{"stream":"messages","detail":"full"}}`,
		`{"name":"fetch","arguments":{"id":"` + long + `"}}`,
		`{"name":"aggregate","arguments":{"stream":"messages","metric":"count"}}`,
		`{"name":"query_records","arguments":{"stream":"no_such_stream"}}`,
	} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+1, call)
		if _, err := io.WriteString(inW, body+"\n"); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatalf("%s: no answer (%v)", call, lines.Err())
		}
		want, err := json.Marshal(srv.MCP().HandleMessage(context.Background(), []byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		var w, g any
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(lines.Bytes(), &g); err != nil {
			t.Fatalf("%s: answer is not JSON: %v\n%s", call, err, lines.Bytes())
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("%s: the stdio answer differs from mcp-go's (-mcp-go +stdio):\n%s", call, diff)
		}
	}
	_ = inW.Close()
	for lines.Scan() {
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if writes.split > 0 {
		t.Errorf("%d answers went to stdout in more than one write (one system call and one reader wake-up each)", writes.split)
	}
}

// lineWrites passes writes on and counts those that are not exactly one
// whole line: an answer split over several writes.
type lineWrites struct {
	w     io.Writer
	split int
}

func (l *lineWrites) Write(p []byte) (int, error) {
	if len(p) == 0 || p[len(p)-1] != '\n' || bytes.IndexByte(p, '\n') != len(p)-1 {
		l.split++
	}
	return l.w.Write(p)
}
