package adapter_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

var (
	nextCursorRE = regexp.MustCompile(` next_cursor=(\S+)`)
	nextSinceRE  = regexp.MustCompile(` next_changes_since=(\S+)`)
	recordLineRE = regexp.MustCompile(`(?m)^\d+\. (\S+)`)
)

// TestChangesFeedPagedByTextLosesNothing, on the mock
// with the real RS's changes semantics (D3): a client that reads only
// content[] text and continues with cursor = the printed next_cursor (same
// stream and connection_id, nothing else) gets every change exactly once,
// and sees next_changes_since only on the last page, as the bookmark for
// the next read.
func TestChangesFeedPagedByTextLosesNothing(t *testing.T) {
	t.Parallel()
	for _, fields := range [][]string{nil, {"subject", "received_at"}} {
		t.Run(fmt.Sprintf("fields=%v", fields), func(t *testing.T) {
			t.Parallel()
			changesFeedByText(t, fields)
		})
	}
}

func changesFeedByText(t *testing.T, fields []string) {
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	conn := demodata.GmailWorkConnectionID
	const stream = "messages"

	// The truth, read from the RS the way D3 says continues a session.
	rc, err := rsclient.New(rsclient.Config{BaseURL: e.rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	q := rsclient.RecordsQuery{Stream: stream, ConnectionID: conn, ChangesSince: "beginning", Limit: 100}
	for {
		list, _, err := rc.Records(context.Background(), demodata.GmailToken, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.Data {
			want = append(want, conn+"/"+stream+":"+r.ID)
		}
		if !list.HasMore {
			break
		}
		q = rsclient.RecordsQuery{Stream: stream, ConnectionID: conn, Cursor: list.NextCursor, Limit: 100}
	}
	if len(want) < 30 {
		t.Fatalf("the feed has %d changes; the proof needs at least 30", len(want))
	}

	var got []string
	// Later pages repeat nothing but the cursor, which keeps fields.
	args := map[string]any{"stream": stream, "connection_id": conn, "changes_since": "beginning", "limit": 5}
	if fields != nil {
		args["fields"] = fields
	}
	pages := 0
	for {
		pages++
		if pages > len(want) {
			t.Fatal("paging does not end")
		}
		r := e.c.call("query_records", args)
		if r.IsError {
			t.Fatalf("page %d: %s", pages, r.text())
		}
		text := r.text()
		if fields != nil && pages > 1 && strings.Contains(text, `"thread_id"`) {
			t.Errorf("page %d lost the fields projection the cursor carries:\n%s", pages, text)
		}
		for _, m := range recordLineRE.FindAllStringSubmatch(text, -1) {
			got = append(got, m[1])
		}
		if strings.Contains(text, "has_more=false") {
			if nextCursorRE.MatchString(text) || !nextSinceRE.MatchString(text) {
				t.Errorf("last page must carry next_changes_since and no next_cursor:\n%s", text)
			}
			break
		}
		if nextSinceRE.MatchString(text) {
			t.Errorf("page %d has more but shows next_changes_since (following it skips the rest, D3):\n%s", pages, text)
		}
		m := nextCursorRE.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("page %d: has_more without next_cursor:\n%s", pages, text)
		}
		args = map[string]any{"stream": stream, "connection_id": conn, "cursor": m[1]}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes read through the text differ from the feed (-want +got):\n%s", diff)
	}
	if pages < 6 {
		t.Errorf("%d pages of 5 for %d changes", pages, len(want))
	}
	t.Logf("%d changes in %d pages of 5, each exactly once", len(got), pages)
}
