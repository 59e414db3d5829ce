package adapter

// Instructions is the server guidance sent once in `initialize`. Shared
// rules live here instead of in every tool description. The first 512
// characters stand alone (some hosts show only those): grant scope, schema
// first, connection_id, typed filters, paging.
const Instructions = "PDPP tools read one person's data through a grant-scoped token; " +
	"results never exceed the grant. Start with `schema` (index of connectors, connections, streams), " +
	"then `schema(stream)` for fields, filter operators, sort, aggregations. " +
	"When a stream exists under several sources, pass `connection_id` from schema or from an " +
	"`available_connections` error. Filters are typed objects, e.g. {\"field\":\"v\"} or " +
	"{\"field\":{\"gte\":1}}, never strings. Page with `limit` and `next_cursor`; narrow with `fields`.\n" +
	"Search hit ids are self-contained handles: pass them unchanged to `fetch`, or to " +
	"`read_record_field` for bounded windows of long text, and follow the printed continuation " +
	"arguments to read on. Prefer `aggregate` over paging when you need counts, sums or buckets. " +
	"Every handle the next step needs (cursors, ids, counts, warnings) is in the text content; " +
	"structuredContent repeats it for programs. Owner or control-plane tokens are refused."
