package adapter

import (
	"context"
	"fmt"
	"strings"

	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// A grant_id argument picks the grant that answers a source-required read
// when several cached grants serve it and none covers the others (issue
// 23: the answer must never silently come from a narrower grant, and the
// ambiguous_grant choice names the argument that picks one). It narrows
// the grants a read may use; it never widens them: the picked grant's own
// token still reads, and the RS still enforces it.

type grantChoiceKey struct{}

// withGrantChoice carries a call's grant_id to the source set it builds.
func withGrantChoice(ctx context.Context, grantID string) context.Context {
	if grantID == "" {
		return ctx
	}
	return context.WithValue(ctx, grantChoiceKey{}, grantID)
}

// grantChoice is the call's grant_id, "" when none.
func grantChoice(ctx context.Context) string {
	id, _ := ctx.Value(grantChoiceKey{}).(string)
	return id
}

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
