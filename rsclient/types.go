package rsclient

import (
	"encoding/json"
	"net/http"
)

// Response is what every call reports about the HTTP exchange. It is
// returned whenever an answer arrived (including non-2xx answers and 2xx
// answers with an invalid body), nil when none did.
//
// The json.RawMessage members of every decoded result (Record.Data,
// SearchHit.Score, Group.Key, Warning.Detail, ...) are sub-slices of Body
// rather than copies, so a page of mail bodies is not held twice. Each is
// capacity-capped (appending to it copies); neither they nor Body may be
// modified in place. Keeping one keeps the whole body reachable.
type Response struct {
	Status    int
	RequestID string // from the Request-Id header ("" if absent)
	Header    http.Header
	Body      []byte // the full body, at most Config.MaxBodyBytes
}

// Meta is the RS `meta` object. Only the members an adapter branches on are
// decoded.
type Meta struct {
	Count         Count     `json:"count"`
	CountAccuracy string    `json:"count_accuracy,omitempty"`
	Recall        *Recall   `json:"recall,omitempty"`
	Warnings      []Warning `json:"warnings,omitempty"`
}

// Count is the polymorphic meta.count: an object {kind, value?} on records
// and semantic/hybrid search, a bare integer or null on lexical search.
type Count struct {
	Kind  string // "none", "exact", … (object form only)
	Value *int64 // the count, when the RS gave one
	Null  bool   // the RS sent a JSON null
	Bare  bool   // the RS sent a bare number or null rather than an object
}

// Recall is lexical search's meta.recall.
type Recall struct {
	Complete             *bool  `json:"complete,omitempty"`
	RankingScope         string `json:"ranking_scope,omitempty"`
	Truncated            bool   `json:"truncated"`
	RankedCandidateCount *int   `json:"ranked_candidate_count,omitempty"`
	CandidateWindowLimit *int   `json:"candidate_window_limit,omitempty"`
	SourcesSearchedCount *int   `json:"sources_searched_count,omitempty"`
	TruncatedSourceCount *int   `json:"truncated_source_count,omitempty"`
}

// Warning is one entry of meta.warnings, e.g. limit_clamped,
// partial_results, source_skipped_not_applicable.
type Warning struct {
	Code    string          `json:"code"`
	Message string          `json:"message,omitempty"`
	Param   string          `json:"param,omitempty"`
	Detail  json.RawMessage `json:"detail,omitempty"`
}

// Links is the RS `links` object; Next is "" when null or absent.
type Links struct {
	Self string `json:"self,omitempty"`
	Next string `json:"next,omitempty"`
}

// RecordList is a page of GET /v1/streams/{stream}/records.
type RecordList struct {
	Data             []Record `json:"data"`
	HasMore          bool     `json:"has_more"`
	NextCursor       string   `json:"next_cursor,omitempty"`
	NextChangesSince string   `json:"next_changes_since,omitempty"`
	Meta             Meta     `json:"meta"`
	Links            Links    `json:"links"`
}

// Record is one record, either a list item or the single-record answer.
type Record struct {
	Object       string `json:"object,omitempty"`
	ID           string `json:"id"`
	Stream       string `json:"stream"`
	ConnectionID string `json:"connection_id,omitempty"`
	ConnectorKey string `json:"connector_key,omitempty"`
	DisplayName  string `json:"display_name,omitempty"`
	EmittedAt    string `json:"emitted_at,omitempty"`
	// Data is the payload verbatim: valid JSON (checked while decoding),
	// an object unless Deleted, and the Response body's own bytes (not a
	// copy; see Response).
	Data      json.RawMessage `json:"data,omitempty"`
	Deleted   bool            `json:"deleted,omitempty"`
	DeletedAt string          `json:"deleted_at,omitempty"`
}

// FieldWindow is the answer of the field-window route: a bounded slice of
// one top-level text field.
type FieldWindow struct {
	Stream       string `json:"stream"`
	RecordID     string `json:"record_id"`
	ConnectionID string `json:"connection_id,omitempty"`
	Field        struct {
		Path string `json:"path"`
		Type string `json:"type"`
	} `json:"field"`
	Window Window `json:"window"`
	Meta   Meta   `json:"meta"`
}

// Window is the text window; offsets are in characters (UTF-16 code units
// on the reference RS). Nil pointers mean the RS sent null or nothing.
type Window struct {
	Text                string `json:"text"`
	TotalChars          int    `json:"total_chars"`
	StartChars          int    `json:"start_chars"`
	EndChars            int    `json:"end_chars"`
	LimitChars          int    `json:"limit_chars"`
	Complete            bool   `json:"complete"`
	HasMore             bool   `json:"has_more"`
	MatchStartChars     *int   `json:"match_start_chars"`
	MatchEndChars       *int   `json:"match_end_chars"`
	NextOffsetChars     *int   `json:"next_offset_chars"`
	PreviousOffsetChars *int   `json:"previous_offset_chars"`
}

// Aggregation is the answer of GET /v1/streams/{stream}/aggregate. Scalar
// metrics fill Value; grouped counts fill Groups, Limit and OtherCount.
type Aggregation struct {
	Metric              string          `json:"metric"`
	Stream              string          `json:"stream"`
	Field               string          `json:"field,omitempty"`
	GroupBy             string          `json:"group_by,omitempty"`
	GroupByTime         string          `json:"group_by_time,omitempty"`
	Granularity         string          `json:"granularity,omitempty"`
	TimeZone            string          `json:"time_zone,omitempty"`
	Value               json.RawMessage `json:"value,omitempty"`
	Groups              []Group         `json:"groups,omitempty"`
	Limit               *int            `json:"limit,omitempty"`
	OtherCount          *int64          `json:"other_count,omitempty"`
	FilteredRecordCount int64           `json:"filtered_record_count"`
	Meta                Meta            `json:"meta"`
	// Raw is the answer verbatim (it shares the Response body's bytes):
	// the aggregate tool passes the RS document on as structured content.
	// No other result keeps its whole body.
	Raw json.RawMessage `json:"-"`
}

// Group is one aggregate bucket; Key is the raw JSON key (string, number,
// bool or null).
type Group struct {
	Key   json.RawMessage `json:"key"`
	Count int64           `json:"count"`
}
