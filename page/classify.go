package page

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Class is how a field's value can be read: the ladder offers a text window
// for text, a projected fetch for JSON, metadata only for binary.
type Class string

// Field classes.
const (
	ClassText   Class = "text"
	ClassJSON   Class = "json"
	ClassBinary Class = "binary"
	ClassScalar Class = "scalar"
	ClassNull   Class = "null"
)

// Status is a field's preview status in a ladder entry (seed 004 tier 1).
type Status string

// Preview statuses. Spelled as in seed 004.
const (
	StatusComplete    Status = "complete"
	StatusTruncated   Status = "truncated"
	StatusSnippetOnly Status = "snippet-only"
	StatusBinaryOnly  Status = "binary-only"
	StatusUnavailable Status = "unavailable"
)

// FieldInfo describes one field value. SizeChars counts runes of text (or of
// compact JSON); SizeBytes, MIMEType, Digest and BlobID are set for binary
// values when known.
type FieldInfo struct {
	Path      string
	Type      string // JSON type: string, number, boolean, object, array, null ("invalid" for bad JSON)
	Class     Class
	SizeChars int
	MIMEType  string
	Digest    string
	SizeBytes int64
	BlobID    string
}

// Classify inspects one field value. It applies no connector-specific rules:
// a string is text unless it is large base64 (or a base64 data: URL); an
// object is binary only if it is a PDPP blob_ref (IsBlobRef).
func Classify(path string, value json.RawMessage) FieldInfo {
	v := bytes.TrimSpace(value)
	if len(v) == 0 || !json.Valid(v) {
		return FieldInfo{Path: path, Type: "invalid", Class: ClassNull}
	}
	return classify(path, v)
}

// classify is Classify of a value already known to be valid JSON without
// surrounding space (a member objectFields split out of a checked payload).
func classify(path string, v []byte) FieldInfo {
	fi := FieldInfo{Path: path}
	switch v[0] {
	case 'n':
		fi.Type, fi.Class = "null", ClassNull
	case 't', 'f':
		fi.Type, fi.Class, fi.SizeChars = "boolean", ClassScalar, len(v)
	case '"':
		si := ScanString(v, 0) // counted, not decoded
		fi.Type, fi.SizeChars, fi.Class = "string", si.Runes, ClassText
		if si.Binary {
			fi.Class, fi.MIMEType, fi.SizeBytes = ClassBinary, si.MIMEType, si.SizeBytes
		}
	case '{':
		fi.Type, fi.Class, fi.SizeChars = "object", ClassJSON, compactRunes(v)
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) == nil && IsBlobRef(obj) {
			fi.Class = ClassBinary
			fillBlobRef(&fi, obj)
		}
	case '[':
		fi.Type, fi.Class, fi.SizeChars = "array", ClassJSON, compactRunes(v)
	default:
		fi.Type, fi.Class, fi.SizeChars = "number", ClassScalar, len(v)
	}
	return fi
}

func compactRunes(v []byte) int { return CompactRunes(v) }

// CompactRunes is the rune count of v, valid JSON, once compacted
// (json.Compact): its runes less the whitespace between tokens. Strings
// keep their bytes through Compact and everything outside them is ASCII,
// so it counts without building the compact copy.
func CompactRunes(v []byte) int {
	n := utf8.RuneCount(v)
	for i := 0; i < len(v); {
		switch v[i] {
		case '"':
			i, _ = SkipJSONString(v, i)
		case ' ', '\t', '\n', '\r':
			n--
			i++
		default:
			i++
		}
	}
	return n
}

// Blob-ref key spellings. `blob_id` is the PDPP manifest spelling; camelCase
// variants come from hand-written connectors. Deliberately absent: `id`,
// `url`, `href` — the TS adapter's looser test turned every nested object
// with an id into a "binary" field.
var (
	blobIDKeys = []string{"blob_id", "blobId"}
	mimeKeys   = []string{"mime_type", "mimeType", "content_type", "contentType"}
	sizeKeys   = []string{"size_bytes", "sizeBytes", "byte_length", "byteLength"}
	digestKeys = []string{"sha256", "digest", "content_digest", "contentDigest"}
	fetchKeys  = []string{"fetch_url", "fetchUrl"}
)

// MayBeBlobRef reports whether an object with these member names can be a
// blob reference: IsBlobRef needs a blob id member, so callers that know
// the names can skip decoding every other object into a map.
func MayBeBlobRef(keys []string) bool {
	for _, k := range keys {
		if slices.Contains(blobIDKeys, k) {
			return true
		}
	}
	return false
}

// IsBlobRef reports whether obj is a PDPP blob reference: a non-empty string
// blob_id plus at least one of mime_type, size_bytes, sha256 or fetch_url.
func IsBlobRef(obj map[string]json.RawMessage) bool {
	if firstString(obj, blobIDKeys) == "" {
		return false
	}
	for _, keys := range [][]string{mimeKeys, sizeKeys, digestKeys, fetchKeys} {
		for _, k := range keys {
			if _, ok := obj[k]; ok {
				return true
			}
		}
	}
	return false
}

func fillBlobRef(fi *FieldInfo, obj map[string]json.RawMessage) {
	fi.BlobID = firstString(obj, blobIDKeys)
	fi.MIMEType = firstString(obj, mimeKeys)
	fi.Digest = firstString(obj, digestKeys)
	for _, k := range sizeKeys {
		raw, ok := obj[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(raw) // a number; numeric strings are parsed too
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil && n >= 0 {
			fi.SizeBytes = n
			break
		}
	}
	if fi.Digest != "" && !strings.Contains(fi.Digest, ":") && firstKey(obj, digestKeys) == "sha256" {
		fi.Digest = "sha256:" + fi.Digest // say which hash, so clients can verify
	}
}

func firstString(obj map[string]json.RawMessage, keys []string) string {
	for _, k := range keys {
		var s string
		if raw, ok := obj[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func firstKey(obj map[string]json.RawMessage, keys []string) string {
	for _, k := range keys {
		var s string
		if raw, ok := obj[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			return k
		}
	}
	return ""
}
