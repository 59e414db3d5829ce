// Package rsclient is the REST client the MCP adapter uses to read from a
// PDPP resource server (RS).
//
// It is deliberately thin and stateless: every call takes the bearer
// explicitly, so one Client serves many grants; it sends exactly one HTTP
// request per call (no retries, no redirects), bounds every response body,
// reads each body once and decodes it once into the typed result, after
// checking that a 2xx answer has the route's shape (else CodeInvalidResponse).
// Only what a caller passes on unchanged is kept verbatim: Aggregation.Raw,
// the schema and stream-metadata documents, and Error.Envelope.
//
// Wire compatibility with the reference TypeScript adapter matters more than
// Go idiom here: path segments are encoded like JS encodeURIComponent and
// query strings like WHATWG URLSearchParams, in a fixed parameter order, so
// the RS sees byte-identical requests from either adapter.
//
// The bearer never appears in an error message, a log line or Error().
package rsclient
