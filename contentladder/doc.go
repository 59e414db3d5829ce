// Package contentladder holds the adapter's content-ladder primitives: record
// identity (the `connection_id/stream:record_id` grammar and its legacy and
// URI forms), opaque URL-safe handles for the `pdpp://record/{handle}` and
// `pdpp://field-window/{handle}` resources, signed continuation cursors for
// read_record_field, classification of arbitrary manifest-declared fields
// into text/JSON/binary, per-record ladder entries for
// structuredContent.content_ladder, and bounded text helpers that never split
// a rune or a highlight tag.
//
// It is a leaf: standard library only, no MCP types, no other project
// packages. Nothing here grants authority: ids, handles and cursors only
// name what to read; every read still goes through the caller's token and
// the resource server's enforcement.
package contentladder
