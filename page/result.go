package page

import (
	"bytes"
	"encoding/json"
)

// Result is one rendered page: the text a model reads in content[], the
// same page as structuredContent JSON for a model reading JSON, and the
// resources it links to. The adapter turns it into the protocol's tool
// result; nothing here knows the protocol.
type Result struct {
	// Text is the model-visible text, every handle and item of the page.
	Text string
	// Structured is the structuredContent JSON, compact and without HTML
	// escaping (snippets carry <mark> tags).
	Structured json.RawMessage
	// Links are resources a resource-aware client may read next.
	Links []Link
}

// Link is one resource a page links to.
type Link struct {
	URI, Name, MIMEType string
}

// jsonAppender is a page that writes its own JSON, byte for byte what
// encoding/json would write, to skip re-checking bytes it wrote itself.
type jsonAppender interface{ appendJSON(dst []byte) []byte }

// MarshalNoEscape is json.Marshal without HTML escaping and without the
// trailing newline an Encoder adds.
func MarshalNoEscape(v any) []byte {
	switch v := v.(type) {
	case json.RawMessage:
		return v // already JSON, written as it is
	case jsonAppender:
		return v.appendJSON(nil)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`null`)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// result is a page's text and structured value, marshalled once.
func result(text string, structured any, links []Link) Result {
	return Result{Text: text, Structured: MarshalNoEscape(structured), Links: links}
}
