package contentladder

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// maxSanitizeDepth bounds recursion on hostile payloads; a deeper payload
// is not previewed at all (SanitizeForPreview returns null).
const maxSanitizeDepth = 64

// SanitizeForPreview rewrites a JSON value for display: every large-base64
// string (IsLargeBase64) becomes {"binary":true,"mime_type":…,"size_bytes":…}
// and every other string longer than maxString runes is cut with an Ellipsis
// (maxString ≤ 0: no cut). Key order is kept; blob_ref objects are kept as
// they are (metadata, not bytes). Invalid JSON yields `null` rather than
// echoing unknown bytes into a preview.
func SanitizeForPreview(payload json.RawMessage, maxString int) json.RawMessage {
	var b bytes.Buffer
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := sanitizeValue(dec, &b, maxString, 0); err != nil {
		return json.RawMessage("null")
	}
	if _, err := dec.Token(); err == nil {
		return json.RawMessage("null") // trailing data after the value
	}
	return b.Bytes()
}

func sanitizeValue(dec *json.Decoder, b *bytes.Buffer, maxString, depth int) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := t.(type) {
	case json.Delim:
		if depth >= maxSanitizeDepth {
			return errTooDeep
		}
		if v == '{' {
			b.WriteByte('{')
			for i := 0; dec.More(); i++ {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				if i > 0 {
					b.WriteByte(',')
				}
				writeJSON(b, kt.(string))
				b.WriteByte(':')
				if err := sanitizeValue(dec, b, maxString, depth+1); err != nil {
					return err
				}
			}
			b.WriteByte('}')
		} else {
			b.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := sanitizeValue(dec, b, maxString, depth+1); err != nil {
					return err
				}
			}
			b.WriteByte(']')
		}
		_, err := dec.Token() // closing delimiter
		return err
	case string:
		if IsLargeBase64(v) {
			mime, size := base64Meta(v)
			b.WriteString(`{"binary":true`)
			if mime != "" {
				b.WriteString(`,"mime_type":`)
				writeJSON(b, mime)
			}
			b.WriteString(`,"size_bytes":` + strconv.FormatInt(size, 10) + `}`)
			return nil
		}
		if maxString > 0 {
			v, _ = TruncateRunes(v, maxString)
		}
		writeJSON(b, v)
	case json.Number:
		b.WriteString(v.String())
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("null")
	}
	return nil
}

type sanitizeError string

func (e sanitizeError) Error() string { return string(e) }

const errTooDeep = sanitizeError("contentladder: JSON nested too deeply for a preview")

// writeJSON writes s as a JSON string without HTML escaping, so snippet
// tags stay readable (<mark>, not \u003cmark\u003e).
func writeJSON(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // strings always encode
	b.Truncate(b.Len() - 1) // Encode appends a newline
}
