package adapter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/pdpp/pdpp-mcp/internal/fanout"
	"github.com/pdpp/pdpp-mcp/rsclient"
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
// index: built once per call from the schema cache, then used for name
// checks, routing, labels and stream intersection.
type sourceSet struct {
	grants []Grant // every grant of the call, including ones that failed to read
	ix     *schemaindex.Index
	warns  []warning // source_unavailable for grants whose schema failed
	// blind counts failed grants with no cached index: their streams and
	// connections are unknown, so a name missing from ix may be theirs.
	blind int
	// picked is the call's grant_id: the grant a source-required read
	// must use ("" lets routing choose).
	picked string
}

// sources verifies the call's grants and merges their compact schemas.
// Every grant's kind is checked through the schema cache (one RS call per
// grant per TTL) before any data read, so an owner token never reads data
// through any tool. A grant that fails for another reason stays in the set
// and becomes a source_unavailable warning; its last readable schema (when
// cached) keeps routing its streams. The call fails only when no grant has
// an index at all.
func (s *Server) sources(ctx context.Context, sc scope) (*sourceSet, *toolError) {
	grants, warns, te := s.grants(ctx, sc.door)
	if te != nil {
		return nil, te
	}
	docs, errs := s.grantSchemas(ctx, grants)
	s.noteRefusals(sc, grants, errs)
	set := &sourceSet{warns: warns, picked: sc.picked}
	var ok []*schemaindex.Doc
	var firstErr error
	for i, err := range errs {
		if err == nil {
			// The RS names the token's grant: cursors bind to it.
			grants[i].ID = docs[i].Bearer.GrantID
		}
		if !errors.Is(err, errOwnerToken) {
			set.grants = append(set.grants, grants[i])
		}
		switch {
		case errors.Is(err, errOwnerToken):
			// Never read through it. Beside client grants (a cache
			// re-read at runtime can bring one in, as start-up can) it is
			// left out with a warning, as start-up leaves it out; alone,
			// the call is refused.
			set.warns = append(set.warns, warning{Code: errOwnerToken.Code,
				Message: fmt.Sprintf("credential %d of %d is not a grant-scoped client token and is not used; remove it from the credential cache", i+1, len(grants))})
		case err != nil:
			if firstErr == nil {
				firstErr = err
			}
			name := s.schemas.name(grants[i].Key).describe(i, len(grants))
			w := warning{Code: "source_unavailable",
				Message: fmt.Sprintf("%s could not be read (%s); its results are missing", name, errorCode(err))}
			if last := s.schemas.lastGood(grants[i].Key); last != nil {
				ok = append(ok, last)
				w.GrantID = last.Bearer.GrantID
				set.grants[len(set.grants)-1].ID = last.Bearer.GrantID
				w.Message = fmt.Sprintf("%s could not be read (%s); its streams are routed from its last readable schema and may fail", name, errorCode(err))
			} else {
				set.blind++
			}
			set.warns = append(set.warns, w)
		default:
			ok = append(ok, docs[i])
		}
	}
	if len(set.grants) == 0 {
		return nil, errOwnerToken
	}
	if len(ok) == 0 {
		return nil, fromError(firstErr)
	}
	set.ix = schemaindex.Merge(ok...)
	return set, nil
}

// noteRefusals records, for stdio grants, each token the RS refused, so
// the next calls do not ask it again for a while (credentialSet). A hosted
// request's one grant is the transport's to challenge.
func (s *Server) noteRefusals(sc scope, grants []Grant, errs []error) {
	if sc.door != nil {
		return
	}
	for i, err := range errs {
		var rsErr *rsclient.Error
		if errors.As(err, &rsErr) && rsclient.CredentialRefused(rsErr.Status, rsErr.Code) {
			s.creds.noteRefused(grants[i].Key)
		}
	}
}

// grantSchemas reads every grant's compact schema in parallel through the
// cache (bounded by FanOutConcurrency), index-aligned with grants. A read
// still queued when ctx ends is not started: it reports ctx's error.
func (s *Server) grantSchemas(ctx context.Context, grants []Grant) ([]*schemaindex.Doc, []error) {
	if len(grants) == 1 { // the usual case: no goroutine, no slot
		doc, err := s.schemas.get(ctx, s.rs, grants[0])
		return []*schemaindex.Doc{doc}, []error{err}
	}
	return fanout.Run(ctx, len(grants), fanout.Options{Limit: s.cfg.FanOutConcurrency},
		func(ctx context.Context, i int) (*schemaindex.Doc, error) { return s.schemas.get(ctx, s.rs, grants[i]) })
}

// errorCode names a failure without leaking internals.
func errorCode(err error) string {
	if code := fromError(err).Code; code != "" {
		return code
	}
	return "error"
}

// checkNames answers, before any RS call, whether connectionID and every
// stream are granted: an unknown name is a typed, bounded error
// listing what is granted. A name missing while some grant could not be
// read may be that grant's, so the answer is source_unavailable instead.
func (set *sourceSet) checkNames(connectionID string, streams ...string) *toolError {
	if len(streams) == 0 {
		streams = []string{""}
	}
	for _, st := range streams {
		err := set.ix.CheckNames(st, connectionID)
		if err == nil {
			continue
		}
		if set.blind > 0 {
			name, param := st, "stream"
			if errors.Is(err, schemaindex.ErrUnknownConnection) {
				name, param = connectionID, "connection_id"
			}
			return newAdapterError("source_unavailable",
				fmt.Sprintf("%s %q is not in the grants that could be read; %d grant(s) could not be read and may hold it: retry shortly, or call schema", param, name, set.blind),
				field{"param", param})
		}
		return nameError(set.ix, err, "")
	}
	return nil
}

// nameError turns a schemaindex name-lookup error into the typed adapter
// error of R-11 (unknown_stream or unknown_connection), with the granted
// names capped at maxCandidates, their total and a truncation flag. rsCode,
// when set, is the RS code that refused the name (e.g. a 401
// context.stream_not_allowed): it is a grant error, never an
// authentication failure.
func nameError(ix *schemaindex.Index, err error, rsCode string) *toolError {
	var us *schemaindex.UnknownStreamError
	var uc *schemaindex.UnknownConnectionError
	var extras []field
	var code, msg string
	switch {
	case errors.As(err, &uc):
		c := distinctCandidates(ix, "", maxCandidates)
		code, msg = "unknown_connection", fmt.Sprintf("connection_id %q is not part of this grant set", uc.ConnectionID)
		extras = append(extras, field{"param", "connection_id"},
			field{"available_connections", candidateItems(c)}, field{"available_connection_count", c.Total})
		if c.Truncated {
			extras = append(extras, field{"available_connections_truncated", true})
		}
	case errors.As(err, &us):
		code, msg = "unknown_stream", us.Error()
		extras = append(extras, field{"param", "stream"},
			field{"granted_streams", us.Known}, field{"granted_stream_count", us.Total})
		if us.Total > len(us.Known) {
			extras = append(extras, field{"granted_streams_truncated", true})
		}
	default:
		return fromError(err)
	}
	if rsCode != "" {
		msg = "the resource server refused this name for the grant (" + rsCode + "): " + msg
		extras = append(extras, field{"rs_code", rsCode})
	}
	extras = append(extras, field{"discovery_hint", "call schema for the granted streams and connections"})
	te := newAdapterError(code, msg+"; call schema for the index", extras...)
	te.Next = []string{"the granted streams and connections: schema {}"}
	return te
}

// rsError maps an RS failure of a read routed through grant g. An RS 401
// with a context.* code (the stream or connection is outside the grant,
// D2) is a grant error listing what is granted, never an authentication
// failure: a host must not restart sign-in for it. The grant's cached
// schema is dropped so the next call sees the RS's current grant.
func (s *Server) rsError(set *sourceSet, g Grant, err error, stream, connectionID string) *toolError {
	// No RS read for these steps (mayRead false), so no context is needed.
	return s.rsRefusal(context.Background(), set, g, err, refusedRead{stream: stream, connectionID: connectionID})
}

// rsRefusal is rsError for a read whose arguments the next steps use: the
// refused call r (its filter, sort, search), and ctx for the one RS read
// r.mayRead allows.
func (s *Server) rsRefusal(ctx context.Context, set *sourceSet, g Grant, err error, r refusedRead) *toolError {
	stream, connectionID := r.stream, r.connectionID
	var rsErr *rsclient.Error
	if !errors.As(err, &rsErr) || rsErr.Status != http.StatusUnauthorized || !strings.HasPrefix(rsErr.Code, "context.") {
		te := fromError(err)
		if rsErr != nil && te.Code == rsErr.Code {
			te.Next = s.refusalSteps(ctx, set, g, rsErr, r)
		}
		return te
	}
	s.schemas.forget(g)
	if rsErr.Code == "context.instance_mismatch" && connectionID != "" {
		return nameError(set.ix, set.ix.UnknownConnection(connectionID), rsErr.Code)
	}
	return nameError(set.ix, set.ix.UnknownStream(stream, connectionID), rsErr.Code)
}

// route builds the call's source set and routes one source-required read
// through it. The set comes back even with a routing error (nil only when
// it could not be built) so the result can carry its warnings.
func (s *Server) route(ctx context.Context, sc scope, stream, connectionID string) (Grant, *sourceSet, *toolError) {
	set, te := s.sources(ctx, sc)
	if te != nil {
		return Grant{}, nil, te
	}
	g, te := set.route(stream, connectionID)
	return g, set, te
}

// route checks the names, then picks the grant that serves a
// source-required read (records, record, aggregate, field window). One
// grant needs no lookup: the RS fans in across that grant's connections
// itself. With several grants the connection index (membership, never
// health probes) decides.
func (set *sourceSet) route(stream, connectionID string) (Grant, *toolError) {
	if te := set.checkNames(connectionID, stream); te != nil {
		return Grant{}, te
	}
	grants, ix := set.grants, set.ix
	if len(grants) == 1 && set.picked == "" {
		return grants[0], nil
	}
	serving := ix.ServingGrants(stream, connectionID)
	keys, te := set.pickGrant(serving, stream, connectionID)
	if te != nil {
		return Grant{}, te
	}
	if len(keys) == 1 {
		g := grantByKey(grants, keys[0])
		if len(serving) > 1 {
			set.warns = append(set.warns, warning{Code: "grant_chosen", GrantID: g.ID,
				Message: fmt.Sprintf("%d cached grants serve this read; answered by grant %s (%s), as grant_id asked", len(serving), g.ID, grantLabel(ix, g.Key))})
		}
		return g, nil
	}
	// Several grants serve the read (overlapping grants): never let cache
	// order pick a narrower one. The grant that covers the others (every
	// stream, connection and field they give) answers, and the result
	// says so.
	if key, ok := widestGrant(ix, keys, stream, connectionID); ok {
		g := grantByKey(grants, key)
		set.warns = append(set.warns, chosenGrantNote(ix, g, len(keys), stream, connectionID))
		return g, nil
	}
	if connectionID == "" {
		return Grant{}, connectionChoice(ix, grants, keys, stream)
	}
	return Grant{}, grantChoiceError(ix, grants, keys, stream, connectionID)
}

// widestGrant is the one grant among keys whose coverage of the request
// includes every other's; ok is false when none does, or when several
// distinct grants cover exactly the same (the schema cannot tell them
// apart, e.g. by a time window, so neither may be picked silently).
// Tokens of the same grant id are one grant.
func widestGrant(ix *schemaindex.Index, keys []string, stream, connectionID string) (string, bool) {
	covs := make([]schemaindex.Coverage, len(keys))
	ids := make([]string, len(keys))
	for i, k := range keys {
		covs[i] = ix.GrantCoverage(k, stream, connectionID)
		ids[i] = ix.GrantID(k)
	}
	var widest []int
	for i := range keys {
		if !slices.ContainsFunc(covs, func(o schemaindex.Coverage) bool { return !covs[i].Covers(o) }) {
			widest = append(widest, i)
		}
	}
	if len(widest) == 0 {
		return "", false
	}
	for _, w := range widest[1:] {
		if ids[w] == "" || ids[w] != ids[widest[0]] {
			return "", false
		}
	}
	return keys[widest[0]], true
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
	extras := []field{
		{"retry_with", "connection_id"},
		{"available_connections", candidateItems(c)},
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

// candidateItems renders candidates as {grant_id, connector_key,
// connection_id, display_name} objects.
func candidateItems(c schemaindex.Candidates) []map[string]string {
	items := make([]map[string]string, 0, len(c.Items))
	for _, it := range c.Items {
		m := map[string]string{"grant_id": it.GrantID, "connector_key": it.ConnectorKey, "connection_id": it.ConnectionID}
		if it.DisplayName != "" {
			m["display_name"] = it.DisplayName
		}
		items = append(items, m)
	}
	return items
}

// chosenGrantNote tells the result which grant answered a read several
// grants could serve, and why that one (a note carried with the result's
// warnings, so text and structuredContent both say it).
func chosenGrantNote(ix *schemaindex.Index, g Grant, n int, stream, connectionID string) warning {
	what := "stream " + strconv.Quote(stream)
	if stream == "" {
		what = "this read"
	}
	if connectionID != "" {
		what += " on connection " + connectionID
	}
	id := g.ID
	if id == "" {
		id = "(unnamed grant)"
	}
	return warning{Code: "grant_chosen", GrantID: g.ID,
		Message: fmt.Sprintf("%d cached grants serve %s; answered by grant %s (%s), which covers every stream, connection and field the others give", n, what, id, grantLabel(ix, g.Key))}
}

// grantLabel names a grant for people: its connector and connection labels.
func grantLabel(ix *schemaindex.Index, key string) string {
	labels := ix.GrantLabels(key)
	if len(labels) == 0 {
		return "no readable schema"
	}
	return strings.Join(labels, ", ")
}

// grantChoiceError is the typed, bounded answer when several grants serve
// a read and none covers the others: each candidate names its grant id,
// label and what it gives of the request, so the person can say which
// grant they mean.
func grantChoiceError(ix *schemaindex.Index, grants []Grant, keys []string, stream, connectionID string) *toolError {
	items := make([]map[string]any, 0, min(len(keys), maxCandidates))
	for _, k := range keys[:min(len(keys), maxCandidates)] {
		cov := ix.GrantCoverage(k, stream, connectionID)
		fields := 0
		for _, sc := range cov {
			fields += len(sc.Fields)
		}
		items = append(items, map[string]any{"grant_id": grantByKey(grants, k).ID, "label": grantLabel(ix, k),
			"streams": len(cov), "granted_fields": fields})
	}
	extras := []field{{"param", "grant_id"}, {"retry_with", "grant_id"}, {"available_grants", items}, {"available_grant_count", len(keys)}}
	if len(keys) > maxCandidates {
		extras = append(extras, field{"available_grants_truncated", true})
	}
	return newAdapterError("ambiguous_grant",
		fmt.Sprintf("%d cached grants serve connection %s and none covers the others (each gives streams or fields the other lacks), so no answer would be complete; retry with grant_id set to the grant you mean (%s)", len(keys), connectionID, strings.Join(grantIDs(ix, keys), " or ")),
		extras...)
}
