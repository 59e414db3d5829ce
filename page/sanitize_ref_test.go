package page

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
)

// sanitizeReference is the json.Decoder token walk SanitizeForPreview
// replaced; FuzzSanitizeMatchesReference holds the byte walk to its output.
func sanitizeReference(payload json.RawMessage, maxString int) json.RawMessage {
	var b bytes.Buffer
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := referenceValue(dec, &b, maxString, 0); err != nil {
		return json.RawMessage("null")
	}
	if _, err := dec.Token(); err == nil {
		return json.RawMessage("null") // trailing data after the value
	}
	return b.Bytes()
}

func referenceValue(dec *json.Decoder, b *bytes.Buffer, maxString, depth int) error {
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
				if err := referenceValue(dec, b, maxString, depth+1); err != nil {
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
				if err := referenceValue(dec, b, maxString, depth+1); err != nil {
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

// FuzzSanitizeMatchesReference: the byte walk gives exactly what the token
// walk gave, for any valid input and any cut, and null for anything
// json.Valid refuses (the token walk let invalid trailing bytes through:
// "0A00" previewed as 0; the corpus keeps that input).
func FuzzSanitizeMatchesReference(f *testing.F) {
	for _, in := range []string{`{"a":"` + b64(300) + `","b":[1,"x",-0.5e3,true,null]}`, `{"k\u00e9y":"v\u2028\n\"q\"","<m>":"<mark>x</mark>"}`,
		` [ "a" , { } , [ ] , "\ud800" ] `, `"data:image/png;base64,` + b64(300) + `"`, `{"s":"` + "\xff\xfe" + `abc"}`, `{} {}`, `{"a":`} {
		f.Add(in, 3)
		f.Add(in, 0)
	}
	f.Fuzz(func(t *testing.T, in string, maxString int) {
		maxString %= 1000
		got, want := SanitizeForPreview(json.RawMessage(in), maxString), sanitizeReference(json.RawMessage(in), maxString)
		if !json.Valid([]byte(in)) {
			want = json.RawMessage("null")
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("SanitizeForPreview(%q, %d) = %s, reference %s", in, maxString, got, want)
		}
	})
}

// writeJSON is the reference string encoding: encoding/json without HTML
// escaping.
func writeJSON(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode appends a newline
}
