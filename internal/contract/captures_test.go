package contract

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// captureCases maps every raw capture of the reference RS to the request
// that produced it. Success bodies name their request in links.self; the
// error captures' requests are inferred from their names.
var captureCases = []struct {
	name    string // capture base name
	headers string // .headers file when it is not <name>.headers
	target  string // request URI
	status  int    // expected status from the .headers file
}{
	{name: "rs-raw-aggregate", target: "/v1/streams/top_artists/aggregate?metric=count", status: 400},
	{name: "rs-raw-field-window", target: "/v1/streams/top_artists/records/railway-seed-artist-1/field-window?field=name&connection_id=cin_59226620542ff12acd3c7699&limit_chars=8", status: 200},
	{name: "rs-raw-no-token", target: "/v1/streams/top_artists/records", status: 401},
	{name: "rs-raw-protected-resource-metadata", headers: "rs-raw-prm.headers", target: "/.well-known/oauth-protected-resource", status: 200},
	{name: "rs-raw-record", target: "/v1/streams/top_artists/records/railway-seed-artist-1", status: 200},
	{name: "rs-raw-records", target: "/v1/streams/top_artists/records?limit=1&count=exact", status: 200},
	{name: "rs-raw-schema", target: "/v1/schema", status: 200},
	{name: "rs-raw-schema-compact", target: "/v1/schema?view=compact", status: 200},
	{name: "rs-raw-schema-full-nostream", target: "/v1/schema?detail=full", status: 400},
	{name: "rs-raw-schema-full-stream", target: "/v1/schema?stream=top_artists&detail=full", status: 200},
	{name: "rs-raw-search", target: "/v1/search?q=Quartet", status: 200},
	{name: "rs-raw-streams", target: "/v1/streams", status: 200},
	{name: "rs-raw-unknown-stream", target: "/v1/streams/no_such_stream/records", status: 401},
}

func TestCapturesValidate(t *testing.T) {
	t.Parallel()
	v := validator(t)
	for _, tc := range captureCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			headers := tc.headers
			if headers == "" {
				headers = tc.name + ".headers"
			}
			status, header, body := readCapture(t, headers, tc.name+".json")
			if status != tc.status {
				t.Fatalf("capture status = %d, table says %d", status, tc.status)
			}
			if self := selfLink(t, body); self != "" {
				if diff := cmp.Diff(self, tc.target); diff != "" {
					t.Errorf("request target disagrees with links.self (-self +target):\n%s", diff)
				}
			}
			if err := v.ValidateExchange(get(tc.target), status, header, body); err != nil {
				t.Errorf("capture does not validate: %v", err)
			}
		})
	}
}

// TestEveryCaptureIsMapped fails when a capture is added to testdata
// without a request mapping, so no capture escapes validation.
func TestEveryCaptureIsMapped(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "captures", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, f := range files {
		got = append(got, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	for _, tc := range captureCases {
		want = append(want, tc.name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("captures vs mapped cases (-mapped +on disk):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join("testdata", "captures", "rs-raw-prm.headers")); err != nil {
		t.Errorf("PRM headers capture missing: %v", err)
	}
}
