package adapter

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

var schemaTool = toolSpec{
	Name:  "schema",
	Title: "Get PDPP schema",
	Description: "List granted connectors, connections and streams (a compact index). " +
		"With stream (plus connection_id when the name is shared), list each source's fields with types, " +
		"filter operators, sort, count, fields projection, aggregations, expand relations and search modes. " +
		`detail:"full" adds each field's JSON Schema type and format; needs stream.` + wholePage,
	Handle: schemaLogic.handle,
}

type schemaArgs struct {
	Stream       string `json:"stream"`
	ConnectionID string `json:"connection_id"`
	Detail       string `json:"detail"`
}

// schemaLogic is schema's part of a call: the index of every granted
// source, or one stream's page. It takes no grant_id: the index shows
// every grant.
var schemaLogic = toolLogic[schemaArgs, struct{}]{
	check: func(_ *Server, a *schemaArgs) (struct{}, *toolError) { return struct{}{}, a.check() },
	run:   readSchema,
}

// readSchema renders the index, or reads what one stream's page needs
// (the search modes, the capability probes, detail:"full"'s types) and
// renders it.
func readSchema(ctx context.Context, c *routedCall, a schemaArgs, _ struct{}) (*mcp.CallToolResult, *toolError) {
	s, set := c.s, c.set
	if a.Stream == "" {
		return schemaIndex(set, a.ConnectionID), nil
	}
	if te := set.checkNames(a.ConnectionID, a.Stream); te != nil {
		return nil, te
	}
	modes, known := s.offeredModes(ctx)
	if !known {
		set.warns = append(set.warns, modesUncheckedWarning)
	}
	view, err := set.ix.Stream(a.Stream, a.ConnectionID, modes)
	if err != nil {
		return nil, nameError(set.ix, err, "")
	}
	if a.Detail != "full" {
		s.learnCapabilities(ctx, set, &view)
		text, data := page.SchemaStream(view, "")
		return textResult(withWarnings(text, set.warns), schemaResult[page.SchemaStreamPage]{Data: data, Warnings: warningLines(set.warns)}), nil
	}
	// The exhaustive document and the capability probes are independent
	// reads: one round trip for both, not two in sequence.
	var full fullTypes
	var wg sync.WaitGroup
	wg.Go(func() { full = s.readFullTypes(ctx, set, a) })
	s.learnCapabilities(ctx, set, &view)
	wg.Wait()
	if full.failed != nil {
		return full.failed, nil
	}
	text, data := page.SchemaStream(view, full.types)
	return textResult(withWarnings(text, set.warns), schemaResult[page.SchemaStreamPage]{Data: data, Warnings: warningLines(set.warns)}), nil
}

// fullTypes is detail:"full"'s part from the RS: the JSON Schema types
// line of the exhaustive document, or the call's error result.
type fullTypes struct {
	types  string
	failed *mcp.CallToolResult
}

// check rejects what needs no RS: bad segments, and detail:"full" without
// a stream (a grant-wide exhaustive schema can be megabytes).
func (a schemaArgs) check() *toolError {
	if a.Detail == "full" && a.Stream == "" {
		return newAdapterError("invalid_request",
			`detail:"full" needs a stream; call schema() for the index, then schema(stream, connection_id, detail:"full")`,
			field{"param", "detail"}, field{"retry_with", "stream"})
	}
	return validateSegments(seg{"stream", a.Stream}, seg{"connection_id", a.ConnectionID})
}

// schemaIndex is the grant-wide index, or one connection's part of it.
func schemaIndex(set *sourceSet, connectionID string) *mcp.CallToolResult {
	view := set.ix.Global()
	if connectionID != "" {
		src, ok := set.ix.Connection(connectionID)
		if !ok {
			return set.annotate(errorResult(set.checkNames(connectionID)))
		}
		view = view.Scoped(src)
	}
	text, data := page.SchemaIndex(view)
	return textResult(withWarnings(text, set.warns), schemaResult[page.SchemaIndexPage]{Data: data, Warnings: warningLines(set.warns)})
}

// readFullTypes reads the RS's exhaustive document for one source and
// returns its JSON Schema types line (detail:"full"). It reads only set's
// index, never the stream view, so it runs beside the capability probes.
func (s *Server) readFullTypes(ctx context.Context, set *sourceSet, a schemaArgs) fullTypes {
	if a.ConnectionID == "" && set.ix.NeedsConnection(a.Stream) {
		return fullTypes{failed: errorResult(ambiguityError("ambiguous_schema_detail", set.ix.Candidates(a.Stream, maxCandidates), a.Stream))}
	}
	g, te := set.route(a.Stream, a.ConnectionID)
	if te != nil {
		return fullTypes{failed: set.annotate(errorResult(te))}
	}
	body, _, err := s.rs.Schema(ctx, g.Bearer, rsclient.SchemaQuery{Detail: "full", Stream: a.Stream, ConnectionID: a.ConnectionID})
	if err != nil {
		return fullTypes{failed: set.annotate(errorResult(s.rsError(set, g, err, a.Stream, a.ConnectionID)))}
	}
	full, te := dedupeFullSchema(body)
	if te != nil {
		return fullTypes{failed: errorResult(te)}
	}
	types, err := page.SchemaFullTypes(full)
	if err != nil {
		return fullTypes{failed: errorResult(newAdapterError("invalid_response", "the resource server returned a full schema that cannot be read: "+err.Error()))}
	}
	return fullTypes{types: types}
}

// schemaResult is schema's structuredContent: the index or the stream page
// directly under data (never data.data), the text's warning lines beside
// it. detail:"full" adds the JSON Schema types line the text shows, not the
// RS's exhaustive document: hosts hand the model structuredContent, and
// the document is several times the page.
type schemaResult[T page.SchemaIndexPage | page.SchemaStreamPage] struct {
	Data     T        `json:"data"`
	Warnings []string `json:"warnings,omitempty"`
}

func (schemaResult[T]) toolOutput() {}

// withWarnings appends the source warnings' lines to a schema page's
// text, as every page shows them.
func withWarnings(text string, warns []warning) string {
	return page.WithWarnings(text, pageWarnings(warns))
}

// warningLines are the source warnings as the text's lines, which
// structuredContent carries as they are.
func warningLines(warns []warning) []string { return page.WarningLines(pageWarnings(warns)) }

// searchModes lists the retrieval modes the RS advertises; lexical when
// the metadata cannot be read within Waits.SearchMetadata (lexical is always mounted).
func (s *Server) searchModes(ctx context.Context) []string {
	modes, _ := s.offeredModes(ctx)
	return modes
}

// modesUncheckedWarning says the RS's modes could not be read: semantic
// and hybrid are then neither offered nor denied (R-3: unchecked is not "none").
var modesUncheckedWarning = warning{Code: "search_modes_unchecked",
	Message: `the resource server's search metadata could not be read now, so only lexical search is listed; semantic and hybrid may still be offered: try search with "mode":"semantic"`}

// offeredModes is searchModes and whether the metadata was read: when it
// was not, lexical (always mounted) is all that is known.
func (s *Server) offeredModes(ctx context.Context) ([]string, bool) {
	ctx, cancel := within(ctx, s.cfg.Waits.SearchMetadata)
	defer cancel()
	prm, err := s.prm.get(ctx, s.rs)
	if err != nil {
		return []string{"lexical"}, false
	}
	var modes []string
	for _, m := range []string{"lexical", "semantic", "hybrid"} {
		if prm.SupportsMode(m) {
			modes = append(modes, m)
		}
	}
	if len(modes) == 0 {
		modes = []string{"lexical"}
	}
	return modes, true
}

// dedupeFullSchema keeps the RS's exhaustive document but drops what would
// repeat: a top-level `streams` list beside connector-nested streams, and
// the REST `links`. The result goes directly under structuredContent.data.
func dedupeFullSchema(body json.RawMessage) (json.RawMessage, *toolError) {
	members, err := orderedObject(body)
	if err != nil {
		return nil, newAdapterError("invalid_response", "the resource server returned a schema that is not a JSON object")
	}
	hasConnectors := false
	for _, m := range members {
		if m.key == "connectors" && len(m.value) > 2 {
			hasConnectors = true
		}
	}
	fields := make([]field, 0, len(members))
	for _, m := range members {
		if m.key == "links" || (m.key == "streams" && hasConnectors) {
			continue
		}
		fields = append(fields, field{m.key, m.value})
	}
	return orderedJSON(fields), nil
}
