package adapter

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// maxCandidates caps available_connections in ambiguity errors.
const maxCandidates = 12

// warning is a non-fatal note carried in results (e.g. a grant that could
// not be read degrades to source_unavailable instead of failing the call).
type warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	GrantID string `json:"grant_id,omitempty"`
}

// sourceSet is one call's verified grants with their merged connection
// index: built once per call from the schema cache, then used for routing,
// labels and stream intersection.
type sourceSet struct {
	grants []Grant // every grant of the call, including ones that failed to read
	ix     *schemaindex.Index
	warns  []warning // source_unavailable for grants whose schema failed
}

// sources verifies the call's grants and merges their compact schemas.
// Every grant's kind is checked through the schema cache (one RS call per
// grant per TTL) before any data read, so an owner token never reads data
// through any tool. A grant that fails for another reason stays in the set
// and becomes a warning; the call fails only when no grant could be read.
func (s *Server) sources(ctx context.Context) (*sourceSet, *toolError) {
	grants := s.grants(ctx)
	if len(grants) == 0 {
		return nil, newAdapterError("no_credentials", "no scoped credential is available for this request")
	}
	docs, errs := s.grantSchemas(ctx, grants)
	set := &sourceSet{grants: grants}
	var ok []*schemaindex.Doc
	var firstErr error
	for i, err := range errs {
		switch {
		case errors.Is(err, errOwnerToken):
			return nil, errOwnerToken
		case err != nil:
			if firstErr == nil {
				firstErr = err
			}
			set.warns = append(set.warns, warning{Code: "source_unavailable",
				Message: fmt.Sprintf("grant %d of %d could not be read: %s", i+1, len(grants), errorCode(err))})
		default:
			ok = append(ok, docs[i])
		}
	}
	if len(ok) == 0 {
		return nil, fromError(firstErr)
	}
	set.ix = schemaindex.Merge(ok...)
	return set, nil
}

// grantSchemas reads every grant's compact schema in parallel through the
// cache (bounded by FanOutConcurrency), index-aligned with grants.
func (s *Server) grantSchemas(ctx context.Context, grants []Grant) ([]*schemaindex.Doc, []error) {
	docs := make([]*schemaindex.Doc, len(grants))
	errs := make([]error, len(grants))
	sem := make(chan struct{}, s.cfg.FanOutConcurrency)
	var wg sync.WaitGroup
	for i, g := range grants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			docs[i], errs[i] = s.schemas.get(ctx, s.rs, g)
		}()
	}
	wg.Wait()
	return docs, errs
}

// errorCode names a failure without leaking internals.
func errorCode(err error) string {
	if code := fromError(err).Code; code != "" {
		return code
	}
	return "error"
}

// route picks the grant that serves a source-required read (records,
// record, aggregate, field window). One grant needs no lookup: the RS fans
// in across that grant's connections itself. With several grants the
// connection index (membership, never health probes) decides.
func (s *Server) route(ctx context.Context, stream, connectionID string) (Grant, *toolError) {
	set, te := s.sources(ctx)
	if te != nil {
		return Grant{}, te
	}
	return set.route(stream, connectionID)
}

// route picks the grant for a source-required read within the set.
func (set *sourceSet) route(stream, connectionID string) (Grant, *toolError) {
	grants, ix := set.grants, set.ix
	if len(grants) == 1 {
		return grants[0], nil
	}
	if connectionID != "" {
		src, ok := ix.Connection(connectionID)
		if !ok {
			return Grant{}, newAdapterError("connection_not_found",
				fmt.Sprintf("connection_id %q is not part of this grant set; call schema for the connection index", connectionID),
				field{"param", "connection_id"})
		}
		return grantByKey(grants, src.GrantKey), nil
	}
	sources := ix.StreamSources(stream)
	keys := map[string]bool{}
	for _, src := range sources {
		keys[src.GrantKey] = true
	}
	switch len(keys) {
	case 0:
		return Grant{}, newAdapterError("unknown_stream",
			fmt.Sprintf("no granted source has a stream named %q; call schema for the stream index", stream),
			field{"param", "stream"})
	case 1:
		return grantByKey(grants, sources[0].GrantKey), nil
	}
	return Grant{}, ambiguityError("ambiguous_connection", ix.Candidates(stream, maxCandidates), stream)
}

func grantByKey(grants []Grant, key string) Grant {
	for _, g := range grants {
		if g.Key == key {
			return g
		}
	}
	return Grant{}
}

// ambiguityError is the bounded, typed ambiguity error of R-11 (code
// ambiguous_connection, or ambiguous_schema_detail for full schema detail),
// built from membership alone.
func ambiguityError(code string, c schemaindex.Candidates, stream string) *toolError {
	items := make([]map[string]string, 0, len(c.Items))
	for _, it := range c.Items {
		m := map[string]string{"grant_id": it.GrantID, "connector_key": it.ConnectorKey, "connection_id": it.ConnectionID}
		if it.DisplayName != "" {
			m["display_name"] = it.DisplayName
		}
		items = append(items, m)
	}
	extras := []field{
		{"retry_with", "connection_id"},
		{"available_connections", items},
		{"available_connection_count", c.Total},
	}
	if c.Truncated {
		extras = append(extras,
			field{"available_connections_truncated", true},
			field{"available_connections_omitted", c.Omitted},
			field{"discovery_hint", "call schema for the full connection index, then retry with connection_id"})
	}
	return newAdapterError(code,
		fmt.Sprintf("stream %q exists under %d sources; retry with connection_id", stream, c.Total), extras...)
}
