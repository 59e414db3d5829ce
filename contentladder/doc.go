// Package contentladder holds the identity and continuation primitives the
// content ladder's pages point with: record ids (the
// `connection_id/stream:record_id` grammar, its legacy and URI forms, and
// the segment rules every id part passes before it reaches a URL); opaque
// URL-safe handles for the `pdpp://record/{handle}` and
// `pdpp://field-window/{handle}` resources, with the read_record_field
// window bounds they carry; signed continuation cursors for
// read_record_field, bound to grant, record, field and expiry; sealed
// opaque payloads for the adapter's other page cursors (SealPayload,
// OpenPayload); and the typed *Error whose codes and reasons tool errors
// carry.
//
// It is a leaf: standard library only, no MCP types, no other project
// packages. What a page shows (classification, ladder entries, previews,
// JSON-text primitives) lives in package page, which builds on this one.
// Nothing here grants authority: ids, handles and cursors only name what
// to read; every read still goes through the caller's token and the
// resource server's enforcement.
package contentladder
