package page

import "github.com/pdpp/pdpp-mcp/contentladder"

// DocumentRead is one fetched record, everything its document is
// rendered from.
type DocumentRead struct {
	// RequestedID is the id the call gave, which the document keeps.
	RequestedID string
	Ref         contentladder.RecordRef
	Record      Record
	// Fields are the requested fields (none for all): the payload is
	// projected to them first, so nothing unrequested reaches the text,
	// the title or the metadata even when the RS ignored the projection.
	Fields []string
	// BaseURL is the RS's address, which the document's url names.
	BaseURL string
	// SourceWarnings ride in the document's metadata.
	SourceWarnings []Warning
	// Bytes bounds the document: its text is cut shorter than usual where
	// the whole would pass it (0: not bounded).
	Bytes int
}

// Document renders a fetched record as the search-fetch document {id,
// title, text, url, metadata}: the same object is the text and the
// structuredContent.
func Document(r DocumentRead) Result {
	var body []byte
	if r.Bytes > 0 {
		body = fitDocument(r.RequestedID, r.Ref, &r.Record, r.Fields, r.BaseURL, r.SourceWarnings, r.Bytes)
	} else {
		doc := buildDocument(r.RequestedID, r.Ref, &r.Record, r.Fields, r.BaseURL)
		if len(r.SourceWarnings) > 0 {
			doc.Metadata.Warnings = r.SourceWarnings
		}
		body = MarshalNoEscape(doc)
	}
	return Result{Text: string(body), Structured: body}
}
