package page

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// maxBucketsInText bounds the bucket list: the largest aggregate limit, so
// every bucket the RS returns is shown; keys are cut at
// maxBucketKeyText bytes.
const (
	maxBucketsInText = 100
	maxBucketKeyText = 120
)

// aggregateView is aggregate's answer as both channels show it: the text
// writes it as lines, and appendJSON as structuredContent. Its first
// member is the answer itself, keyed by what was asked —
// {"count(messages)":42,…} or {"count(messages) by is_seen":{"true":40,…},…}
// — so the JSON costs a model no more than the text's lines. No REST
// member of the RS answer is passed on beyond what the text shows.
type aggregateView struct {
	Aggregate    string          // metric(stream[.field])
	ConnectionID string          // the scope, when the call had one
	By           string          // group_by field, or granularity(field) time_zone=…
	Value        json.RawMessage // ungrouped answers
	OverRecords  int64
	Buckets      []bucket
	MoreBuckets  int // buckets past maxBucketsInText, not shown
	OtherCount   *int64
	Note         string
	Warnings     []string
	grouped      bool
}

// appendJSON writes the view as structuredContent: the answer first, then
// the scope, the record count, the truncation facts and the warnings.
func (v aggregateView) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	if v.grouped {
		dst = AppendJSONString(dst, v.Aggregate+" by "+v.By)
		dst = append(dst, ':', '{')
		for i, b := range v.Buckets {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSONString(dst, bucketName(b.Key))
			dst = append(dst, ':')
			dst = strconv.AppendInt(dst, b.Count, 10)
		}
		dst = append(dst, '}')
	} else {
		dst = AppendJSONString(dst, v.Aggregate)
		dst = append(append(dst, ':'), v.Value...)
	}
	dst = appendStringMember(dst, "connection_id", v.ConnectionID)
	dst = append(dst, `,"over_records":`...)
	dst = strconv.AppendInt(dst, v.OverRecords, 10)
	if v.MoreBuckets > 0 {
		dst = append(dst, `,"more_buckets_not_shown":`...)
		dst = strconv.AppendInt(dst, int64(v.MoreBuckets), 10)
	}
	if v.OtherCount != nil {
		dst = append(dst, `,"other_count":`...)
		dst = strconv.AppendInt(dst, *v.OtherCount, 10)
	}
	dst = appendStringMember(dst, "note", v.Note)
	if len(v.Warnings) > 0 {
		dst = append(dst, `,"warnings":`...)
		dst = append(dst, MarshalNoEscape(v.Warnings)...)
	}
	return append(dst, '}')
}

// bucketName is a bucket key as an object member name: a string key as
// it is, any other key as its JSON text (true, 2026, null).
func bucketName(k json.RawMessage) string {
	var s string
	if len(k) > 0 && k[0] == '"' && json.Unmarshal(k, &s) == nil {
		return s
	}
	return string(k)
}

// bucket is one group: its key as the RS wrote it (a string cut at
// maxBucketKeyText bytes when longer) and its count.
type bucket struct {
	Key   json.RawMessage
	Count int64
}

func newAggregateView(a AggregateRead) aggregateView {
	agg := a.Answer
	subject := a.Stream
	if a.Field != "" {
		subject += "." + a.Field
	}
	v := aggregateView{Aggregate: a.Metric + "(" + subject + ")", ConnectionID: a.ConnectionID, OverRecords: agg.FilteredRecordCount,
		grouped: a.GroupBy != "" || a.GroupByTime != ""}
	v.Warnings = WarningLines(a.SourceWarnings)
	if !v.grouped {
		v.Value = agg.Value
		if len(v.Value) == 0 {
			v.Value = json.RawMessage("null")
		}
		return v
	}
	v.By = a.GroupBy
	if a.GroupBy == "" {
		tz := agg.TimeZone
		if tz == "" {
			tz = "UTC"
		}
		v.By = a.Granularity + "(" + a.GroupByTime + ") time_zone=" + tz
	}
	v.Buckets = make([]bucket, 0, min(len(agg.Groups), maxBucketsInText))
	for i, g := range agg.Groups {
		if i == maxBucketsInText {
			v.MoreBuckets = len(agg.Groups) - i
			break
		}
		v.Buckets = append(v.Buckets, bucket{Key: bucketKey(g.Key), Count: g.Count})
	}
	v.OtherCount = agg.OtherCount
	switch {
	case agg.OtherCount != nil && *agg.OtherCount > 0:
		v.Note = "other_count records are in buckets beyond limit: the list is top-N truncated; raise limit up to 100"
	case agg.OtherCount == nil && len(agg.Groups) >= effectiveLimit(a, agg):
		// Merged fan-in answers carry no other_count: say so rather than
		// let a full bucket list pass for the whole answer.
		v.Note = "other_count not reported (merged across connections): the list may be truncated; pass connection_id or raise limit"
	}
	return v
}

// bucketKey is a bucket key as shown: the RS's JSON, or a string of its
// first maxBucketKeyText bytes when longer.
func bucketKey(k json.RawMessage) json.RawMessage {
	if len(k) == 0 {
		return json.RawMessage("null")
	}
	if len(k) <= maxBucketKeyText {
		return k
	}
	// A string key is cut as text, not as its JSON: cutting the literal
	// kept its opening quote (and could split an escape) inside the new
	// string, so both channels showed "\"abc…".
	text := string(k)
	var s string
	if k[0] == '"' && json.Unmarshal(k, &s) == nil {
		text = s
	}
	return AppendJSONString(nil, truncateBytes(text, maxBucketKeyText))
}

// text writes the view as lines: the answer first, then one line per
// bucket, then other_count and the note, then the warnings.
func (v aggregateView) text() string {
	var b strings.Builder
	b.WriteString("aggregate " + v.Aggregate)
	if v.ConnectionID != "" {
		fmt.Fprintf(&b, " connection_id=%s", v.ConnectionID)
	}
	if !v.grouped {
		fmt.Fprintf(&b, " = %s over %d records", v.Value, v.OverRecords)
	} else {
		fmt.Fprintf(&b, " by %s: %d buckets over %d records", v.By, len(v.Buckets)+v.MoreBuckets, v.OverRecords)
		for _, g := range v.Buckets {
			fmt.Fprintf(&b, "\n%s = %d", g.Key, g.Count)
		}
		if v.MoreBuckets > 0 {
			fmt.Fprintf(&b, "\n… %d more buckets not shown; narrow with filter", v.MoreBuckets)
		}
		if v.OtherCount != nil {
			fmt.Fprintf(&b, "\nother_count=%d", *v.OtherCount)
		}
		if v.Note != "" {
			b.WriteString("\n" + v.Note)
		}
	}
	for _, w := range v.Warnings {
		b.WriteString("\n" + w)
	}
	return b.String()
}

// effectiveLimit is the bucket cap the RS applied (default 10).
func effectiveLimit(a AggregateRead, agg AggregateAnswer) int {
	switch {
	case agg.Limit != nil && *agg.Limit > 0:
		return *agg.Limit
	case a.Limit > 0:
		return a.Limit
	}
	return 10
}
