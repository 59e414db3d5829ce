package rsclient

// Query types. Zero values are omitted from the wire (Limit 0 is not sent);
// parameter order is fixed per endpoint to match the reference TS adapter.

// SchemaQuery selects GET /v1/schema parameters, sent in the order
// view, detail, stream, connection_id.
type SchemaQuery struct {
	View         string // "compact" for the compact projection
	Detail       string // "full" for the exhaustive per-stream view (needs Stream)
	Stream       string
	ConnectionID string
}

// RecordsQuery selects GET /v1/streams/{stream}/records parameters, sent in
// the order limit, cursor, order, sort*, count, fields*, view, expand*,
// changes_since, connection_id, filter[...], expand_limit[...].
type RecordsQuery struct {
	Stream       string // path segment, required
	Limit        int
	Cursor       string
	Order        string
	Sort         []string
	Count        string
	Fields       []string
	View         string
	Expand       []string
	ExpandLimit  []ExpandLimit
	ChangesSince string
	ConnectionID string
	Filter       Filter
}

// RecordQuery selects GET /v1/streams/{stream}/records/{id} parameters, sent
// in the order fields*, expand*, connection_id, expand_limit[...].
type RecordQuery struct {
	Stream       string // path segment, required
	RecordID     string // path segment, required
	ConnectionID string
	Fields       []string
	Expand       []string
	ExpandLimit  []ExpandLimit
}

// FieldWindowQuery selects GET /v1/streams/{stream}/records/{id}/field-window
// parameters, sent in the order connection_id, field, offset_chars,
// limit_chars, q, before_chars, after_chars. The *int fields are sent when
// non-nil (so an explicit 0 offset is sent).
type FieldWindowQuery struct {
	Stream       string // path segment, required
	RecordID     string // path segment, required
	ConnectionID string
	Field        string
	OffsetChars  *int
	LimitChars   *int
	Q            string
	BeforeChars  *int
	AfterChars   *int
}

// AggregateQuery selects GET /v1/streams/{stream}/aggregate parameters, sent
// in the order metric, field, group_by, group_by_time, granularity,
// time_zone, limit, connection_id, filter[...].
type AggregateQuery struct {
	Stream       string // path segment, required
	Metric       string
	Field        string
	GroupBy      string
	GroupByTime  string
	Granularity  string
	TimeZone     string
	Limit        int
	ConnectionID string
	Filter       Filter
}

// Search modes accepted in SearchQuery.Mode.
const (
	ModeLexical  = "lexical"
	ModeSemantic = "semantic"
	ModeHybrid   = "hybrid"
)

// SearchQuery selects a search call. Mode picks the route ("" or "lexical"
// → /v1/search, "semantic" → /v1/search/semantic, "hybrid" →
// /v1/search/hybrid) and is not sent as a parameter (the RS rejects `mode`).
// Parameters are sent in the order q, streams*, limit, cursor,
// connection_id, filter[...].
type SearchQuery struct {
	Mode         string
	Q            string
	Streams      []string
	Limit        int
	Cursor       string
	ConnectionID string
	Filter       Filter
}

// ExpandLimit is one expand_limit[<Relation>]=<Limit> parameter. Unlike
// other zero values, Limit 0 is sent: the entry itself is the request.
type ExpandLimit struct {
	Relation string
	Limit    int
}

// Filter is an ordered typed filter: encoding preserves field and operator
// order. Each entry is either an exact match (Value) or a range (Range).
type Filter []FilterField

// FilterField is one filtered field: filter[Field]=Value, or one
// filter[Field][op]=value per RangeBound.
type FilterField struct {
	Field string
	// Value is the exact-match value: string, bool, float64, int, int64 or
	// json.Number (other integer/float kinds are accepted too). Nil when
	// Range is used. Rendered like JS String(v).
	Value any
	Range []RangeBound
}

// Range operators accepted in RangeBound.Op.
const (
	OpGTE = "gte"
	OpGT  = "gt"
	OpLTE = "lte"
	OpLT  = "lt"
)

// RangeBound is one range operator and its scalar operand.
type RangeBound struct {
	Op    string // gte | gt | lte | lt
	Value any    // same scalar kinds as FilterField.Value
}
