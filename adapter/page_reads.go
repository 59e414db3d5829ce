package adapter

import (
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// pageWarnings are source warnings as a page shows them.
func pageWarnings(warns []warning) []page.Warning {
	if len(warns) == 0 {
		return nil
	}
	out := make([]page.Warning, len(warns))
	for i, w := range warns {
		out[i] = page.Warning{Code: w.Code, Message: w.Message, GrantID: w.GrantID}
	}
	return out
}

// recordList is an RS page of records as the record page reads it.
func recordList(l *rsclient.RecordList) *page.RecordList {
	out := &page.RecordList{HasMore: l.HasMore, NextCursor: l.NextCursor, NextChangesSince: l.NextChangesSince,
		Data: make([]page.Record, len(l.Data)),
		Meta: page.RecordsMeta{Count: page.Count{Kind: l.Meta.Count.Kind, Value: l.Meta.Count.Value}}}
	for i := range l.Data {
		out.Data[i] = pageRecord(&l.Data[i])
	}
	for _, w := range l.Meta.Warnings {
		out.Meta.Warnings = append(out.Meta.Warnings, page.Warning{Code: w.Code, Message: w.Message})
	}
	return out
}

// pageRecord is an RS record as a page reads it.
func pageRecord(r *rsclient.Record) page.Record {
	return page.Record{ID: r.ID, Stream: r.Stream, ConnectionID: r.ConnectionID, ConnectorKey: r.ConnectorKey,
		DisplayName: r.DisplayName, EmittedAt: r.EmittedAt, Data: r.Data, Deleted: r.Deleted, DeletedAt: r.DeletedAt}
}

// aggregateAnswer is the RS's aggregate answer as the page reads it.
func aggregateAnswer(agg *rsclient.Aggregation) page.AggregateAnswer {
	out := page.AggregateAnswer{Value: agg.Value, Limit: agg.Limit, OtherCount: agg.OtherCount, TimeZone: agg.TimeZone,
		FilteredRecordCount: agg.FilteredRecordCount, Groups: make([]page.AggregateGroup, len(agg.Groups))}
	for i, g := range agg.Groups {
		out.Groups[i] = page.AggregateGroup{Key: g.Key, Count: g.Count}
	}
	return out
}
