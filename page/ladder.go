package page

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// Ladder defaults.
const (
	// DefaultPreviewChars is assumed when LadderOptions.PreviewChars ≤ 0.
	DefaultPreviewChars = 512
	// DefaultMaxEntries bounds a record's ladder when MaxEntries ≤ 0.
	DefaultMaxEntries = 8
)

// Tool names used in continuations.
const (
	ToolReadRecordField = "read_record_field"
	ToolFetch           = "fetch"
)

// Continuation is the next call that reads more of a field: the exact tool
// arguments (for content-only and structured clients) and, when there is
// one, the equivalent resource URI (for resource-aware clients).
type Continuation struct {
	Tool        string         `json:"tool"`
	Args        map[string]any `json:"args"`
	ResourceURI string         `json:"resource_uri,omitempty"`
}

// LadderEntry is one previewed long field of one record in
// structuredContent.content_ladder (seed 004 tier 1): record identity, field
// identity and class, size, preview status, and how to continue. Binary
// entries never carry a continuation into the bytes.
type LadderEntry struct {
	ID           string `json:"id,omitempty"`
	ConnectionID string `json:"connection_id,omitempty"`
	Stream       string `json:"stream,omitempty"`
	RecordID     string `json:"record_id,omitempty"`
	FieldPath    string `json:"field_path"`
	Type         string `json:"type"`
	Class        Class  `json:"class"`
	MIMEType     string `json:"mime_type,omitempty"`
	Digest       string `json:"digest,omitempty"`
	SizeChars    int    `json:"size_chars,omitempty"`
	SizeBytes    int64  `json:"size_bytes,omitempty"`
	Status       Status `json:"status"`
	// BlobID and Handle name a binary field's content without inlining it
	// (seed 004 tier 4): the RS blob id when known, and the record resource
	// that carries the field's metadata.
	BlobID       string        `json:"blob_id,omitempty"`
	Handle       string        `json:"handle,omitempty"`
	PreviewChars int           `json:"preview_chars,omitempty"`
	Continuation *Continuation `json:"continuation,omitempty"`
}

// LadderOptions tune BuildLadder.
type LadderOptions struct {
	// PreviewChars is how many runes of each text field the caller shows
	// verbatim (not counting an Ellipsis); longer fields are listed and
	// their continuation starts right after the preview. ≤ 0 means
	// DefaultPreviewChars. JSON fields use the same threshold on their
	// compact size.
	PreviewChars int
	// MaxEntries bounds the entries per record; ≤ 0 means DefaultMaxEntries.
	MaxEntries int
	// WindowChars is the limit_chars of text continuations; ≤ 0 means
	// contentladder.DefaultWindowChars, capped at contentladder.MaxWindowChars.
	WindowChars int
	// OmitRecordIdentity leaves ID, ConnectionID, Stream and RecordID empty
	// (and out of the JSON) for callers that state the record's identity
	// once next to its entries. The record id is repeated ~3× per entry
	// otherwise, which dominates an entry's size for long ids. Continuation
	// args still carry the full id.
	OmitRecordIdentity bool
}

// BuildLadder lists the fields of one record payload (a JSON object) that a
// preview cannot show in full, in payload key order, at most MaxEntries:
//   - text longer than PreviewChars: truncated, continuing with
//     read_record_field at offset PreviewChars, plus the field-window URI;
//   - binary (blob_ref or large base64): binary-only, with MIME type, size
//     and digest when known, no continuation;
//   - JSON larger than PreviewChars: truncated, continuing with fetch of
//     just that field;
//   - a long field whose name cannot be a field_path: unavailable.
//
// Short complete fields, scalars and nulls are omitted to keep results
// small. A payload that is not an object yields nil.
func BuildLadder(ref contentladder.RecordRef, payload json.RawMessage, opt LadderOptions) []LadderEntry {
	fields, ok := objectFields(payload)
	if !ok {
		return nil
	}
	infos := make([]FieldInfo, 0, len(fields))
	for _, f := range fields {
		infos = append(infos, classify(f.key, f.value))
	}
	return LadderFromFields(ref, infos, opt)
}

// LadderFromFields is BuildLadder for a caller that has already read the
// payload's top-level members (each FieldInfo's Path is the member name,
// in payload order, duplicates resolved as objectFields does): a record
// page parses every payload once for its text and reuses that here.
func LadderFromFields(ref contentladder.RecordRef, fields []FieldInfo, opt LadderOptions) []LadderEntry {
	lo := ladderOf{ref: ref, id: ref.ID(), preview: opt.PreviewChars, window: opt.WindowChars, omitIdentity: opt.OmitRecordIdentity}
	if lo.preview <= 0 {
		lo.preview = DefaultPreviewChars
	}
	if lo.window <= 0 {
		lo.window = contentladder.DefaultWindowChars
	}
	lo.window = min(lo.window, contentladder.MaxWindowChars)
	maxEntries := opt.MaxEntries
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	var out []LadderEntry
	for _, fi := range fields {
		if len(out) == maxEntries {
			break
		}
		if e, ok := lo.entry(fi); ok {
			out = append(out, e)
		}
	}
	return out
}

// InLadder reports whether a field gets a ladder entry when a page shows
// previewChars of it (LadderOptions.PreviewChars, > 0): binary values
// always, text and JSON longer than the preview. It lets a caller count a
// record's entries without building them.
func InLadder(fi FieldInfo, previewChars int) bool {
	return fi.Class == ClassBinary || ((fi.Class == ClassText || fi.Class == ClassJSON) && fi.SizeChars > previewChars)
}

// ladderOf is one record's ladder settings.
type ladderOf struct {
	ref             contentladder.RecordRef
	id              string
	preview, window int
	omitIdentity    bool
}

// entry is fi's ladder entry; ok is false for a field shown whole.
func (lo ladderOf) entry(fi FieldInfo) (LadderEntry, bool) {
	if !InLadder(fi, lo.preview) {
		return LadderEntry{}, false
	}
	key, id := fi.Path, lo.id
	e := LadderEntry{
		ID: id, ConnectionID: lo.ref.ConnectionID, Stream: lo.ref.Stream, RecordID: lo.ref.RecordID,
		FieldPath: key, Type: fi.Type, Class: fi.Class, MIMEType: fi.MIMEType, Digest: fi.Digest,
		SizeChars: fi.SizeChars, SizeBytes: fi.SizeBytes,
	}
	pathOK := contentladder.ValidateSegment("field_path", key) == nil
	switch {
	case fi.Class == ClassBinary:
		e.Status = StatusBinaryOnly
		e.BlobID, e.Handle = fi.BlobID, contentladder.RecordURI(lo.ref)
		if fi.Type == "object" {
			e.SizeChars = 0 // the blob_ref's JSON size says nothing useful
		}
	case !pathOK:
		e.Status = StatusUnavailable
	case fi.Class == ClassText:
		e.Status, e.PreviewChars = StatusTruncated, lo.preview
		w := contentladder.WindowSpec{Ref: lo.ref, FieldPath: key, OffsetChars: lo.preview, LimitChars: lo.window}
		e.Continuation = &Continuation{
			Tool:        ToolReadRecordField,
			Args:        map[string]any{"id": id, "field_path": key, "offset_chars": lo.preview, "limit_chars": lo.window},
			ResourceURI: contentladder.FieldWindowURI(w),
		}
	default: // JSON
		e.Status, e.PreviewChars = StatusTruncated, lo.preview
		e.Continuation = &Continuation{Tool: ToolFetch, Args: map[string]any{"id": id, "fields": []string{key}}}
	}
	if lo.omitIdentity {
		e.ID, e.ConnectionID, e.Stream, e.RecordID = "", "", "", ""
	}
	return e, true
}

type field struct {
	key   string
	value json.RawMessage
}

// objectFields returns an object's members in document order (maps lose
// it, and the ladder promises payload order). Duplicate keys keep the first
// position and the last value, as JSON.parse on the RS side would. Values
// share payload's bytes.
func objectFields(payload json.RawMessage) ([]field, bool) {
	members, ok := ObjectMembers(payload)
	if !ok {
		return nil, false
	}
	var out []field
	var index map[string]int // only for objects big enough to need it
	for _, m := range members {
		key, v := m.Key, m.Value
		if at, dup := fieldIndex(out, index, key); dup {
			out[at].value = v
		} else {
			out = append(out, field{key: key, value: v})
			if len(out) > 16 && index == nil {
				index = make(map[string]int, 2*len(out))
				for n, f := range out {
					if _, seen := index[f.key]; !seen {
						index[f.key] = n
					}
				}
			} else if index != nil {
				index[key] = len(out) - 1
			}
		}
	}
	return out, true
}

// Member is one member of a JSON object; Value shares the object's bytes.
type Member struct {
	Key   string
	Value json.RawMessage
}

// ObjectMembers splits a JSON object into its members in document order,
// repeated names kept, keys decoded as json.Unmarshal decodes them. ok is
// false unless raw is one valid JSON value and an object. One validity
// scan and one walk, where a json.Decoder token stream allocated per token
// and copied every value.
func ObjectMembers(raw []byte) ([]Member, bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	return ObjectMembersOfValid(raw)
}

// ObjectMembersOfValid is ObjectMembers of bytes the caller knows to be
// one valid JSON value (a record's data as rsclient decoded it): the same
// walk without the validity scan, a whole pass over a 50,000-character
// body. On bytes that are not valid JSON its answer is undefined.
func ObjectMembersOfValid(raw []byte) ([]Member, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) {
		return nil, false
	}
	if raw[i] != '{' {
		return nil, false
	}
	var out []Member
	i = skipSpace(raw, i+1)
	for raw[i] != '}' {
		end, escaped := SkipJSONString(raw, i)
		key := string(raw[i+1 : end-1])
		if escaped || !utf8.ValidString(key) {
			key = DecodeJSONString(raw[i:end]) // as json would: escapes resolved, bad bytes → U+FFFD
		}
		i = skipSpace(raw, skipSpace(raw, end)+1) // past ':'
		vEnd := skipValue(raw, i)
		out = append(out, Member{Key: key, Value: json.RawMessage(raw[i:vEnd:vEnd])})
		i = skipSpace(raw, vEnd)
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return out, true
}

// fieldIndex finds key among the fields so far: a scan for the usual
// handful of fields, the index once there are many.
func fieldIndex(out []field, index map[string]int, key string) (int, bool) {
	if index != nil {
		at, ok := index[key]
		return at, ok
	}
	for n, f := range out {
		if f.key == key {
			return n, true
		}
	}
	return 0, false
}
