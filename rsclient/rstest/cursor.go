package rstest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
)

// maxCursorBytes bounds opaque cursor input.
const maxCursorBytes = 4096

// Cursor kinds and sessions, as the reference encodes them.
const (
	kindPage          = "page"
	kindChangesSince  = "changes_since"
	sessionRecords    = "records"
	sessionChanges    = "changes"
	changesBootstrap  = "beginning"
	malformedCursor   = "Malformed cursor"
	malformedChanges  = "Malformed changes_since cursor; pass `beginning` to bootstrap or the `next_changes_since` value returned by a prior /v1/streams/{stream}/records response"
	cursorOrderDiffer = "Cursor order does not match request order"
)

// wireCursor is every member a decoded page cursor may carry. The reference
// encodes records cursors as {cursor_value, kind, order, primary_key,
// session} and changes cursors as {after_version, kind, session,
// session_max_version, since_version}: neither names a stream or a
// connection.
type wireCursor struct {
	Kind              string          `json:"kind"`
	Session           *string         `json:"session"`
	CursorValue       any             `json:"cursor_value"`
	Order             string          `json:"order"`
	PrimaryKey        json.RawMessage `json:"primary_key"`
	SinceVersion      json.RawMessage `json:"since_version"`
	AfterVersion      json.RawMessage `json:"after_version"`
	SessionMaxVersion json.RawMessage `json:"session_max_version"`
	Version           json.RawMessage `json:"version"`
}

// decodeCursor base64-decodes raw (any alphabet, padded or not, as Node's
// lenient Buffer decoding accepts) and parses the JSON object inside.
func decodeCursor(raw string) (*wireCursor, bool) {
	if raw == "" || len(raw) > maxCursorBytes {
		return nil, false
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(raw)
		if err != nil {
			continue
		}
		var wc wireCursor
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if dec.Decode(&wc) != nil {
			return nil, false
		}
		return &wc, true
	}
	return nil, false
}

// parsePageCursor accepts what the reference's parsePageCursor accepts: a
// decodable cursor of kind "page" with a string session.
func parsePageCursor(raw string) (*wireCursor, bool) {
	wc, ok := decodeCursor(raw)
	if !ok || wc.Kind != kindPage || wc.Session == nil {
		return nil, false
	}
	return wc, true
}

// parseChangesSince accepts "beginning" (version 0), {kind:changes_since,
// version:N} and the legacy kind-less {version:N}.
func parseChangesSince(raw string) (int, bool) {
	if raw == changesBootstrap {
		return 0, true
	}
	wc, ok := decodeCursor(raw)
	if !ok || (wc.Kind != "" && wc.Kind != kindChangesSince) {
		return 0, false
	}
	return jsonInt(wc.Version)
}

// jsonInt reads an integral JSON number (JavaScript's Number.isInteger).
func jsonInt(raw json.RawMessage) (int, bool) {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}

// encodeCursorJSON is the reference's encodeCursor: standard base64 of the
// JSON text.
func encodeCursorJSON(v any) string {
	b, _ := json.Marshal(v)
	return base64.StdEncoding.EncodeToString(b)
}

// changesPageCursor is the changes-session cursor, members in the
// reference's (alphabetical) order.
type changesPageCursor struct {
	AfterVersion      int    `json:"after_version"`
	Kind              string `json:"kind"`
	Session           string `json:"session"`
	SessionMaxVersion int    `json:"session_max_version"`
	SinceVersion      int    `json:"since_version"`
}

// changesSinceToken is the next_changes_since token.
type changesSinceToken struct {
	Kind    string `json:"kind"`
	Version int    `json:"version"`
}

// encodeChangesSince mints next_changes_since for version v.
func encodeChangesSince(v int) string {
	return encodeCursorJSON(changesSinceToken{Kind: kindChangesSince, Version: v})
}

// encodeChangesPage mints a changes-session next_cursor.
func encodeChangesPage(since, after, max int) string {
	return encodeCursorJSON(changesPageCursor{AfterVersion: after, Kind: kindPage, Session: sessionChanges,
		SessionMaxVersion: max, SinceVersion: since})
}

// session is the cursor's session name ("" when absent).
func (wc *wireCursor) session() string {
	if wc == nil || wc.Session == nil {
		return ""
	}
	return *wc.Session
}
