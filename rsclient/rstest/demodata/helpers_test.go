package demodata

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
)

// defaultDataset builds Build(Options{}) once per test binary: most tests
// only read it, and building it per test would just repeat work.
var defaultDataset = sync.OnceValues(func() (*rstest.Dataset, error) { return Build(Options{}) })

func mustDefault(t *testing.T) *rstest.Dataset {
	t.Helper()
	ds, err := defaultDataset()
	if err != nil {
		t.Fatalf("Build(Options{}): %v", err)
	}
	return ds
}

// fields decodes a record payload into its top-level members.
func fields(t *testing.T, r rstest.Record) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.Data, &m); err != nil {
		t.Fatalf("%s/%s/%s: data is not a JSON object: %v", r.ConnectionID, r.Stream, r.ID, err)
	}
	return m
}

// str decodes a JSON string member ("" for null or absent).
func str(t *testing.T, m map[string]json.RawMessage, k string) string {
	t.Helper()
	var s *string
	if err := json.Unmarshal(m[k], &s); err != nil && m[k] != nil {
		t.Fatalf("member %q is not a string: %s", k, m[k])
	}
	if s == nil {
		return ""
	}
	return *s
}

// byStream indexes records by connection and stream.
func byStream(ds *rstest.Dataset) map[[2]string][]rstest.Record {
	out := map[[2]string][]rstest.Record{}
	for _, r := range ds.Records {
		k := [2]string{r.ConnectionID, r.Stream}
		out[k] = append(out[k], r)
	}
	return out
}

func connectorByKey(ds *rstest.Dataset) map[string]*rstest.Connector {
	out := map[string]*rstest.Connector{}
	for _, c := range ds.Connectors {
		out[c.Key] = c
	}
	return out
}
