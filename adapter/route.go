package adapter

import (
	"context"
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

// sourceIndex merges the compact schemas of every grant in the source set.
// Grants are read in parallel through the schema cache; a failing grant
// becomes a warning. It fails only when no grant could be read.
func (s *Server) sourceIndex(ctx context.Context, grants []Grant) (*schemaindex.Index, []warning, error) {
	docs, errs := s.grantSchemas(ctx, grants)
	var ok []*schemaindex.Doc
	var warns []warning
	var firstErr error
	for i, d := range docs {
		if errs[i] != nil {
			if firstErr == nil {
				firstErr = errs[i]
			}
			warns = append(warns, warning{Code: "source_unavailable",
				Message: fmt.Sprintf("grant %d of %d could not be read: %s", i+1, len(grants), errorCode(errs[i]))})
			continue
		}
		ok = append(ok, d)
	}
	if len(ok) == 0 {
		if firstErr == nil {
			firstErr = fmt.Errorf("no grant is configured")
		}
		return nil, warns, firstErr
	}
	return schemaindex.Merge(ok...), warns, nil
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
	te := fromError(err)
	var env struct {
		Code string `json:"code"`
	}
	_ = jsonUnmarshal(te.Envelope, &env)
	if env.Code == "" {
		return "error"
	}
	return env.Code
}

// route picks the grant that serves a source-required read (records,
// record, aggregate, field window). One grant needs no lookup: the RS fans
// in across that grant's connections itself. With several grants the
// connection index (membership, never health probes) decides.
func (s *Server) route(ctx context.Context, stream, connectionID string) (Grant, *toolError) {
	grants, te := s.sourceGrants(ctx)
	if te != nil {
		return Grant{}, te
	}
	if len(grants) == 1 {
		return grants[0], nil
	}
	ix, _, err := s.sourceIndex(ctx, grants)
	if err != nil {
		return Grant{}, fromError(err)
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
	return Grant{}, ambiguityError(ix.Candidates(stream, maxCandidates), stream)
}

func grantByKey(grants []Grant, key string) Grant {
	for _, g := range grants {
		if g.Key == key {
			return g
		}
	}
	return Grant{}
}

// ambiguityError is the bounded, typed ambiguous_connection of R-11, built
// from membership alone.
func ambiguityError(c schemaindex.Candidates, stream string) *toolError {
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
	return newAdapterError("ambiguous_connection",
		fmt.Sprintf("stream %q exists under %d sources; retry with connection_id", stream, c.Total), extras...)
}
