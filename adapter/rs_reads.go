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

// Schema is rsclient.Client.Schema, its refusal reported.
func (r rsReads) Schema(ctx context.Context, bearer string, q rsclient.SchemaQuery) (json.RawMessage, *rsclient.Response, error) {
	body, resp, err := r.c.Schema(ctx, bearer, q)
	reportRefusal(ctx, err)
	return body, resp, err
}

// Records is rsclient.Client.Records, its refusal reported.
func (r rsReads) Records(ctx context.Context, bearer string, q rsclient.RecordsQuery) (*rsclient.RecordList, *rsclient.Response, error) {
	list, resp, err := r.c.Records(ctx, bearer, q)
	reportRefusal(ctx, err)
	return list, resp, err
}

// Record is rsclient.Client.Record, its refusal reported.
func (r rsReads) Record(ctx context.Context, bearer string, q rsclient.RecordQuery) (*rsclient.Record, *rsclient.Response, error) {
	rec, resp, err := r.c.Record(ctx, bearer, q)
	reportRefusal(ctx, err)
	return rec, resp, err
}

// FieldWindow is rsclient.Client.FieldWindow, its refusal reported.
func (r rsReads) FieldWindow(ctx context.Context, bearer string, q rsclient.FieldWindowQuery) (*rsclient.FieldWindow, *rsclient.Response, error) {
	fw, resp, err := r.c.FieldWindow(ctx, bearer, q)
	reportRefusal(ctx, err)
	return fw, resp, err
}

// Aggregate is rsclient.Client.Aggregate, its refusal reported.
func (r rsReads) Aggregate(ctx context.Context, bearer string, q rsclient.AggregateQuery) (*rsclient.Aggregation, *rsclient.Response, error) {
	agg, resp, err := r.c.Aggregate(ctx, bearer, q)
	reportRefusal(ctx, err)
	return agg, resp, err
}

// Search is rsclient.Client.Search, its refusal reported.
func (r rsReads) Search(ctx context.Context, bearer string, q rsclient.SearchQuery) (*rsclient.SearchPage, *rsclient.Response, error) {
	page, resp, err := r.c.Search(ctx, bearer, q)
	reportRefusal(ctx, err)
	return page, resp, err
}

// ProtectedResourceMetadata is rsclient.Client.ProtectedResourceMetadata:
// a public document, read without a token, so nothing to report.
func (r rsReads) ProtectedResourceMetadata(ctx context.Context) (*rsclient.ProtectedResourceMetadata, *rsclient.Response, error) {
	return r.c.ProtectedResourceMetadata(ctx)
}

// BaseURL is the RS origin.
func (r rsReads) BaseURL() string { return r.c.BaseURL() }
