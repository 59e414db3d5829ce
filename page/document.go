package page

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// fetchTextChars bounds a fetched document's text. It equals the
// read_record_field default window, so the continuation starts where the
// document stops.
const fetchTextChars = 4096

// titleKeys are payload fields that hold a record's own title.
var titleKeys = []string{"title", "subject", "name", "summary"}

// textKeys are payload fields that usually hold a record's main prose,
// in order of preference; otherwise the longest string field is used.
var textKeys = []string{"text", "body_text", "content", "body", "message", "description", "snippet", "summary"}

// timeKeys orders timestamps for fallback titles: authored and event times
// before ingest time.
var timeKeys = []string{"sent_at", "authored_at", "created_at", "received_at", "create_time", "occurred_at",
	"source_created_at", "message_received_at", "date", "updated_at", "update_time"}

// document is fetch's structuredContent and text, the MCP/OpenAI
// search-fetch document: exactly these five members.
type document struct {
	ID       string           `json:"id"`
	Title    string           `json:"title"`
	Text     string           `json:"text"`
	URL      string           `json:"url"`
	Metadata documentMetadata `json:"metadata"`
}

// documentMetadata is the record's identity and provenance, where its text
// came from, and the call's source warnings.
type documentMetadata struct {
	ConnectionID string `json:"connection_id"`
	ConnectorKey string `json:"connector_key"`
	Stream       string `json:"stream"`
	RecordID     string `json:"record_id"`
	DisplayName  string `json:"display_name,omitempty"`
	EventTime    string `json:"event_time,omitempty"`
	EmittedAt    string `json:"emitted_at,omitempty"`
	*textSource
	NextRead string    `json:"next_read,omitempty"` // the exact call that continues a cut text
	Warnings []Warning `json:"warnings,omitempty"`
}

// textSource names the field the document's text came from; all three
// members or none (a record without prose).
type textSource struct {
	TextField      string `json:"text_field"`
	TextTotalChars int    `json:"text_total_chars"`
	TextComplete   bool   `json:"text_complete"`
}

// buildDocument renders an RS record as a document. The payload is
// projected to `fields` first, so nothing unrequested reaches text,
// title or metadata even when the RS ignored the projection.
func buildDocument(requestedID string, ref contentladder.RecordRef, rec *Record, fields []string, base string) document {
	return buildDocumentChars(requestedID, ref, rec, fields, base, fetchTextChars)
}

// minFitTextChars is the shortest text fitDocument cuts a body to.
const minFitTextChars = 64

// fitDocument is the document with its warnings, marshalled, and its text
// cut shorter than fetchTextChars where the whole would pass ceiling bytes
// (text that JSON escapes, or multi-byte scripts, take several bytes a
// character): its next_read continues exactly where it stops.
func fitDocument(requestedID string, ref contentladder.RecordRef, rec *Record, fields []string, base string,
	warns []Warning, ceiling int) []byte {
	chars := fetchTextChars
	for {
		doc := buildDocumentChars(requestedID, ref, rec, fields, base, chars)
		if len(warns) > 0 {
			// The result is exactly the document: warnings ride in
			// its metadata, so content[] and structuredContent stay one
			// object.
			doc.Metadata.Warnings = warns
		}
		body := MarshalNoEscape(doc)
		over := len(body) - ceiling
		if over <= 0 || chars <= minFitTextChars {
			return body
		}
		// Shorter by the share of the text's bytes that is over, then
		// checked again (the text's characters need not be alike).
		textLen := JSONStringLen(doc.Text)
		next := chars * max(0, textLen-over) / max(1, textLen)
		chars = max(minFitTextChars, min(next, chars-1))
	}
}

// buildDocumentChars is buildDocument with its text cut at chars runes.
func buildDocumentChars(requestedID string, ref contentladder.RecordRef, rec *Record, fields []string, base string, chars int) document {
	if rec.ConnectionID != "" {
		ref.ConnectionID = rec.ConnectionID
	}
	payload := project(rec.Data, fields)
	members := validObjectMembers(payload)
	strs := stringMembers(members)

	doc := document{ID: requestedID}
	doc.Title = firstOf(strs, titleKeys)
	eventTime := firstOf(strs, timeKeys)
	if doc.Title == "" {
		doc.Title = fallbackTitle(rec.DisplayName, rec.ConnectorKey, ref.Stream, eventTime, rec.EmittedAt)
	}
	doc.URL = recordURL(base, ref)

	textField := firstKeyOf(strs, textKeys)
	if textField == "" {
		textField = longestString(strs)
	}
	doc.Metadata = documentMetadata{ConnectionID: ref.ConnectionID, ConnectorKey: ConnectorKey(rec.ConnectorKey), Stream: ref.Stream,
		RecordID: ref.RecordID, DisplayName: rec.DisplayName, EventTime: eventTime, EmittedAt: rec.EmittedAt}
	var lines string
	if len(fields) > 0 {
		lines = fieldLines(ref, members, fields, textField)
	}
	if textField == "" {
		if lines != "" { // every requested value is on its line already
			doc.Text = strings.TrimSuffix(lines, "\n")
			return doc
		}
		// No prose: show the (projected, sanitized) payload as compact JSON.
		preview := string(SanitizeForPreview(payload, 512))
		doc.Text, _ = TruncateRunes(preview, chars)
		return doc
	}
	// The body's first fetchTextChars+1 runes decide the cut exactly as
	// the whole body would; the rest was counted, never decoded.
	body := strs[textField]
	total := body.si.Runes
	text, cut := TruncateRunes(body.si.Prefix, chars)
	doc.Metadata.textSource = &textSource{TextField: textField, TextTotalChars: total, TextComplete: !cut}
	if cut {
		shown := utf8.RuneCountInString(text) - utf8.RuneCountInString(Ellipsis)
		next := fmt.Sprintf(`read_record_field {"id":%s,"field_path":%s,"offset_chars":%d}`, quote(ref.ID()), quote(textField), shown)
		doc.Metadata.NextRead = next
		text += fmt.Sprintf("\n[text cut at %d of %d chars; continue with %s]", shown, total, next)
	}
	if lines != "" {
		text = lines + textField + ": " + text
	}
	doc.Text = text
	return doc
}

// flatten keeps a value on its line: line breaks and tabs become spaces
// one for one, so character offsets still match the stored value.
func flatten(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// fetchFieldRunes bounds the requested fields' value lines together; each
// value gets an even share, at least fetchFieldMinRunes.
const (
	fetchFieldRunes    = 2400
	fetchFieldMinRunes = 60
)

// fieldLines renders each requested field (but the body, which follows)
// as a readable "name: value" line, in request order, so fetch(fields)
// shows every value it was asked for. Long values are cut with …
// and the exact read_record_field call that continues them; a field the
// record does not carry (absent, or not granted) says so.
func fieldLines(ref contentladder.RecordRef, members []Member, fields []string, textField string) string {
	byName := make(map[string]json.RawMessage, len(members))
	for _, m := range members {
		byName[m.Key] = m.Value
	}
	share := max(fetchFieldMinRunes, fetchFieldRunes/max(1, len(fields)))
	var b strings.Builder
	seen := map[string]bool{}
	for _, f := range fields {
		if f == textField || seen[f] {
			continue
		}
		seen[f] = true
		raw, ok := byName[f]
		if !ok {
			fmt.Fprintf(&b, "%s: (not in this record, or not granted)\n", f)
			continue
		}
		// A JSON null decodes into a string as "" without error: it must
		// print as null, not as an empty value.
		var s string
		isText := string(raw) != "null" && json.Unmarshal(raw, &s) == nil && !IsLargeBase64(s)
		if !isText { // numbers, booleans, arrays, objects, binary stubs: compact JSON
			s = string(SanitizeForPreview(raw, fetchFieldMinRunes))
		}
		total := utf8.RuneCountInString(s)
		v, cut := TruncateRunes(flatten(s), share)
		fmt.Fprintf(&b, "%s: %s", f, v)
		switch {
		case cut && isText:
			shown := utf8.RuneCountInString(v) - 1
			fmt.Fprintf(&b, " [cut at %d of %d chars; continue with read_record_field {\"id\":%s,\"field_path\":%s,\"offset_chars\":%d}]",
				shown, total, quote(ref.ID()), quote(f), shown)
		case cut:
			fmt.Fprintf(&b, " [cut; read it with read_record_field {\"id\":%s,\"field_path\":%s}]", quote(ref.ID()), quote(f))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// recordURL is the canonical RS address of a record, scoped to its
// connection so the reference is unambiguous.
func recordURL(base string, ref contentladder.RecordRef) string {
	u := strings.TrimRight(base, "/") + "/v1/streams/" + url.PathEscape(ref.Stream) + "/records/" + url.PathEscape(ref.RecordID)
	if ref.ConnectionID != "" {
		u += "?connection_id=" + url.QueryEscape(ref.ConnectionID)
	}
	return u
}

func stringMembers(members []Member) map[string]docString {
	out := map[string]docString{}
	for _, m := range members {
		if len(m.Value) == 0 || m.Value[0] != '"' {
			continue // only strings; the values are valid JSON (validObjectMembers)
		}
		d := docString{raw: m.Value, si: ScanString(m.Value, docPrefixRunes)}
		if strings.TrimSpace(d.si.Prefix) == "" && (!d.longer() || strings.TrimSpace(d.value()) == "") {
			continue
		}
		out[m.Key] = d
	}
	return out
}

// docPrefixRunes is what fetch decodes of each string member: the text
// it shows is at most fetchTextChars runes (a cut one fewer and the
// ellipsis), so one rune more tells whether it is cut. A 50,000-character
// body is counted past that, never decoded whole.
const docPrefixRunes = fetchTextChars + 1

// docString is one string member of a fetched record: its first
// docPrefixRunes runes decoded, its length and kind counted.
type docString struct {
	raw json.RawMessage
	si  StringInfo
}

// longer reports a string longer than its decoded prefix.
func (d docString) longer() bool { return d.si.Runes > docPrefixRunes }

// value is the whole string, decoded only when the prefix is not all of it.
func (d docString) value() string {
	if d.longer() {
		return DecodeJSONString(d.raw)
	}
	return d.si.Prefix
}

// validObjectMembers are the members of a record's data, which rsclient
// decoded (or project re-encoded) and so is valid JSON: not scanned again.
func validObjectMembers(payload json.RawMessage) []Member {
	members, ok := ObjectMembersOfValid(payload)
	if !ok {
		return nil
	}
	return members
}

func firstOf(strs map[string]docString, keys []string) string {
	if k := firstKeyOf(strs, keys); k != "" {
		return strs[k].value()
	}
	return ""
}

func firstKeyOf(strs map[string]docString, keys []string) string {
	for _, k := range keys {
		if _, ok := strs[k]; ok {
			return k
		}
	}
	return ""
}

// longestString picks the longest string member that reads as prose
// (not base64), deterministically.
func longestString(strs map[string]docString) string {
	best, bestLen := "", 0
	for k, v := range strs {
		if v.si.Binary {
			continue
		}
		n := v.si.Runes
		if n > bestLen || (n == bestLen && k < best) {
			best, bestLen = k, n
		}
	}
	if bestLen < 40 { // ids and labels are not a document body
		return ""
	}
	return best
}
