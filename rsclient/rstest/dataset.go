// Package rstest is a faithful in-process stand-in for the PDPP resource
// server (RS) read API (`/v1/*` plus protected-resource metadata), for
// integration tests in the spirit of net/http/httptest. It serves a
// Dataset: connector manifests, connections, records, grants and tokens.
//
// NewServer starts one on a loopback port with the options a downstream
// test needs: the capability posture (WithCapabilities: the real RS's
// "declared" posture advertises nothing yet still sorts, aggregates and
// searches), client token lifetime (WithTokenTTL, MintClientToken), a
// clock, fault injection (WithFaults, SetFaults) and the request log
// (Requests, WithRequestHook). New gives the bare http.Handler.
//
// Two complete downstream tests come with the package: Example
// (example_test.go: the RS client against the mock, a fault, a refusal,
// the request log) and TestWithTheMockRS (readme_test.go, the README's
// snippet verbatim).
//
// Where the real reference RS and its documentation disagree, the mock
// follows the real RS: changes paging, 401 context.* answers for streams and
// connections outside the grant, cursor shapes and error words are those of
// the captures in testdata/real-captures, which TestShapeReplay replays.
// It is the other side of the wire from the adapter, so it imports nothing
// of the adapter packages.
package rstest

import (
	"encoding/json"
	"time"
)

// Dataset is everything the mock RS serves. Build one with
// rsclient/rstest/demodata, or by hand in tests. A Dataset must not be mutated
// after it has been handed to New.
type Dataset struct {
	// Connectors are the registered connector types with their manifest
	// stream declarations, keyed by Connector.Key.
	Connectors []*Connector
	// Connections are configured instances of connectors (`cin_…`).
	Connections []Connection
	// Records are the stored records of every connection and stream.
	Records []Record
	// Grants are the client grants; each carries its own client bearer.
	Grants []Grant
	// OwnerTokens are bearers with owner (self-export) authority.
	OwnerTokens []string
	// ExpiredTokens are client tokens the RS once issued that are past
	// their expiry: 403 grant_expired "Grant has expired", no challenge,
	// as the reference answers them.
	ExpiredTokens []string
}

// Connector is one connector type, as declared by its manifest.
type Connector struct {
	// Key is the canonical storage key, e.g. "gmail".
	Key string
	// SourceID is the grant `source.id`: a registry URI such as
	// "https://registry.pdpp.dev/connectors/gmail", or the key itself.
	SourceID string
	// DisplayName is the manifest display name, e.g. "Gmail".
	DisplayName string
	// Streams are the manifest stream declarations in manifest order.
	Streams []Stream
}

// Stream is one manifest stream declaration: the subset of the manifest the
// RS uses to build schema documents and enforce queries.
type Stream struct {
	Name string `json:"name"`
	// Schema is the stream's JSON Schema (type object with properties),
	// kept verbatim so property order and x_pdpp_* keywords survive.
	Schema           json.RawMessage `json:"schema"`
	PrimaryKey       []string        `json:"primary_key"`
	CursorField      string          `json:"cursor_field,omitempty"`
	ConsentTimeField string          `json:"consent_time_field,omitempty"`
	Semantics        string          `json:"semantics,omitempty"`
	Selection        json.RawMessage `json:"selection,omitempty"`
	Views            []View          `json:"views,omitempty"`
	Relationships    []Relationship  `json:"relationships,omitempty"`
	Query            StreamQuery     `json:"query"`
}

// View is a named projection declared by a manifest stream.
type View struct {
	ID     string   `json:"id"`
	Label  string   `json:"label,omitempty"`
	Fields []string `json:"fields"`
}

// Relationship links a stream to another stream of the same connector.
type Relationship struct {
	Name        string `json:"name"`
	Stream      string `json:"stream"`
	ForeignKey  string `json:"foreign_key"`
	Cardinality string `json:"cardinality"` // "has_one" | "has_many"
}

// StreamQuery is the manifest `query` block: what the RS lets clients
// filter, search, aggregate and expand.
type StreamQuery struct {
	RangeFilters map[string][]string `json:"range_filters,omitempty"`
	Search       *SearchDecl         `json:"search,omitempty"`
	Aggregations *AggregationDecl    `json:"aggregations,omitempty"`
	Expand       []ExpandDecl        `json:"expand,omitempty"`
}

// SearchDecl lists the fields indexed for lexical and semantic retrieval.
type SearchDecl struct {
	LexicalFields  []string `json:"lexical_fields,omitempty"`
	SemanticFields []string `json:"semantic_fields,omitempty"`
}

// AggregationDecl lists which fields support which aggregation kinds.
type AggregationDecl struct {
	Count         bool     `json:"count,omitempty"`
	Sum           []string `json:"sum,omitempty"`
	Min           []string `json:"min,omitempty"`
	Max           []string `json:"max,omitempty"`
	CountDistinct []string `json:"count_distinct,omitempty"`
	GroupBy       []string `json:"group_by,omitempty"`
	GroupByTime   []string `json:"group_by_time,omitempty"`
}

// ExpandDecl declares an expandable relation (by Relationship name).
type ExpandDecl struct {
	Name         string `json:"name"`
	DefaultLimit int    `json:"default_limit,omitempty"`
	MaxLimit     int    `json:"max_limit,omitempty"`
}

// Connection is one configured instance of a connector.
type Connection struct {
	ID           string // "cin_<24 hex>"
	ConnectorKey string
	// DisplayName is the human label, e.g. "Work Gmail". Empty means the
	// RS omits display_name (it never emits placeholder labels).
	DisplayName string
}

// Record is one stored record of one connection's stream.
type Record struct {
	ConnectionID string
	Stream       string
	// ID is the canonical key string (for compound keys the minified JSON
	// array form).
	ID string
	// Data is the record payload object, verbatim (key order preserved).
	Data      json.RawMessage
	EmittedAt time.Time
	// Deleted marks a tombstone, visible only to changes_since reads. Data
	// then holds the record's last live payload: the RS reports a deletion
	// only to a changes session that could see the record before it
	// (created at EmittedAt, deleted at DeletedAt).
	Deleted   bool
	DeletedAt time.Time
}

// Grant is one client grant: one connector source, one or more
// connections, per-stream field projections and time constraints.
type Grant struct {
	ID           string // "grt_<16 hex>"
	ClientID     string // "cli_<16 hex>"
	Token        string // client bearer, 64 lowercase hex
	ConnectorKey string
	Streams      []GrantStream
	// Status is "" or "active" for a usable grant; "revoked", "expired"
	// or "invalid" make the RS answer 403 grant_revoked / grant_expired /
	// grant_invalid.
	Status string
}

// GrantStream is the grant's authorization for one stream.
type GrantStream struct {
	Name string
	// ConnectionIDs is the closed fan-in set (`instance_ids`).
	ConnectionIDs []string
	// Fields is the granted projection; nil means every declared field.
	Fields []string
	// TimeConstraint, when set, hides records whose Field lies outside
	// [Since, Until).
	TimeConstraint *TimeConstraint
}

// TimeConstraint bounds the records of a granted stream by a time field.
type TimeConstraint struct {
	Field string
	Since string // RFC 3339, inclusive; empty = unbounded
	Until string // RFC 3339, exclusive; empty = unbounded
}
