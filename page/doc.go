// Package page is what the model sees: every page a tool answers with,
// built from a finished read within one byte budget, as the text a model
// reads in content[] and the same page as structuredContent JSON (both
// channels are model-visible: each carries every handle, record, hit,
// warning and suggested call).
//
// Each page kind is one entry point that takes the read and returns a
// Result {Text, Structured, Links}. The adapter reads everything first (RS
// answers, hit titles, coverage checks), converts the RS client's types
// into these reads, renders once and wraps the Result into the protocol's
// tool result:
//
//	Records(RecordsRead)       query_records        records*.go, preview_*.go
//	Search(SearchRead)         search               search*.go
//	Document(DocumentRead)     fetch, pdpp://record document*.go
//	FieldWindow(Window, …)     read_record_field    window.go
//	Aggregate(AggregateRead)   aggregate            aggregate*.go
//	SchemaIndex(GlobalView)    schema()             schema_index.go
//	SchemaStream(StreamView,…) schema(stream)       schema_stream.go, schema_source.go
//
// A record page parses each payload once (preview_parse.go) and renders
// the text line, the structured record and the content ladder from that
// parse; member_rank.go orders a record's members for a person and
// share_budget.go cuts a page's values evenly, so every record of a page
// is shown.
//
// Beneath the pages are the JSON-text primitives they are written with:
// byte walks over JSON that json.Valid accepted (SkipJSONString,
// ObjectMembers), string literals encoded, sized and decoded exactly as
// encoding/json would (AppendJSONString, JSONStringLen, ScanString,
// DecodeJSONString), cuts that never split a rune or a highlight tag
// (TruncateRunes, TruncateMarked, StripMarks), the preview rewrite of a
// payload (SanitizeForPreview, large base64 shown as a binary stub),
// classification of a field into text/JSON/binary (Classify, IsBlobRef),
// and each record's ladder of long fields with the call that reads on
// (BuildLadder, LadderFromFields).
//
// It is pure: functions of their arguments, no I/O, no clock. It imports
// no MCP module, not the RS client and not context (internal/importrules
// enforces it); of the project it uses contentladder (record identity,
// handles, window bounds, cursors), schemaindex (the schema model) and
// the shared internal utilities.
package page
