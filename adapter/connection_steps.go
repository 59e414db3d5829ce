package adapter

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// withConnectionSteps gives an ambiguous_connection refusal one next step
// per listed source: the very call the model made, with that source's
// connection_id. The error already lists the sources; a model reading
// only next_steps (several hosts surface them first) otherwise found no
// call that picks one and retried the same ambiguous call.
func withConnectionSteps(tool string, args json.RawMessage, res *mcp.CallToolResult) *mcp.CallToolResult {
	te := resultError(res)
	if te == nil || te.Code != "ambiguous_connection" || len(te.Next) > 0 {
		return res
	}
	members, err := orderedObject(args)
	if err != nil {
		return res
	}
	var steps []string
	for _, f := range te.Extra {
		items, ok := f.Value.([]map[string]string)
		if f.Key != "available_connections" || !ok {
			continue
		}
		for _, it := range items {
			steps = append(steps, sourceSteps(tool, members, it)...)
		}
	}
	if len(steps) == 0 {
		return res
	}
	stepped := *te
	stepped.Next = steps
	return errorResult(&stepped)
}

// sourceSteps are the calls that read one listed source: the call made
// with its connection_id, and, where several grants serve the connection
// and none covers the others (grant_ids), one such call per grant with
// its grant_id, since connection_id alone would leave the grant to choose.
func sourceSteps(tool string, members []kv, it map[string]string) []string {
	call := make([]field, 0, len(members)+2)
	for _, m := range members {
		if m.key != "connection_id" && m.key != "grant_id" {
			call = append(call, field{m.key, m.value})
		}
	}
	call = append(call, field{"connection_id", it["connection_id"]})
	source := it["connector_key"]
	if it["display_name"] != "" {
		source = it["display_name"] + " (" + source + ")"
	}
	if it["grant_ids"] == "" {
		return []string{fmt.Sprintf("to read %s: %s %s", source, tool, orderedJSON(call))}
	}
	var steps []string
	for _, id := range strings.Split(it["grant_ids"], ",") {
		withGrant := append(slices.Clone(call), field{"grant_id", id})
		steps = append(steps, fmt.Sprintf("to read %s through grant %s: %s %s", source, id, tool, orderedJSON(withGrant)))
	}
	return steps
}
