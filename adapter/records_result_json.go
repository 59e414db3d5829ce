package adapter

import (
	"slices"
	"strconv"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// appendJSON writes the page as encoding/json (without HTML escaping)
// would, but appends each record's data as it is: the data is already
// compact JSON written by the page itself, and encoding/json would check
// and compact every byte of it again (a json.RawMessage is always
// re-compacted). The small members go through encoding/json as before.
// TestRecordsPageJSONMatchesEncoding pins the bytes to encoding/json's.
func (r recordsPageResult) appendJSON(dst []byte) []byte {
	p := r.Data
	size := 512 + 512*len(r.ContentLadder)
	for _, e := range p.Data {
		size += 256 + len(e.ID) + len(e.DisplayName) + len(e.Data)
	}
	dst = slices.Grow(dst, size)
	dst = append(dst, `{"data":{"object":`...)
	dst = contentladder.AppendJSONString(dst, p.Object)
	dst = append(dst, `,"stream":`...)
	dst = contentladder.AppendJSONString(dst, p.Stream)
	dst = append(dst, `,"data":`...)
	if p.Data == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, e := range p.Data {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = e.appendJSON(dst)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"has_more":`...)
	dst = strconv.AppendBool(dst, p.HasMore)
	dst = appendStringMember(dst, "next_cursor", p.NextCursor)
	dst = appendStringMember(dst, "next_changes_since", p.NextChangesSince)
	if p.Meta != nil {
		dst = append(append(dst, `,"meta":`...), marshalNoEscape(p.Meta)...)
	}
	dst = append(dst, '}')
	if len(r.ContentLadder) > 0 {
		dst = append(append(dst, `,"content_ladder":`...), marshalNoEscape(r.ContentLadder)...)
	}
	if len(r.Warnings) > 0 {
		dst = append(append(dst, `,"warnings":`...), marshalNoEscape(r.Warnings)...)
	}
	return append(dst, '}')
}

func (e recordEnvelope) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"id":`...)
	dst = contentladder.AppendJSONString(dst, e.ID)
	dst = append(dst, `,"record_id":`...)
	dst = contentladder.AppendJSONString(dst, e.RecordID)
	dst = appendStringMember(dst, "connection_id", e.ConnectionID)
	dst = append(dst, `,"stream":`...)
	dst = contentladder.AppendJSONString(dst, e.Stream)
	dst = appendStringMember(dst, "display_name", e.DisplayName)
	dst = appendStringMember(dst, "emitted_at", e.EmittedAt)
	if e.tombstone != nil {
		dst = append(dst, `,"deleted":`...)
		dst = strconv.AppendBool(dst, e.Deleted)
		dst = append(dst, `,"deleted_at":`...)
		dst = contentladder.AppendJSONString(dst, e.DeletedAt)
	}
	dst = append(dst, `,"data":`...)
	if len(e.Data) == 0 {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, e.Data...)
	}
	return append(dst, '}')
}

// appendStringMember writes `,"name":"value"` unless value is empty
// (omitempty).
func appendStringMember(dst []byte, name, value string) []byte {
	if value == "" {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return contentladder.AppendJSONString(dst, value)
}
