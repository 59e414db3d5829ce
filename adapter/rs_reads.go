package adapter

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// rsReads is the RS client as the adapter reads through it: every read
// made with a token whose answer refuses that token
// (rsclient.CredentialRefused) is reported to the call's Request, however
// deep in the call it was made — the tool's own read, a schema read, a
// hit title, a capability probe. The transport hears of a refusal there
// and nowhere else (Request.CredentialRefused), and the RS client knows
// nothing of requests.
type rsReads struct{ c *rsclient.Client }

// reportRefusal tells ctx's Request when err is the RS refusing the
// read's token.
func reportRefusal(ctx context.Context, err error) {
	var e *rsclient.Error
	if err != nil && errors.As(err, &e) && rsclient.CredentialRefused(e.Status, e.Code) {
		requestOf(ctx).credentialRefused()
	}
}

// reported passes one read's outcome on once its refusal, if any, is
// reported: reported[T](ctx)(r.c.Read(ctx, …)).
func reported[T any](ctx context.Context) func(T, *rsclient.Response, error) (T, *rsclient.Response, error) {
	return func(v T, resp *rsclient.Response, err error) (T, *rsclient.Response, error) {
		reportRefusal(ctx, err)
		return v, resp, err
	}
}

// Schema is rsclient.Client.Schema, its refusal reported.
func (r rsReads) Schema(ctx context.Context, bearer string, q rsclient.SchemaQuery) (json.RawMessage, *rsclient.Response, error) {
	return reported[json.RawMessage](ctx)(r.c.Schema(ctx, bearer, q))
}

// Records is rsclient.Client.Records, its refusal reported.
func (r rsReads) Records(ctx context.Context, bearer string, q rsclient.RecordsQuery) (*rsclient.RecordList, *rsclient.Response, error) {
	return reported[*rsclient.RecordList](ctx)(r.c.Records(ctx, bearer, q))
}

// Record is rsclient.Client.Record, its refusal reported.
func (r rsReads) Record(ctx context.Context, bearer string, q rsclient.RecordQuery) (*rsclient.Record, *rsclient.Response, error) {
	return reported[*rsclient.Record](ctx)(r.c.Record(ctx, bearer, q))
}

// FieldWindow is rsclient.Client.FieldWindow, its refusal reported.
func (r rsReads) FieldWindow(ctx context.Context, bearer string, q rsclient.FieldWindowQuery) (*rsclient.FieldWindow, *rsclient.Response, error) {
	return reported[*rsclient.FieldWindow](ctx)(r.c.FieldWindow(ctx, bearer, q))
}

// Aggregate is rsclient.Client.Aggregate, its refusal reported.
func (r rsReads) Aggregate(ctx context.Context, bearer string, q rsclient.AggregateQuery) (*rsclient.Aggregation, *rsclient.Response, error) {
	return reported[*rsclient.Aggregation](ctx)(r.c.Aggregate(ctx, bearer, q))
}

// Search is rsclient.Client.Search, its refusal reported.
func (r rsReads) Search(ctx context.Context, bearer string, q rsclient.SearchQuery) (*rsclient.SearchPage, *rsclient.Response, error) {
	return reported[*rsclient.SearchPage](ctx)(r.c.Search(ctx, bearer, q))
}

// ProtectedResourceMetadata is rsclient.Client.ProtectedResourceMetadata:
// a public document, read without a token, so nothing to report.
func (r rsReads) ProtectedResourceMetadata(ctx context.Context) (*rsclient.ProtectedResourceMetadata, *rsclient.Response, error) {
	return r.c.ProtectedResourceMetadata(ctx)
}

// BaseURL is the RS origin.
func (r rsReads) BaseURL() string { return r.c.BaseURL() }
