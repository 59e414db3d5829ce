package rstest

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readJSON loads a testdata JSON file.
func readJSON(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSchemaMatchesReferences(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	tests := []struct {
		name, path, tok, want string
		drop                  []string // stream keys absent from our output by design
	}{
		// rs-contract §3.4 Example A (two Gmail connections, projected grant).
		{"contract example A", "/v1/schema?view=compact", gmailTok, "contract-example-a-compact.json", nil},
		// Raw captures from the reference RS.
		{"capture compact", "/v1/schema?view=compact", spotifyTok, "rs-raw-schema-compact.json", nil},
		{"capture full stream", "/v1/schema?stream=top_artists&detail=full", spotifyTok, "rs-raw-schema-full-stream.json", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := get(t, ts.URL, tc.path, tc.tok)
			want := readJSON(t, tc.want)
			for _, c := range want["connectors"].([]any) {
				for _, st := range c.(map[string]any)["streams"].([]any) {
					for _, k := range tc.drop {
						delete(st.(map[string]any), k)
					}
				}
			}
			if d := cmp.Diff(want, r.body); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestSchemaRules(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	tests := []struct {
		name, path, tok string
		status          int
		code, param     string
		connectors      int
	}{
		{"detail full without stream", "/v1/schema?detail=full", gmailTok, 400, "invalid_request", "detail", 0},
		{"detail full ambiguous", "/v1/schema?detail=full&stream=messages", gmailTok, 409, "ambiguous_schema_detail", "connection_id", 0},
		{"detail full scoped", "/v1/schema?detail=full&stream=messages&connection_id=" + connA, gmailTok, 200, "", "", 1},
		{"compact ignores detail", "/v1/schema?view=compact&detail=full", gmailTok, 200, "", "", 1},
		{"unknown stream", "/v1/schema?stream=nope", gmailTok, 200, "", "", 0},
		{"unknown connection", "/v1/schema?connection_id=cin_x", gmailTok, 200, "", "", 0},
		{"owner sees all", "/v1/schema?view=compact", ownerTok, 200, "", "", 3},
		{"owner stream scope across connectors", "/v1/schema?stream=messages", ownerTok, 200, "", "", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := get(t, ts.URL, tc.path, tc.tok)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.raw)
			}
			if code, param := r.errCode(); code != tc.code || param != tc.param {
				t.Errorf("error = %s/%s, want %s/%s", code, param, tc.code, tc.param)
			}
			if tc.status == 200 {
				if n := len(r.body["connectors"].([]any)); n != tc.connectors {
					t.Errorf("connectors = %d, want %d", n, tc.connectors)
				}
			}
		})
	}
	t.Run("no-stream message matches capture", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/schema?detail=full", gmailTok)
		want := readJSON(t, "rs-raw-schema-full-nostream.json")
		if at(r.body, "error", "message") != at(want, "error", "message") {
			t.Errorf("message = %v", at(r.body, "error", "message"))
		}
	})
	t.Run("ambiguous detail lists connections", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/schema?detail=full&stream=messages", gmailTok)
		want := []any{
			map[string]any{"connection_id": connA, "connector_key": "gmail", "stream": "messages", "display_name": "Personal Gmail"},
			map[string]any{"connection_id": connB, "connector_key": "gmail", "stream": "messages", "display_name": "Work Gmail"},
		}
		if d := cmp.Diff(want, at(r.body, "error", "available_connections")); d != "" || at(r.body, "error", "retry_with") != "connection_id" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("owner flags include eq and r", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/schema?view=compact&stream=messages&connection_id="+connA, ownerTok)
		got := at(r.body, "connectors", 0, "streams", 0, "field_capabilities", "size_bytes")
		if got != "t=integer|null,eq,r=gte|gt|lte|lt,a=max|min|sum" {
			t.Errorf("size_bytes flags = %v", got)
		}
		if at(r.body, "bearer", "token_kind") != "owner" {
			t.Errorf("bearer = %v", r.body["bearer"])
		}
	})
	t.Run("full view golden", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/schema?stream=message_bodies&detail=full&connection_id="+connA, gmailTok)
		jsonGolden(t, "schema-full-message-bodies.golden.json", r.body)
	})
}

func TestStreams(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	r := get(t, ts.URL, "/v1/streams", spotifyTok)
	want := readJSON(t, "rs-raw-streams.json")
	if d := cmp.Diff(want, r.body); d != "" {
		t.Errorf("streams vs capture (-want +got):\n%s", d)
	}
	r = get(t, ts.URL, "/v1/streams", gmailTok)
	if n := len(r.body["data"].([]any)); n != 4 {
		t.Errorf("gmail rows = %d, want 4 (2 streams x 2 connections)", n)
	}
	// message_bodies on connA: 3 records, one hidden by the time constraint.
	if got := at(r.body, "data", 2, "record_count"); got != float64(2) {
		t.Errorf("time-constrained record_count = %v", got)
	}
	tests := []struct {
		path, tok string
		status    int
		code      string
	}{
		{"/v1/streams/messages", gmailTok, 200, ""},
		{"/v1/streams/attachments", gmailTok, 401, "context.stream_not_allowed"},
		{"/v1/streams/nope?connector_id=gmail", ownerTok, 404, "not_found"},
		// The owner read scope is one connector or one connection (D12).
		{"/v1/streams/messages", ownerTok, 400, "invalid_request"},
	}
	for _, tc := range tests {
		r := get(t, ts.URL, tc.path, tc.tok)
		if code, _ := r.errCode(); r.status != tc.status || code != tc.code {
			t.Errorf("%s: %d %s", tc.path, r.status, r.raw)
		}
		if tc.status == 200 && (r.body["object"] != "stream_metadata" || r.body["granted_connections"] != nil) {
			t.Errorf("%s: %s", tc.path, r.raw)
		}
	}
}
