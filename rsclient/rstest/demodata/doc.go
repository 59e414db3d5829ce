// Package demodata builds the deterministic, realistic dataset that the mock
// PDPP resource server (rsclient/rstest) serves in demos, end-to-end tests
// and benchmarks.
//
// The dataset covers four connectors — Gmail (one grant over two
// connections, "Personal Gmail" and "Work Gmail"), Slack, ChatGPT and
// GitHub — plus a field-restricted Gmail grant, a revoked grant, an owner
// token and an expired token. Records follow the shapes of the embedded
// PDP-Connect fixtures and manifests (see data/NOTICE for their licences);
// their text is generated from small built-in word and phrase banks, so
// nothing outside the binary is needed.
//
// Everything is a pure function of Options: the same Options always yield a
// byte-identical Dataset, and the clock is never read. Well-known identities
// (grant, connection and record ids, and the bearer tokens of the default
// seed) are exported so tests, the demo command and docs can name them.
package demodata
