// Package rsclient is the REST client the MCP adapter uses to read from a
// PDPP resource server (RS).
//
// It is deliberately thin and stateless: every call takes the bearer
// explicitly, so one Client serves many grants; it sends exactly one HTTP
// request per call (no retries, no redirects), bounds every response body,
// reads each body once and decodes it once into the typed result, after
// checking that a 2xx answer has the route's shape (else CodeInvalidResponse).
// Only what a caller passes on unchanged is kept verbatim: Aggregation.Raw,
// the schema and stream-metadata documents, and Error.Envelope. Decoding
// reads each byte of a body once, validating as it goes (decodeObject),
// and the verbatim members of a result (Record.Data, scores, group keys)
// are the body's own bytes, not copies (see Response).
//
// The HTTP layer is resty (github.com/go-resty/resty/v2) over a tuned
// net/http keep-alive pool (newTransport), with no cookie jar, no retries
// and a redirect policy that returns every 3xx unfollowed. resty runs in
// raw-body mode (SetDoNotParseResponse): it sends the request and hands
// back the unread body, which rsclient then reads exactly once under the
// Client-wide byte budget (MaxBytesInFlight) and decodes exactly once. Left
// to itself resty would first copy every body into a buffer of its own,
// outside the budget and grown 512 bytes at a time: a second read of
// each answer and unbounded memory under concurrency. Each URL is built here in full and handed
// to resty as one string, never through resty's query or path parameters,
// so resty does not re-encode it.
//
// Wire compatibility with the reference TypeScript adapter matters more than
// Go idiom here: path segments are encoded like JS encodeURIComponent and
// query strings like WHATWG URLSearchParams, in a fixed parameter order, so
// the RS sees byte-identical requests from either adapter.
//
// The bearer never appears in an error message, a log line or Error().
package rsclient
