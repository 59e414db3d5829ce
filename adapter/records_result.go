package adapter

import (
	"encoding/json"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// recordsPageResult is query_records' structuredContent: the bounded page,
// the content ladder for every cut field, and the source warnings.
type recordsPageResult struct {
	Data          recordsPage                 `json:"data"`
	ContentLadder []contentladder.LadderEntry `json:"content_ladder,omitempty"`
	Warnings      []warning                   `json:"warnings,omitempty"`
}

func (recordsPageResult) toolOutput() {}

// recordsPage is the RS list as the adapter passes it on: records reduced
// to their operational keys, every paging handle, the count and the RS
// warnings.
type recordsPage struct {
	Object           string           `json:"object"` // always "list"
	Stream           string           `json:"stream"`
	Data             []recordEnvelope `json:"data"`
	HasMore          bool             `json:"has_more"`
	NextCursor       string           `json:"next_cursor,omitempty"`
	NextChangesSince string           `json:"next_changes_since,omitempty"`
	Meta             *recordsPageMeta `json:"meta,omitempty"`
}

// recordsPageMeta keeps the RS count and warnings, nothing else.
type recordsPageMeta struct {
	Count    *recordsCount      `json:"count,omitempty"`
	Warnings []rsclient.Warning `json:"warnings,omitempty"`
}

// recordsCount is the RS's count object; value only when the RS gave one.
type recordsCount struct {
	Kind  string `json:"kind"`
	Value *int64 `json:"value,omitempty"`
}

// recordEnvelope is one record with only the declared operational keys
// beside its data — id, record_id, connection_id, stream, display_name,
// emitted_at, deleted, deleted_at: what an agent needs to page, fetch, cite
// and retry (seed 001). Nothing else of the RS envelope survives.
type recordEnvelope struct {
	ID           string `json:"id"`
	RecordID     string `json:"record_id"`
	ConnectionID string `json:"connection_id,omitempty"`
	Stream       string `json:"stream"`
	DisplayName  string `json:"display_name,omitempty"`
	EmittedAt    string `json:"emitted_at,omitempty"`
	*tombstone
	Data json.RawMessage `json:"data"` // the payload's own keys, in its order
}

// tombstone marks a deleted record; both members or neither.
type tombstone struct {
	Deleted   bool   `json:"deleted"`
	DeletedAt string `json:"deleted_at"`
}

// structured is the machine envelope: bounded records plus paging handles,
// the content ladder for every cut field, and the source warnings.
func (p *recordPage) structured(warns []warning) recordsPageResult {
	recs := make([]recordEnvelope, 0, len(p.records))
	for i, r := range p.records {
		data := json.RawMessage("null") // what SanitizeForPreview makes of a payload parsePreview refused
		if pv := p.parsed[i]; pv != nil {
			data = sanitizedFromPreview(pv, structuredStringCap)
		}
		recs = append(recs, r.envelope(data))
	}
	return recordsPageResult{
		Data: recordsPage{Object: "list", Stream: p.stream, Data: recs, HasMore: p.list.HasMore,
			NextCursor: p.list.NextCursor, NextChangesSince: p.list.NextChangesSince, Meta: p.meta()},
		ContentLadder: p.ladder(),
		Warnings:      warns,
	}
}

// meta keeps the RS count and warnings, nothing else; nil when neither.
func (p *recordPage) meta() *recordsPageMeta {
	var m recordsPageMeta
	if c := p.list.Meta.Count; c.Kind != "" && c.Kind != "none" {
		m.Count = &recordsCount{Kind: c.Kind, Value: c.Value}
	}
	m.Warnings = p.list.Meta.Warnings
	if m.Count == nil && len(m.Warnings) == 0 {
		return nil
	}
	return &m
}

// envelope renders one record beside its (sanitized) data.
func (r pageRecord) envelope(data json.RawMessage) recordEnvelope {
	e := recordEnvelope{ID: r.Ref.ID(), RecordID: r.Ref.RecordID, ConnectionID: r.Ref.ConnectionID, Stream: r.Ref.Stream,
		DisplayName: r.Display, EmittedAt: r.EmittedAt, Data: data}
	if r.Deleted {
		e.tombstone = &tombstone{Deleted: true, DeletedAt: r.DeletedAt}
	}
	return e
}
