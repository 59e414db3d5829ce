package page

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// tokenPreview is the json.Decoder token-stream parser parsePreview
// replaced; the fuzz test holds the byte walker to its results.
func tokenPreview(raw json.RawMessage) (*preview, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	p, err := tokenPreviewValue(dec, 0)
	if err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false
	}
	return p, true
}

func tokenPreviewValue(dec *json.Decoder, depth int) (*preview, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := t.(type) {
	case json.Delim:
		if depth >= previewMaxDepth {
			return nil, fmt.Errorf("payload nested too deeply")
		}
		p := &preview{kind: 'a'}
		if v == '{' {
			p.kind = 'o'
		}
		for dec.More() {
			if p.kind == 'o' {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				p.keys = append(p.keys, kt.(string))
			}
			kid, err := tokenPreviewValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			p.kids = append(p.kids, kid)
		}
		_, err := dec.Token()
		return p, err
	case string:
		if IsLargeBase64(v) {
			q, _ := json.Marshal(v)
			stub := SanitizeForPreview(q, 0)
			var meta struct {
				MIMEType  string `json:"mime_type"`
				SizeBytes int64  `json:"size_bytes"`
			}
			_ = json.Unmarshal(stub, &meta)
			return &preview{kind: 'l', lit: string(stub), runes: utf8.RuneCountInString(v),
				bin: &binaryMeta{mime: meta.MIMEType, bytes: meta.SizeBytes}}, nil
		}
		n := utf8.RuneCountInString(v)
		s := v
		if n > previewMaxRunes+1 {
			s, _ = TruncateRunes(v, previewMaxRunes+2)
			s = s[:len(s)-len(Ellipsis)]
		}
		ascii := true
		for _, r := range s {
			ascii = ascii && r >= ' ' && r < utf8.RuneSelf && r != '"' && r != '\\'
		}
		return &preview{kind: 's', str: s, runes: n, ascii: ascii}, nil
	case json.Number:
		return &preview{kind: 'l', lit: v.String()}, nil
	case bool:
		return &preview{kind: 'l', lit: fmt.Sprint(v)}, nil
	}
	return &preview{kind: 'l', lit: "null"}, nil
}

// FuzzParsePreviewMatchesTokenStream: the byte walker accepts exactly the
// documents the token-stream parser accepted and builds the same preview,
// and size(limit) is the length render(limit) writes.
func FuzzParsePreviewMatchesTokenStream(f *testing.F) {
	for _, seed := range []string{
		`{"a":"hello","b":[1,2,{"c":null}],"d":true}`,
		` {"s":"line\nbreak \"quoted\" \\ ünï 😀 \u0001 \/"} `,
		`[1,-2.5e3,3,false,null,[],{}]`,
		`"just a string"`, `"\ud800"`, "\"\xff\xfe\"", `{"k\u00e9":"v"}`, `1 2`, `{"a":1,}`, `[`, ``,
		`{"b64":"` + string(bytes.Repeat([]byte("QUJD"), 400)) + `"}`,
		string(bytes.Repeat([]byte("["), 70)) + string(bytes.Repeat([]byte("]"), 70)),
		`{"long":"` + string(bytes.Repeat([]byte("é"), 1500)) + `"}`,
		`{"body":"` + string(bytes.Repeat([]byte(`line\n`), 400)) + `","n":1,"o":{"blob_id":"b","mime_type":"image/png"},"a":[1,"x"]}`,
		`{"img":"data:image/png;base64,` + string(bytes.Repeat([]byte("QUJD"), 100)) + `","k":"\u2028<mark>"}`,
		`{"a":1,"a":"twice"}`,
	} {
		f.Add(seed, 40)
	}
	f.Fuzz(func(t *testing.T, doc string, limit int) {
		want, wantOK := tokenPreview(json.RawMessage(doc))
		got, gotOK := parsePreview(json.RawMessage(doc))
		if !json.Valid([]byte(doc)) {
			// The token stream took any error after the value for its end,
			// so it accepted trailing garbage ("0A0"); the walker does not.
			wantOK = false
		}
		if gotOK != wantOK {
			t.Fatalf("ok = %t, token stream %t, for %q", gotOK, wantOK, doc)
		}
		if !gotOK {
			return
		}
		bare, _ := parsePreview(json.RawMessage(doc))
		withoutRaw(bare) // the token stream has no bytes to point at
		// go-cmp diffs slices of nested pointers in time exponential in
		// the depth; a plain walk decides, go-cmp only explains.
		if !samePreview(want, bare) {
			diff := cmp.Diff(want, bare, cmp.AllowUnexported(preview{}))
			t.Fatalf("preview of %q (-token stream +walker):\n%s", doc, diff)
		}
		// The ladder a page renders from the parse is what the byte-level
		// function makes of the payload.
		if fields, ok := got.ladderFieldsOf(); ok {
			ref := contentladder.RecordRef{ConnectionID: "c", Stream: "s", RecordID: "r"}
			opt := LadderOptions{PreviewChars: 1 + abs(limit)%40, MaxEntries: 50}
			if diff := cmp.Diff(BuildLadder(ref, json.RawMessage(doc), opt), LadderFromFields(ref, fields, opt)); diff != "" {
				t.Fatalf("ladder of %q (-BuildLadder +from the parse):\n%s", doc, diff)
			}
		}
		limit = previewMinRunes + abs(limit)%(previewMaxRunes+10)
		for _, l := range []int{limit, previewMinRunes, previewMaxRunes} {
			var b bytes.Buffer
			got.render(&b, l)
			if got.size(l) != b.Len() {
				t.Fatalf("size(%d) = %d, render wrote %d bytes: %s", l, got.size(l), b.Len(), b.String())
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// withoutRaw clears every node's payload bytes. (cmpopts.IgnoreFields
// made go-cmp take minutes on deeply nested trees.)
func withoutRaw(p *preview) {
	p.raw = nil
	for _, k := range p.kids {
		withoutRaw(k)
	}
}

// samePreview is deep equality of two parses.
func samePreview(a, b *preview) bool {
	if a.kind != b.kind || a.lit != b.lit || a.str != b.str || a.runes != b.runes || (a.bin == nil) != (b.bin == nil) ||
		(a.bin != nil && *a.bin != *b.bin) || a.ascii != b.ascii || string(a.raw) != string(b.raw) ||
		len(a.kids) != len(b.kids) || !slices.Equal(a.keys, b.keys) {
		return false
	}
	for i := range a.kids {
		if !samePreview(a.kids[i], b.kids[i]) {
			return false
		}
	}
	return true
}
