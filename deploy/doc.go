// Package deploy holds what runs pdpp-mcp in production: the container
// image (Dockerfile) and the Kubernetes manifests (kubernetes/). Its Go
// code reads them offline — strict decoding of every manifest into the
// Kubernetes API types, a small reader for the Dockerfile — and checks the
// operational invariants they must keep (Policy). The tests run it on the
// committed files, so `make test` fails on a manifest the API server would
// reject or a deployment that could not start or drain cleanly.
package deploy
