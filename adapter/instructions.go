package adapter

// Instructions is the server guidance sent once in `initialize`. Shared
// rules live here instead of in every tool description. The first 512
// characters stand alone (some hosts show only those): grant scope, schema
// first, connection_id, paging by cursor (query_records with the same stream
// and connection_id, which its cursor checks; search by the cursor alone), and filters only where
// schema advertises operators (the real RS refuses every client-token
// filter, D14, so they are not the first move).
const Instructions = "PDPP tools read one person's data through a grant-scoped token; " +
	"results never exceed the grant. Start with `schema` (the index), then `schema(stream)` for fields, " +
	"sort, search and aggregations. " +
	"When a stream exists under several sources, pass `connection_id` from schema or an " +
	"`available_connections` error. Page with `limit`, then `cursor` = the printed next_cursor " +
	"plus the same `stream` and `connection_id` (search: cursor alone). " +
	"Narrow with `search`, `sort`, `fields`, `aggregate`; use typed `filter` objects only where schema lists operators.\n" +
	"next_changes_since is the bookmark after a changes feed's last page. " +
	"Search hit ids are self-contained handles: pass them unchanged to `fetch`, or to " +
	"`read_record_field` for bounded windows of long text, and follow the printed continuation " +
	"arguments to read on. Where `schema(stream)` says a capability is not advertised, it names what to try instead. Prefer `aggregate` over paging when you need counts, sums or buckets. " +
	"Every handle the next step needs is in the text content, and structuredContent is the whole page " +
	"as JSON: a script prints structuredContent alone. Owner or control-plane tokens are refused."

// wholePage ends every tool description: hosts that run model-written
// code on results (Codex's code mode) hand the script content and
// structuredContent together, and printing both doubles what the model
// reads; structuredContent alone is the page with every handle.
const wholePage = " structuredContent is the whole page: print it alone."
