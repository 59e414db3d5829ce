package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// Ground truth for the content-only journeys: the shared mock RS's own
// REST answers, read with the grant's bearer — never through the adapter.

var truthClient = &http.Client{Timeout: 30 * time.Second}

// rsGet decodes one RS GET into out and returns the HTTP status.
func rsGet(t testing.TB, bearer, path string, q url.Values, out any) int {
	t.Helper()
	u := mockRS.RSURL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := truthClient.Do(req)
	if err != nil {
		t.Fatalf("RS %s: %v", path, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("RS %s: %v", path, err)
	}
	return resp.StatusCode
}

// truthRecord is one RS record as the journeys compare it.
type truthRecord struct {
	ID        string         `json:"id"`
	EmittedAt string         `json:"emitted_at"`
	Data      map[string]any `json:"data"`
}

// rsRecords is every record of a stream in one connection, in the RS's
// default order, following the RS's own cursor.
func rsRecords(t testing.TB, bearer, stream, conn string) []truthRecord {
	t.Helper()
	var out []truthRecord
	q := url.Values{"limit": {"100"}, "connection_id": {conn}}
	for range 200 {
		var page struct {
			Data       []truthRecord `json:"data"`
			NextCursor string        `json:"next_cursor"`
		}
		if st := rsGet(t, bearer, "/v1/streams/"+stream+"/records", q, &page); st != http.StatusOK {
			t.Fatalf("RS records %s: HTTP %d", stream, st)
		}
		out = append(out, page.Data...)
		if page.NextCursor == "" {
			return out
		}
		q.Set("cursor", page.NextCursor)
	}
	t.Fatal("RS paging did not end")
	return nil
}

// rsSearch is every hit id (connection_id/stream:record_key) of a lexical
// search under one grant.
func rsSearch(t testing.TB, bearer, text string, streams ...string) []string {
	t.Helper()
	var out []string
	q := url.Values{"q": {text}, "limit": {"100"}}
	for _, s := range streams {
		q.Add("streams", s)
	}
	for range 200 {
		var page struct {
			Data []struct {
				ConnectionID string `json:"connection_id"`
				Stream       string `json:"stream"`
				RecordKey    string `json:"record_key"`
			} `json:"data"`
			NextCursor string `json:"next_cursor"`
		}
		if st := rsGet(t, bearer, "/v1/search", q, &page); st != http.StatusOK {
			t.Fatalf("RS search: HTTP %d", st)
		}
		for _, h := range page.Data {
			out = append(out, h.ConnectionID+"/"+h.Stream+":"+h.RecordKey)
		}
		if page.NextCursor == "" {
			return out
		}
		q.Set("cursor", page.NextCursor)
	}
	t.Fatal("RS search paging did not end")
	return nil
}

// rsError is the RS's error code for a request, "" on success.
func rsError(t testing.TB, bearer, path string, q url.Values) string {
	t.Helper()
	var body struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	rsGet(t, bearer, path, q, &body)
	return body.Error.Code
}
