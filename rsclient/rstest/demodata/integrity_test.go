package demodata

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
)

// propTypes maps each schema property to its allowed JSON types.
func propTypes(t *testing.T, s rstest.Stream) map[string][]string {
	t.Helper()
	var sc struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(s.Schema, &sc); err != nil {
		t.Fatalf("stream %s: schema: %v", s.Name, err)
	}
	out := map[string][]string{}
	for k, p := range sc.Properties {
		switch ty := p.Type.(type) {
		case string:
			out[k] = []string{ty}
		case []any:
			for _, x := range ty {
				out[k] = append(out[k], x.(string))
			}
		default:
			out[k] = nil // untyped: anything goes
		}
	}
	return out
}

// jsonKind names the JSON Schema type of an encoded value.
func jsonKind(v json.RawMessage) string {
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if bytes.ContainsAny(v, ".eE") {
		return "number"
	}
	return "integer"
}

func typeAllowed(kind string, allowed []string) bool {
	return allowed == nil || slices.Contains(allowed, kind) || (kind == "integer" && slices.Contains(allowed, "number"))
}

// TestRecordsMatchSchema checks every record against its manifest stream:
// known connection and stream, object payload, declared keys with declared
// types, primary key equal to Record.ID, ids unique per stream.
func TestRecordsMatchSchema(t *testing.T) {
	t.Parallel()
	ds := mustDefault(t)
	conns := map[string]string{}
	for _, c := range ds.Connections {
		conns[c.ID] = c.ConnectorKey
	}
	streams := map[[2]string]rstest.Stream{}
	for _, c := range ds.Connectors {
		for _, s := range c.Streams {
			streams[[2]string{c.Key, s.Name}] = s
		}
	}
	types := map[[2]string]map[string][]string{}
	seen := map[[3]string]bool{}
	for _, r := range ds.Records {
		key, ok := conns[r.ConnectionID]
		if !ok {
			t.Fatalf("record %s/%s: unknown connection %s", r.Stream, r.ID, r.ConnectionID)
		}
		s, ok := streams[[2]string{key, r.Stream}]
		if !ok {
			t.Fatalf("record %s: stream %s not in %s manifest", r.ID, r.Stream, key)
		}
		pt, ok := types[[2]string{key, r.Stream}]
		if !ok {
			pt = propTypes(t, s)
			types[[2]string{key, r.Stream}] = pt
		}
		m := fields(t, r)
		for k, v := range m {
			allowed, declared := pt[k]
			if !declared {
				t.Errorf("%s/%s/%s: key %q not declared in schema", key, r.Stream, r.ID, k)
			} else if !typeAllowed(jsonKind(v), allowed) {
				t.Errorf("%s/%s/%s: %q is %s, schema allows %v", key, r.Stream, r.ID, k, jsonKind(v), allowed)
			}
		}
		if got := str(t, m, s.PrimaryKey[0]); got != r.ID || len(s.PrimaryKey) != 1 {
			t.Errorf("%s/%s: Record.ID %q != primary key %q", key, r.Stream, r.ID, got)
		}
		k3 := [3]string{r.ConnectionID, r.Stream, r.ID}
		if seen[k3] {
			t.Errorf("duplicate id %v", k3)
		}
		seen[k3] = true
		if r.EmittedAt.IsZero() || r.Deleted {
			t.Errorf("%v: EmittedAt %v Deleted %v", k3, r.EmittedAt, r.Deleted)
		}
	}
}

// TestFixtureShapes checks that generated records carry exactly the keys of
// the embedded fixture records, in the same order.
func TestFixtureShapes(t *testing.T) {
	t.Parallel()
	ds := mustDefault(t)
	firstOf := map[[2]string]rstest.Record{}
	conns := map[string]string{}
	for _, c := range ds.Connections {
		conns[c.ID] = c.ConnectorKey
	}
	for _, r := range ds.Records {
		k := [2]string{conns[r.ConnectionID], r.Stream}
		if _, ok := firstOf[k]; !ok {
			firstOf[k] = r
		}
	}
	files, err := fs.Glob(data, "data/fixtures/*/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no embedded fixtures: %v", err)
	}
	for _, f := range files {
		conn := path.Base(path.Dir(f))
		stream := strings.TrimSuffix(path.Base(f), ".jsonl")
		t.Run(conn+"/"+stream, func(t *testing.T) {
			t.Parallel()
			raw, _ := data.ReadFile(f)
			line, _, _ := bufio.NewReader(bytes.NewReader(raw)).ReadLine()
			r, ok := firstOf[[2]string{conn, stream}]
			if !ok {
				t.Fatalf("no generated %s/%s records", conn, stream)
			}
			if diff := cmp.Diff(keyOrder(t, line), keyOrder(t, r.Data)); diff != "" {
				t.Errorf("key order (-fixture +generated):\n%s", diff)
			}
		})
	}
}

// keyOrder lists the top-level keys of a JSON object in document order.
func keyOrder(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestGrantsWithinSchema checks that grants name real streams, declared
// fields and connections of their own connector.
func TestGrantsWithinSchema(t *testing.T) {
	t.Parallel()
	ds := mustDefault(t)
	cons := connectorByKey(ds)
	conns := map[string]string{}
	for _, c := range ds.Connections {
		conns[c.ID] = c.ConnectorKey
	}
	ids := map[string]bool{}
	for _, g := range ds.Grants {
		if ids[g.ID] || !strings.HasPrefix(g.ID, "grt_") || len(g.ID) != 20 || !strings.HasPrefix(g.ClientID, "cli_") || len(g.ClientID) != 20 {
			t.Errorf("grant %q / client %q: bad or duplicate id", g.ID, g.ClientID)
		}
		ids[g.ID] = true
		c := cons[g.ConnectorKey]
		if c == nil {
			t.Fatalf("grant %s: unknown connector %q", g.ID, g.ConnectorKey)
		}
		for _, gs := range g.Streams {
			i := slices.IndexFunc(c.Streams, func(s rstest.Stream) bool { return s.Name == gs.Name })
			if i < 0 {
				t.Errorf("grant %s: stream %q not in %s", g.ID, gs.Name, c.Key)
				continue
			}
			props := propTypes(t, c.Streams[i])
			for _, f := range gs.Fields {
				if _, ok := props[f]; !ok {
					t.Errorf("grant %s/%s: field %q not in schema", g.ID, gs.Name, f)
				}
			}
			if tc := gs.TimeConstraint; tc != nil {
				if _, ok := props[tc.Field]; !ok {
					t.Errorf("grant %s/%s: time field %q not in schema", g.ID, gs.Name, tc.Field)
				}
			}
			if len(gs.ConnectionIDs) == 0 {
				t.Errorf("grant %s/%s: no connections", g.ID, gs.Name)
			}
			for _, cid := range gs.ConnectionIDs {
				if conns[cid] != g.ConnectorKey {
					t.Errorf("grant %s/%s: connection %s is not a %s connection", g.ID, gs.Name, cid, g.ConnectorKey)
				}
			}
		}
	}
	for _, c := range ds.Connections {
		if !strings.HasPrefix(c.ID, "cin_") || len(c.ID) != 28 || strings.Trim(c.ID[4:], "0123456789abcdef") != "" {
			t.Errorf("connection id %q is not cin_<24 hex>", c.ID)
		}
	}
}
