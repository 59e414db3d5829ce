package schemaindex

// Source identifies the grant a schema came from. GrantKey is an opaque,
// caller-chosen key (the adapter uses a hash of the bearer), never a token;
// GrantID is the RS grant id when known.
type Source struct {
	GrantKey string `json:"-"`
	GrantID  string `json:"grant_id,omitempty"`
}

// Doc is one parsed RS schema body. Slices keep the RS order because the
// model-visible texts must be stable and match what the RS advertised.
type Doc struct {
	Bearer     Bearer
	Connectors []Connector
}

// Bearer is the RS's description of the token that fetched the schema; the
// adapter uses TokenKind to refuse owner tokens and to explain client limits.
type Bearer struct {
	TokenKind string
	Scope     string
	GrantID   string
	ClientID  string
}

// Connector is one connector item: a client grant always yields exactly one,
// an owner token one per registered connector.
type Connector struct {
	// Key is the canonical connector key (connector_key, else connector_id,
	// else source.id for provider-native sources).
	Key string
	// SourceID is source.id (a registry URI or canonical key).
	SourceID string
	// DisplayName is the connector label when the RS sends one (rare).
	DisplayName string
	// Connections is the connector-level connection set: the RS-lifted set in
	// the compact view, else the union of the streams' sets in first-seen order.
	Connections []Connection
	Streams     []Stream
	// Source is the grant this connector was read through.
	Source Source
	// TokenKind is copied from the Doc's bearer so per-source texts can say
	// what a client token cannot do (filter, expand) without the Doc.
	TokenKind string
}

// Connection is one granted connection (connection_id, e.g. "cin_…").
type Connection struct {
	ID          string `json:"connection_id"`
	DisplayName string `json:"display_name,omitempty"`
}

// Stream is one stream entry of a connector.
type Stream struct {
	Name        string
	PrimaryKey  []string
	CursorField string
	// Connections is the effective set: the stream's own granted_connections
	// (or instance_ids) when present, else the connector-level set.
	Connections []Connection
	Fields      []Field
	Expand      []Expand
	// Views are view ids (full view only; unusable by client tokens).
	Views       []string
	RecordCount *int64
	// CountMetric reports query.aggregations.count from the full view; nil
	// when the body was compact (the RS drops `query` there), i.e. unknown.
	CountMetric *bool
}

// Field is one field of a stream with its capabilities, in RS order.
type Field struct {
	Name string
	Caps Caps
}

// Caps are the capabilities of one field, equivalent to the compact flag
// string (see FormatFlags) plus what only the full view carries.
type Caps struct {
	Type     string
	Role     string
	Granted  bool
	Exact    Capability
	Range    Capability
	Lexical  Capability
	Semantic Capability
	// RangeOps are the advertised range operators (gte, gt, lte, lt).
	RangeOps []string
	// Aggs are the usable aggregation kinds in canonical order
	// (count_distinct, group_by, group_by_time, max, min, sum, then others).
	Aggs []string
	// UnusableAggs maps declared-but-unusable kinds to their reason; only the
	// full view carries them (compact flags omit unusable kinds).
	UnusableAggs map[string]string
}

// Capability is one declared/usable pair as the RS reports it.
type Capability struct {
	Declared bool
	Usable   bool
	Reason   string
}

// Expand is one expand relation of a stream.
type Expand struct {
	Name         string `json:"name"`
	TargetStream string `json:"target_stream,omitempty"`
	Cardinality  string `json:"cardinality,omitempty"`
	ForeignKey   string `json:"foreign_key,omitempty"`
	Granted      bool   `json:"granted"`
	Usable       bool   `json:"usable"`
	Reason       string `json:"reason,omitempty"`
	DefaultLimit int    `json:"default_limit,omitempty"`
	MaxLimit     int    `json:"max_limit,omitempty"`
}
