package schemaindex

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Bounds of the stream-scoped view. Fields are never capped below 30 so a
// typical stream is shown whole; sources and connections are capped because
// a shared stream name may exist under many grants.
const (
	MaxStreamFields      = 64
	MaxStreamSources     = 12
	MaxStreamConnections = 12
)

// Search modes as the RS's protected-resource metadata names them.
const (
	ModeLexical  = "lexical"
	ModeSemantic = "semantic"
	ModeHybrid   = "hybrid"
)

// StreamView is the stream-scoped result of the `schema` tool: one block per
// matching source (grant + connector), each with everything needed to build
// query_records, aggregate and search arguments.
type StreamView struct {
	Object       string `json:"object"`
	Detail       string `json:"detail"`
	Stream       string `json:"stream"`
	ConnectionID string `json:"connection_id,omitempty"`
	// SourceCount counts all matching sources; Sources holds at most
	// MaxStreamSources of them.
	SourceCount int            `json:"source_count"`
	Sources     []StreamSource `json:"sources"`
	// Legend explains the flag grammar used in Sources[].Fields.
	Legend map[string]string `json:"field_capability_legend"`
}

// StreamSource is one (grant, connector) that carries the stream, with the
// connections it is served through (only the scoped one when connection_id
// was given).
type StreamSource struct {
	GrantID            string       `json:"grant_id,omitempty"`
	ConnectorKey       string       `json:"connector_key"`
	DisplayName        string       `json:"display_name,omitempty"`
	Connections        []Connection `json:"connections"`
	ConnectionsOmitted int          `json:"connections_omitted,omitempty"`
	// TokenKind is the bearer kind of the grant ("client" or "owner"): client
	// tokens cannot filter or expand server-side.
	TokenKind   string   `json:"token_kind,omitempty"`
	PrimaryKey  []string `json:"primary_key"`
	CursorField string   `json:"cursor_field,omitempty"`
	// Sort is the exact descending sort argument, e.g. "-received_at"; only
	// the cursor field is sortable. Empty when the stream has no cursor field.
	Sort string `json:"sort,omitempty"`
	// CountMetric: aggregate metric "count" declared (nil = unknown in compact
	// view). query_records count:"exact" works on every stream.
	CountMetric *bool  `json:"count_metric,omitempty"`
	RecordCount *int64 `json:"record_count,omitempty"`
	// Fields are "name" → flags in schema order; FieldCount counts all fields,
	// FieldsOmitted those beyond MaxStreamFields.
	Fields        FieldFlags   `json:"fields"`
	FieldCount    int          `json:"field_count"`
	FieldsOmitted int          `json:"fields_omitted,omitempty"`
	Aggregations  []AggSummary `json:"aggregations,omitempty"`
	Expand        []Expand     `json:"expand"`
	SearchModes   []string     `json:"search_modes"`
	// OfferedModes are the modes the RS offers at all (protected-resource
	// metadata), whatever this stream's fields advertise: the real RS
	// searches streams whose schema advertises no search field (D1).
	OfferedModes []string `json:"-"`

	// FieldCaps are all fields with parsed capabilities (uncapped); the text
	// derives filters, projection and search fields from them.
	FieldCaps []Field `json:"-"`
	// GrantKey is the cache key of the grant serving the source, for the
	// adapter's probes; never shown.
	GrantKey string `json:"-"`
	// Probe is what the adapter learned by trying calls when the RS
	// advertises nothing (nil: not probed). The text suggests only what it
	// accepted.
	Probe *Probe `json:"-"`
}

// AggSummary lists the fields usable with one aggregation kind.
type AggSummary struct {
	Kind   string   `json:"kind"`
	Fields []string `json:"fields"`
}

// FieldFlag is one field and its compact flag string.
type FieldFlag struct {
	Name  string
	Flags string
}

// FieldFlags marshals as a JSON object in field order, the same shape as the
// RS compact field_capabilities.
type FieldFlags []FieldFlag

// MarshalJSON writes {"name":"flags",…} preserving order.
func (ff FieldFlags) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range ff {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Name)
		v, _ := json.Marshal(f.Flags)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Stream builds the stream-scoped view. connectionID, when not empty,
// narrows to that connection. rsModes are the search modes the RS offers
// (from its protected-resource metadata); each source lists the subset its
// fields support.
func (ix *Index) Stream(name, connectionID string, rsModes []string) (StreamView, error) {
	if connectionID != "" {
		if _, ok := ix.Connection(connectionID); !ok {
			return StreamView{}, ix.UnknownConnection(connectionID)
		}
	}
	v := StreamView{Object: "schema", Detail: "compact", Stream: name, ConnectionID: connectionID,
		Sources: []StreamSource{}, Legend: legendMap()}
	for _, c := range ix.connectors {
		for _, s := range c.Streams {
			if s.Name != name || (connectionID != "" && !carriesScoped(c, s, connectionID)) {
				continue
			}
			v.SourceCount++
			if len(v.Sources) < MaxStreamSources {
				v.Sources = append(v.Sources, buildSource(c, s, connectionID, rsModes))
			}
		}
	}
	if v.SourceCount == 0 {
		return StreamView{}, ix.UnknownStream(name, connectionID)
	}
	return v, nil
}

// carriesScoped reports whether connector c serves stream s through id.
func carriesScoped(c *Connector, s Stream, id string) bool {
	if len(s.Connections) == 0 {
		return slices.ContainsFunc(c.Connections, func(cn Connection) bool { return cn.ID == id })
	}
	return carries(s, id)
}

func buildSource(c *Connector, s Stream, connectionID string, rsModes []string) StreamSource {
	src := StreamSource{
		GrantID: c.Source.GrantID, GrantKey: c.Source.GrantKey, ConnectorKey: c.Key, DisplayName: c.DisplayName,
		Connections: []Connection{}, TokenKind: c.TokenKind,
		PrimaryKey: nonNil(s.PrimaryKey), CursorField: s.CursorField,
		CountMetric: s.CountMetric, RecordCount: s.RecordCount,
		Fields: FieldFlags{}, FieldCount: len(s.Fields), Expand: nonNil(s.Expand),
		SearchModes: searchModes(s.Fields, rsModes), OfferedModes: offeredModes(rsModes), FieldCaps: s.Fields,
	}
	if s.CursorField != "" {
		src.Sort = "-" + s.CursorField
	}
	for _, cn := range s.Connections {
		if connectionID != "" && cn.ID != connectionID {
			continue
		}
		if len(src.Connections) == MaxStreamConnections {
			src.ConnectionsOmitted++
			continue
		}
		src.Connections = append(src.Connections, cn)
	}
	for i, f := range s.Fields {
		if i == MaxStreamFields {
			src.FieldsOmitted = len(s.Fields) - i
			break
		}
		src.Fields = append(src.Fields, FieldFlag{f.Name, FormatFlags(f.Caps)})
	}
	for _, k := range AggKinds {
		var names []string
		for _, f := range s.Fields {
			if slices.Contains(f.Caps.Aggs, k) {
				names = append(names, f.Name)
			}
		}
		if len(names) > 0 {
			src.Aggregations = append(src.Aggregations, AggSummary{Kind: k, Fields: names})
		}
	}
	return src
}

// searchModes returns the subset of rsModes the fields support: lexical
// with any usable lex field, semantic with any usable sem field, hybrid with
// both. Canonical order, whatever order rsModes came in.
func searchModes(fields []Field, rsModes []string) []string {
	var lex, sem bool
	for _, f := range fields {
		lex = lex || f.Caps.Lexical.Usable
		sem = sem || f.Caps.Semantic.Usable
	}
	out := []string{}
	offered := func(m string) bool {
		return slices.ContainsFunc(rsModes, func(x string) bool { return strings.EqualFold(x, m) })
	}
	if lex && offered(ModeLexical) {
		out = append(out, ModeLexical)
	}
	if sem && offered(ModeSemantic) {
		out = append(out, ModeSemantic)
	}
	if lex && sem && offered(ModeHybrid) {
		out = append(out, ModeHybrid)
	}
	return out
}

// offeredModes lists the known modes of rsModes in canonical order.
func offeredModes(rsModes []string) []string {
	var out []string
	for _, m := range []string{ModeLexical, ModeSemantic, ModeHybrid} {
		if slices.ContainsFunc(rsModes, func(x string) bool { return strings.EqualFold(x, m) }) {
			out = append(out, m)
		}
	}
	return out
}

func legendMap() map[string]string {
	m := make(map[string]string, len(Legend))
	for _, e := range Legend {
		m[e.Token] = e.Meaning
	}
	return m
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
