package adapter

import (
	"fmt"
	"math"
	"strings"

	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// A grant_id argument picks the grant that answers a source-required read
// when several cached grants serve it and none covers the others (issue
// 23: the answer must never silently come from a narrower grant, and the
// ambiguous_grant choice names the argument that picks one). It narrows
// the grants a read may use; it never widens them: the picked grant's own
// token still reads, and the RS still enforces it. The handler shape
// carries it to the source set (scope.picked).

// pickGrant keeps of keys (grants serving a read) the one grant_id picked;
// keys unchanged without a pick. An error names the grants that do serve
// the read when the picked one does not.
func (set *sourceSet) pickGrant(keys []string, stream, connectionID string) ([]string, *toolError) {
	if set.picked == "" {
		return keys, nil
	}
	var kept, serving []string
	for _, k := range keys {
		id := set.ix.GrantID(k)
		if id == set.picked {
			kept = append(kept, k)
		} else if id != "" {
			serving = append(serving, id)
		}
	}
	if len(kept) > 0 {
		return kept[:1], nil
	}
	return nil, unknownGrantError(set.picked, serving, stream, connectionID)
}

// unknownGrantError answers a grant_id that does not serve the read.
func unknownGrantError(picked string, serving []string, stream, connectionID string) *toolError {
	what := "stream " + fmt.Sprintf("%q", stream)
	if stream == "" { // a search over every stream
		what = "any stream searched"
	}
	if connectionID != "" {
		what += " on connection " + connectionID
	}
	msg := fmt.Sprintf("grant_id %q does not serve %s", truncateBytes(picked, 64), what)
	if len(serving) > 0 {
		msg += "; grants that do: " + strings.Join(serving[:min(len(serving), maxCandidates)], ", ")
	} else {
		msg += "; omit grant_id"
	}
	return newAdapterError("unknown_grant", msg, field{"param", "grant_id"})
}

// grantIDs names the grants of keys by id.
func grantIDs(ix *schemaindex.Index, keys []string) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if id := ix.GrantID(k); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// connectionChoice answers a source-required read without connection_id
// that several grants serve, none covering the others. When they all
// serve one connection, naming it would only lead to the grant choice, so
// that choice (grant_id) is the answer. Otherwise each connection is
// listed once, and a connection that several of the grants serve is named
// with the grant_id that must come with it.
func connectionChoice(ix *schemaindex.Index, grants []Grant, keys []string, stream string) *toolError {
	conns, shared := servedConnections(ix, keys, stream)
	if len(conns) == 1 {
		return grantChoiceError(ix, grants, keys, stream, conns[0])
	}
	c := distinctCandidates(ix, stream, maxCandidates)
	te := ambiguityError("ambiguous_connection", c, stream)
	for _, cn := range shared[:min(len(shared), maxCandidates)] {
		ids := grantIDs(ix, ix.ServingGrants(stream, cn))
		te.Message += fmt.Sprintf("; connection %s is served by grants %s, none covering the others: give grant_id with it",
			cn, strings.Join(ids, " and "))
		markSharedConnection(te, cn, ids)
	}
	return te
}

// markSharedConnection names, on the listed source of connection cn, the
// grants that serve it (grant_ids, comma-separated): connection_id alone
// would leave the grant to choose, so its next steps carry grant_id too.
func markSharedConnection(te *toolError, cn string, ids []string) {
	for _, f := range te.Extra {
		items, ok := f.Value.([]map[string]string)
		if f.Key != "available_connections" || !ok {
			continue
		}
		for _, it := range items {
			if it["connection_id"] == cn {
				it["grant_ids"] = strings.Join(ids, ",")
			}
		}
	}
}

// servedConnections are the distinct connections through which the grants
// keys serve stream (any stream when ""), in grant order, and those of
// them that more than one of the grants serves.
func servedConnections(ix *schemaindex.Index, keys []string, stream string) (conns, shared []string) {
	count := map[string]int{}
	for _, k := range keys {
		seen := map[string]bool{}
		for _, cov := range ix.GrantCoverage(k, stream, "") {
			for _, cn := range cov.Connections {
				if seen[cn] {
					continue
				}
				seen[cn] = true
				if count[cn]++; count[cn] == 1 {
					conns = append(conns, cn)
				} else if count[cn] == 2 {
					shared = append(shared, cn)
				}
			}
		}
	}
	return conns, shared
}

// distinctCandidates is the candidate list of stream with each connection
// once: several grants serving one connection are one place to read, and
// a list naming it twice reads like two.
func distinctCandidates(ix *schemaindex.Index, stream string, limit int) schemaindex.Candidates {
	all := ix.Candidates(stream, math.MaxInt)
	out := schemaindex.Candidates{Items: []schemaindex.Candidate{}}
	seen := map[string]bool{}
	for _, it := range all.Items {
		key := it.ConnectorKey + "\x1f" + it.ConnectionID
		if seen[key] {
			continue
		}
		seen[key] = true
		out.Total++
		if len(out.Items) < limit {
			out.Items = append(out.Items, it)
		}
	}
	if out.Total > len(out.Items) {
		out.Truncated, out.Omitted = true, out.Total-len(out.Items)
	}
	return out
}
