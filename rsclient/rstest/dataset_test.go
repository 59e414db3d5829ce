package rstest

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNewValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(ds *Dataset)
		want   string
	}{
		{"unknown connector", func(ds *Dataset) { ds.Connections[0].ConnectorKey = "nope" }, "unknown connector key"},
		{"duplicate connection", func(ds *Dataset) { ds.Connections[1].ID = ds.Connections[0].ID }, "duplicate or empty connection id"},
		{"duplicate record", func(ds *Dataset) { ds.Records = append(ds.Records, ds.Records[0]) }, "duplicate record id"},
		{"record stream undeclared", func(ds *Dataset) { ds.Records[0].Stream = "nope" }, "not declared"},
		{"grant stream not in manifest", func(ds *Dataset) { ds.Grants[0].Streams[0].Name = "threads" }, "not in manifest"},
		{"grant field not in schema", func(ds *Dataset) { ds.Grants[0].Streams[0].Fields = []string{"zzz"} }, "not in schema"},
		{"grant foreign connection", func(ds *Dataset) { ds.Grants[0].Streams[0].ConnectionIDs = []string{connSlack} }, "another connector"},
		{"duplicate token", func(ds *Dataset) { ds.Grants[1].Token = ds.Grants[0].Token }, "duplicate or empty token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ds := testDataset()
			tc.mutate(ds)
			_, err := New(ds, Options{})
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ValidationError containing %q", err, tc.want)
			}
		})
	}
}

// TestRealManifest loads the real Gmail manifest and fixture, proving that
// manifest `streams` unmarshal straight into []Stream and serve.
func TestRealManifest(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/manifest-gmail.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ConnectorKey string   `json:"connector_key"`
		ManifestURI  string   `json:"manifest_uri"`
		Streams      []Stream `json:"streams"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/fixture-gmail-messages.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds := &Dataset{Connectors: []*Connector{{Key: m.ConnectorKey, SourceID: m.ManifestURI, Streams: m.Streams}},
		Connections: []Connection{{ID: connA, ConnectorKey: "gmail"}}, OwnerTokens: []string{ownerTok}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var id struct{ ID string }
		_ = json.Unmarshal(sc.Bytes(), &id)
		ds.Records = append(ds.Records, Record{ConnectionID: connA, Stream: "messages", ID: id.ID,
			Data: json.RawMessage(append([]byte(nil), sc.Bytes()...)), EmittedAt: time.Unix(0, 0)})
	}
	_, ts := newTestServer(t, ds, Options{})
	r := get(t, ts.URL, "/v1/search?q=project", ownerTok)
	if r.status != 200 || len(r.body["data"].([]any)) != 1 {
		t.Fatalf("%s", r.raw)
	}
	r = get(t, ts.URL, "/v1/schema?view=compact&stream=messages", ownerTok)
	if got := at(r.body, "connectors", 0, "streams", 0, "field_capabilities", "subject"); got != "t=text,role=primary-title,eq,lex,sem" {
		t.Errorf("subject flags = %v", got)
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	s, err := New(testDataset(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum := s.Summary("http://127.0.0.1:1")
	if sum.OwnerBearer != ownerTok || len(sum.Grants) != 6 {
		t.Fatalf("%+v", sum)
	}
	want := GrantSummary{GrantID: "grt_8c1d2e3f4a5b6c7d", ConnectorKey: "gmail", Bearer: gmailTok, ConnectionIDs: []string{connA, connB}}
	if d := cmp.Diff(want, sum.Grants[0]); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
