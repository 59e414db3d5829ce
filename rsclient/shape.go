package rsclient

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Shape checks: what every RS 200 of a route carries (rs-contract.md §2,
// the real RS captures). JSON types are checked by decoding; these check
// presence and consistency, so that a 200 of the wrong shape ({"nope":1},
// an error-like object, another route's answer) becomes CodeInvalidResponse
// instead of an empty record, an empty window or an aggregate passed on
// unread.

// errNoData: list bodies must carry a "data" array (missing or null is not
// an empty page; it means the RS answered something else).
var errNoData = errors.New(`list body lacks a "data" array`)

func checkRecordList(v *RecordList) error {
	if v.Data == nil {
		return errNoData
	}
	for i := range v.Data {
		if err := checkRecord(&v.Data[i]); err != nil {
			return fmt.Errorf("data[%d]: %w", i, err)
		}
	}
	return nil
}

// checkRecord: an id, a stream, and an object payload (tombstones from
// changes_since may carry none).
func checkRecord(r *Record) error {
	switch {
	case r.ID == "":
		return errors.New(`record lacks "id"`)
	case r.Stream == "":
		return errors.New(`record lacks "stream"`)
	case !r.Deleted && !isObject(r.Data):
		return errors.New(`record "data" is not an object`)
	}
	return nil
}

func checkSearchPage(v *SearchPage) error {
	if v.Data == nil {
		return errNoData
	}
	for i, h := range v.Data {
		if h.Stream == "" || h.RecordKey == "" {
			return fmt.Errorf(`data[%d]: search hit lacks "stream" or "record_key"`, i)
		}
	}
	return nil
}

// checkFieldWindow: the field named, and a window whose offsets are
// consistent with each other and with its text.
func checkFieldWindow(v *FieldWindow) error {
	w := v.Window
	switch {
	case v.Field.Path == "":
		return errors.New(`field window lacks "field.path"`)
	case w.LimitChars < 1:
		return errors.New(`field window lacks "window.limit_chars"`)
	case w.StartChars < 0 || w.StartChars > w.EndChars || w.EndChars > w.TotalChars:
		return fmt.Errorf("field window offsets are inconsistent: start %d, end %d, total %d", w.StartChars, w.EndChars, w.TotalChars)
	case (w.Text == "") != (w.StartChars == w.EndChars):
		return errors.New("field window text does not match its offsets")
	}
	return nil
}

// checkAggregation: a metric over a stream, and either a scalar value
// (possibly null) or groups, each with a key (possibly null).
func checkAggregation(v *Aggregation) error {
	switch {
	case v.Metric == "" || v.Stream == "":
		return errors.New(`aggregation lacks "metric" or "stream"`)
	case v.Value == nil && v.Groups == nil:
		return errors.New(`aggregation has neither "value" nor "groups"`)
	}
	for i, g := range v.Groups {
		if g.Key == nil {
			return fmt.Errorf(`groups[%d] lacks "key"`, i)
		}
	}
	return nil
}

func checkProtectedResourceMetadata(v *ProtectedResourceMetadata) error {
	if v.Resource == "" {
		return errors.New(`protected-resource metadata lacks "resource"`)
	}
	return nil
}

// schemaShape is the part of a schema document rsclient checks; the rest
// is parsed once, by its consumer.
type schemaShape struct {
	Connectors arrayMark `json:"connectors"`
}

func checkSchema(v *schemaShape) error {
	if !v.Connectors {
		return errors.New(`schema document lacks a "connectors" array`)
	}
	return nil
}

// arrayMark records that a member is a JSON array without keeping it.
type arrayMark bool

// UnmarshalJSON implements json.Unmarshaler.
func (m *arrayMark) UnmarshalJSON(b []byte) error {
	*m = len(b) > 0 && b[0] == '['
	return nil
}

func isObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }
