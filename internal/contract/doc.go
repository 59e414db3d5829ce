// Package contract proves that HTTP exchanges with a PDPP resource server
// match openapi.yaml, the RS read contract pdpp-mcp is built against.
//
// Load parses and validates the embedded document. A Validator checks one
// exchange: the route must be declared, the status declared for that
// operation, the Request-Id and PDPP-Version headers present, and the body
// valid against the response schema (JSON Schema 2020-12, as OpenAPI 3.1
// prescribes). Middleware and RoundTripper wire a Validator into tests on
// the server side (the mock RS) and the client side (the RS client), so that
// every response a test sees is also a contract check.
//
// Requests are not validated: tests deliberately send invalid queries to see
// the RS's 400s, and those answers must still match the contract.
package contract
