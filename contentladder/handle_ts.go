package contentladder

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// tsHandle is the TS adapter's handle payload ({"v":1,"kind":…}). We never
// emit it, but URIs minted by the TS adapter may still be in agent
// transcripts, so they keep working.
type tsHandle struct {
	V            *int    `json:"v"`
	Kind         string  `json:"kind"`
	ConnectionID *string `json:"connection_id"`
	Stream       string  `json:"stream"`
	RecordID     string  `json:"record_id"`
	FieldPath    string  `json:"field_path"`
	OffsetChars  *int    `json:"offset_chars"`
	LimitChars   *int    `json:"limit_chars"`
	Cursor       *string `json:"cursor"`
	Q            *string `json:"q"`
	BeforeChars  *int    `json:"before_chars"`
	AfterChars   *int    `json:"after_chars"`
}

func decodeTSHandle(b []byte, kind string) (tsHandle, error) {
	var h tsHandle
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&h); err != nil || dec.More() {
		return h, malformedHandle("handle is not valid JSON")
	}
	if h.V == nil || *h.V != 1 || h.Kind != kind {
		return h, malformedHandle("handle has the wrong kind or version; expected " + kind + " v1")
	}
	// The TS adapter always wrote a connection into its handles; one
	// without is not something it minted.
	if h.ConnectionID == nil || *h.ConnectionID == "" {
		return h, malformedHandle("handle lacks connection_id")
	}
	return h, nil
}

func parseTSRecordHandle(b []byte) (RecordRef, error) {
	h, err := decodeTSHandle(b, "record")
	if err != nil {
		return RecordRef{}, err
	}
	return RecordRef{ConnectionID: *h.ConnectionID, Stream: h.Stream, RecordID: h.RecordID}, nil
}

func parseTSWindowHandle(b []byte) (WindowSpec, error) {
	h, err := decodeTSHandle(b, "field-window")
	if err != nil {
		return WindowSpec{}, err
	}
	w := WindowSpec{Ref: RecordRef{ConnectionID: *h.ConnectionID, Stream: h.Stream, RecordID: h.RecordID}, FieldPath: h.FieldPath}
	deref := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	w.OffsetChars, w.LimitChars = deref(h.OffsetChars), deref(h.LimitChars)
	w.BeforeChars, w.AfterChars = deref(h.BeforeChars), deref(h.AfterChars)
	if h.Cursor != nil {
		// TS cursors were decimal offsets.
		n, err := strconv.Atoi(*h.Cursor)
		if err != nil || h.OffsetChars != nil {
			return WindowSpec{}, malformedHandle("handle has a cursor that is not a decimal offset, or both cursor and offset_chars")
		}
		w.OffsetChars = n
	}
	if h.Q != nil {
		w.Q, w.HasQ = *h.Q, true
	}
	return w, nil
}
