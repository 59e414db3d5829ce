package page

import (
	"slices"
	"strconv"
)

// appendJSON writes the page as encoding/json (without HTML escaping)
// would, with each record's data appended as it is: it is compact JSON the
// page's fit wrote itself, and encoding/json would check and compact every
// byte of it again. TestRecordsPageJSONMatchesEncoding pins the bytes to
// encoding/json's.
func (r recordsPageResult) appendJSON(dst []byte) []byte {
	size := 256 + len(r.NextCursor) + len(r.NextChangesSince) + len(r.Cut)
	for _, w := range r.Warnings {
		size += len(w) + 8
	}
	for _, e := range r.Records {
		size += 32 + len(e.ID) + len(e.Data)
	}
	dst = slices.Grow(dst, size)
	dst = append(dst, `{"stream":`...)
	dst = AppendJSONString(dst, r.Stream)
	dst = append(dst, `,"records_shown":`...)
	dst = strconv.AppendInt(dst, int64(r.RecordsShown), 10)
	dst = append(dst, `,"has_more":`...)
	dst = strconv.AppendBool(dst, r.HasMore)
	dst = appendStringMember(dst, "next_cursor", r.NextCursor)
	dst = appendStringMember(dst, "next_changes_since", r.NextChangesSince)
	dst = appendStringMember(dst, "count", r.Count)
	dst = appendStringMember(dst, "connection_id", r.ConnectionID)
	if r.LimitPerConnection > 0 {
		dst = append(dst, `,"limit_per_connection":`...)
		dst = strconv.AppendInt(dst, int64(r.LimitPerConnection), 10)
	}
	if len(r.Warnings) > 0 {
		dst = append(dst, `,"warnings":[`...)
		for i, w := range r.Warnings {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSONString(dst, w)
		}
		dst = append(dst, ']')
	}
	dst = appendStringMember(dst, "legend", r.Legend)
	dst = append(dst, `,"records":`...)
	if r.Records == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, e := range r.Records {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = e.appendJSON(dst)
		}
		dst = append(dst, ']')
	}
	dst = appendStringMember(dst, "cut", r.Cut)
	return append(dst, '}')
}

func (e recordOnPage) appendJSON(dst []byte) []byte {
	dst = append(dst, '[')
	dst = AppendJSONString(dst, e.ID)
	dst = append(dst, ',')
	if len(e.Data) == 0 {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, e.Data...)
	}
	if e.DeletedAt != "" {
		dst = append(dst, ',')
		dst = AppendJSONString(dst, e.DeletedAt)
	}
	return append(dst, ']')
}

// MarshalJSON writes the record as appendJSON does: its data is JSON the
// page wrote, which encoding/json would otherwise re-check and escape.
func (e recordOnPage) MarshalJSON() ([]byte, error) { return e.appendJSON(nil), nil }

// appendStringMember writes `,"name":"value"` unless value is empty
// (omitempty).
func appendStringMember(dst []byte, name, value string) []byte {
	if value == "" {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return AppendJSONString(dst, value)
}
