package demodata

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseManifestEmbedded(t *testing.T) {
	t.Parallel()
	type got struct {
		Key, SourceID, DisplayName string
		Streams                    int
		First                      string
	}
	tests := []struct {
		file string
		want got
	}{
		{"gmail", got{"gmail", "https://registry.pdpp.dev/connectors/gmail", "Gmail", 5, "messages"}},
		{"slack", got{"slack", "https://registry.pdpp.dev/connectors/slack", "Slack", 14, "workspace"}},
		{"chatgpt", got{"chatgpt", "https://registry.pdpp.dev/connectors/chatgpt", "ChatGPT", 6, "conversations"}},
		{"github", got{"github", "https://registry.pdpp.dev/connectors/github", "GitHub", 7, "user"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			c, err := loadConnector(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			g := got{c.Key, c.SourceID, c.DisplayName, len(c.Streams), c.Streams[0].Name}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("ParseManifest(%s) (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

func TestParseManifestDecodesQuery(t *testing.T) {
	t.Parallel()
	c, err := loadConnector("gmail")
	if err != nil {
		t.Fatal(err)
	}
	m := c.Streams[0]
	if diff := cmp.Diff([]string{"subject", "from_name", "from_email", "snippet"}, m.Query.Search.LexicalFields); diff != "" {
		t.Errorf("lexical fields (-want +got):\n%s", diff)
	}
	if m.Query.Aggregations == nil || !m.Query.Aggregations.Count || len(m.Query.Expand) != 2 || m.Query.Expand[1].MaxLimit != 50 {
		t.Errorf("query block not decoded: %+v", m.Query)
	}
	if len(m.Relationships) != 2 || m.CursorField != "received_at" || len(m.Views) != 3 {
		t.Errorf("stream metadata not decoded: %+v", m)
	}
}

func TestParseManifestErrors(t *testing.T) {
	t.Parallel()
	const okStream = `{"name":"s","primary_key":["id"],"schema":{"type":"object","properties":{"id":{"type":"string"}}}}`
	tests := []struct {
		name, raw, wantErr string
	}{
		{"not json", `{`, "manifest"},
		{"no key", `{"streams":[` + okStream + `]}`, "missing connector_key"},
		{"no streams", `{"connector_key":"x","streams":[]}`, "no streams"},
		{"unnamed stream", `{"connector_key":"x","streams":[{"primary_key":["id"]}]}`, "has no name"},
		{"duplicate", `{"connector_key":"x","streams":[` + okStream + `,` + okStream + `]}`, `duplicate stream "s"`},
		{"no pk", `{"connector_key":"x","streams":[{"name":"s","schema":{"type":"object","properties":{"id":{}}}}]}`, "no primary_key"},
		{"no schema", `{"connector_key":"x","streams":[{"name":"s","primary_key":["id"]}]}`, "missing schema"},
		{"array schema", `{"connector_key":"x","streams":[{"name":"s","primary_key":["id"],"schema":{"type":"array"}}]}`, "want object"},
		{"no props", `{"connector_key":"x","streams":[{"name":"s","primary_key":["id"],"schema":{"type":"object"}}]}`, "no properties"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ParseManifest([]byte(tt.raw))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseManifest(%s) = %v, %v; want error containing %q", tt.raw, c, err, tt.wantErr)
			}
		})
	}
	c, err := ParseManifest([]byte(`{"connector_key":"x","streams":[` + okStream + `]}`))
	if err != nil || c.SourceID != "x" {
		t.Errorf("minimal manifest: %+v, %v; want SourceID falling back to the key", c, err)
	}
}

func FuzzParseManifest(f *testing.F) {
	raw, _ := data.ReadFile("data/manifests/chatgpt.json")
	f.Add(raw)
	f.Add([]byte(`{"connector_key":"x","streams":[{"name":"s","primary_key":["id"],"schema":{"type":"object","properties":{"id":{}}}}]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := ParseManifest(raw)
		if err != nil {
			return
		}
		if c.Key == "" || c.SourceID == "" || len(c.Streams) == 0 {
			t.Fatalf("accepted an unusable manifest: %+v", c)
		}
		for _, s := range c.Streams {
			if s.Name == "" || len(s.PrimaryKey) == 0 {
				t.Fatalf("accepted stream %+v", s)
			}
		}
	})
}
