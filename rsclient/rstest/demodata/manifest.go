package demodata

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
)

// data holds the PDP-Connect manifests and fixtures (licences in
// data/NOTICE). Embedding them keeps the demo binary self-contained.
//
//go:embed data/NOTICE data/manifests/*.json data/fixtures/*/*.jsonl
var data embed.FS

// manifestDoc is the part of a connector manifest the RS needs.
type manifestDoc struct {
	ConnectorKey string          `json:"connector_key"`
	ConnectorID  string          `json:"connector_id"`
	DisplayName  string          `json:"display_name"`
	Streams      []rstest.Stream `json:"streams"`
}

// ParseManifest decodes connector manifest JSON into a Connector
// (Key = connector_key, SourceID = connector_id, DisplayName, Streams in
// manifest order). It rejects manifests the mock RS could not serve: no
// key, no streams, an unnamed or duplicate stream, a stream without a
// primary key, or a schema that is not an object with properties.
func ParseManifest(raw []byte) (*rstest.Connector, error) {
	var m manifestDoc
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("demodata: manifest: %w", err)
	}
	if m.ConnectorKey == "" {
		return nil, errors.New("demodata: manifest: missing connector_key")
	}
	if len(m.Streams) == 0 {
		return nil, fmt.Errorf("demodata: manifest %q: no streams", m.ConnectorKey)
	}
	seen := make(map[string]bool, len(m.Streams))
	for i, s := range m.Streams {
		if s.Name == "" {
			return nil, fmt.Errorf("demodata: manifest %q: stream %d has no name", m.ConnectorKey, i)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("demodata: manifest %q: duplicate stream %q", m.ConnectorKey, s.Name)
		}
		seen[s.Name] = true
		if len(s.PrimaryKey) == 0 {
			return nil, fmt.Errorf("demodata: manifest %q: stream %q has no primary_key", m.ConnectorKey, s.Name)
		}
		if _, err := schemaProperties(s.Schema); err != nil {
			return nil, fmt.Errorf("demodata: manifest %q: stream %q: %w", m.ConnectorKey, s.Name, err)
		}
	}
	sourceID := m.ConnectorID
	if sourceID == "" {
		sourceID = m.ConnectorKey // the RS falls back to the key
	}
	return &rstest.Connector{Key: m.ConnectorKey, SourceID: sourceID, DisplayName: m.DisplayName, Streams: m.Streams}, nil
}

// schemaProperties returns the property names of an object schema, in no
// particular order.
func schemaProperties(schema json.RawMessage) (map[string]json.RawMessage, error) {
	var s struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if len(schema) == 0 {
		return nil, errors.New("missing schema")
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("schema type %v, want object", s.Type)
	}
	if len(s.Properties) == 0 {
		return nil, errors.New("schema has no properties")
	}
	return s.Properties, nil
}

// loadConnector parses one embedded manifest.
func loadConnector(key string) (*rstest.Connector, error) {
	raw, err := data.ReadFile("data/manifests/" + key + ".json")
	if err != nil {
		return nil, fmt.Errorf("demodata: embedded manifest %q: %w", key, err)
	}
	return ParseManifest(raw)
}
