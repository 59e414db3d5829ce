// Package page holds what the model sees, built from typed reads within
// one byte budget, starting with the JSON-text primitives pages are
// written with: byte walks over JSON that json.Valid accepted
// (SkipJSONString, ObjectMembers), string literals encoded, sized and
// decoded exactly as encoding/json would (AppendJSONString, JSONStringLen,
// ScanString, DecodeJSONString), cuts that never split a rune or a
// highlight tag (TruncateRunes, TruncateMarked, StripMarks), the preview
// rewrite of a payload (SanitizeForPreview, with large base64 shown as a
// binary stub), classification of any manifest-declared field into
// text/JSON/binary (Classify, IsBlobRef), and each record's ladder of
// long fields with the call that reads on (BuildLadder, LadderFromFields).
//
// It is pure: functions of their arguments, no I/O. It imports no MCP
// module, not rsclient and not context; of the project it uses only
// contentladder (record identity, handles, window bounds), schemaindex
// and the shared internal utilities. The adapter calls it and wraps what
// it returns into MCP results.
package page
