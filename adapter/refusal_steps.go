package adapter

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// maxFieldSuggestions bounds the "did you mean" field list of a refusal.
const maxFieldSuggestions = 5

// maxScanFields bounds the fields a scan step names besides its sort and
// filter fields.
const maxScanFields = 3

// clientTokenRefusal is how the RS refuses every filter[...] and expand[]
// from a client token: "filter[...] is not supported for client-token
// reads in PDPP v0.1" (expand[] likewise).
const clientTokenRefusal = "not supported for client-token reads"

// quotedName finds the field an RS refusal names: 'subjet' or ": subjet".
var quotedName = regexp.MustCompile(`'([^']+)'|: ([A-Za-z0-9_.]+)$`)

// refusedRead is the read the RS refused, as its next steps need it: every
// step is a call that runs as written — no placeholder, and nothing the RS
// is known to refuse.
type refusedRead struct {
	tool         string // query_records, aggregate, search, fetch; "" when another read
	stream       string
	connectionID string
	filter       rsclient.Filter
	fields       []string // the fields asked (query_records, fetch)
	sort         string   // the sort asked, e.g. "-recieved_at"
	id           string   // a refused fetch's id
	metric       string   // a refused aggregate's metric and field
	field        string
	search       *searchArgs
	// mayRead allows the one RS read that checks a sort step when no
	// capability probe of the stream is cached: a refusal costs at most
	// one extra RS read.
	mayRead bool
}

// refusalSteps are the calls that work after an RS refusal of read r, so
// the model is never left with the RS's words alone: a refused client-token
// filter gets the alternatives that answer what it asked (the search for
// its text, the checked sort for a time range, a scan with the filtered
// field for the rest), a refused expand the same read without it, a
// refused sort the nearest names and the sort the RS takes, an unknown or
// ungranted field the closest granted names.
func (s *Server) refusalSteps(ctx context.Context, set *sourceSet, g Grant, rsErr *rsclient.Error, r refusedRead) []string {
	if rsErr.Status < 400 || rsErr.Status >= 500 {
		return nil
	}
	if r.search != nil {
		if steps := searchRefusalSteps(rsErr, *r.search); steps != nil {
			return steps
		}
	}
	src, ok := refusedSource(set, g, r)
	if !ok {
		return nil
	}
	switch {
	case isExpandRefusal(rsErr):
		return expandSteps(r)
	case strings.Contains(rsErr.Message, clientTokenRefusal):
		return s.filterAlternatives(ctx, set, g, src, r)
	case r.tool == "aggregate":
		return s.aggregateSteps(ctx, g, src, rsErr, r)
	case rsErr.Code == "invalid_sort":
		return s.sortSteps(ctx, set, g, src, rsErr, r)
	case rsErr.Code == "unknown_field" || rsErr.Code == "field_not_granted" || rsErr.Code == "field_not_found":
		return fieldSuggestions(src, rsErr.Message, r.stream, r.connectionID)
	}
	return nil
}

// refusedSource is the schema source of the grant whose read was refused.
func refusedSource(set *sourceSet, g Grant, r refusedRead) (schemaindex.StreamSource, bool) {
	if r.stream == "" {
		return schemaindex.StreamSource{}, false
	}
	view, err := set.ix.Stream(r.stream, r.connectionID, nil)
	if err != nil || len(view.Sources) == 0 {
		return schemaindex.StreamSource{}, false
	}
	for _, cand := range view.Sources {
		if cand.GrantKey == g.Key {
			return cand, true
		}
	}
	return view.Sources[0], true
}

// isExpandRefusal tells the RS's refusal of expand[] from the filter
// refusal it is worded like.
func isExpandRefusal(rsErr *rsclient.Error) bool {
	return rsErr.Param == "expand" || strings.HasPrefix(rsErr.Message, "expand")
}

// searchRefusalSteps follow a refused search: a refused filter gives the
// same search without it (streams or not), whose hits the model then
// checks for the value itself.
func searchRefusalSteps(rsErr *rsclient.Error, a searchArgs) []string {
	if !strings.Contains(rsErr.Message, clientTokenRefusal) || len(a.Filter) == 0 {
		return nil
	}
	retry := searchRetry{Q: a.Q, Mode: a.Mode, Streams: a.Streams, ConnectionID: a.ConnectionID, GrantID: a.GrantID}
	if retry.Mode == "lexical" {
		retry.Mode = ""
	}
	return []string{"client tokens cannot filter a search; the same search without the filter, then keep the hits that match: search " +
		string(page.MarshalNoEscape(retry))}
}

// expandSteps follow a refused expand: the same read without it, and the
// schema that names the related streams to read on their own.
func expandSteps(r refusedRead) []string {
	var again string
	switch r.tool {
	case "fetch":
		again = callText("fetch", "id", r.id, "fields", r.fields)
	case "query_records":
		again = callText("query_records", "stream", r.stream, "connection_id", r.connectionID, "fields", r.fields, "sort", r.sort)
	}
	var steps []string
	if again != "" {
		steps = append(steps, "client tokens cannot expand relations; the same read without expand: "+again)
	}
	return append(steps, `read a related stream on its own; the granted streams: schema {}`)
}

// filterAlternatives are the calls that answer what a refused filter
// asked: a text value by search, a time range by the sort the RS takes,
// any other value by reading the field in a compact scan, a count by
// period by the aggregations the RS accepts.
func (s *Server) filterAlternatives(ctx context.Context, set *sourceSet, g Grant, src schemaindex.StreamSource, r refusedRead) []string {
	steps := []string{}
	if text := filterText(r.filter); text != "" {
		steps = append(steps, "client tokens cannot filter; to find records by a value: "+
			callText("search", "q", text, "streams", []string{r.stream}, "connection_id", r.connectionID))
	}
	// A filter on a field the grant does not have gets the names meant;
	// only granted fields go into a scan, which the RS would refuse.
	granted := grantedNames(src, len(src.FieldCaps))
	var filtered []string
	for _, f := range filterFields(r.filter) {
		if slices.Contains(granted, f) {
			filtered = append(filtered, f)
		} else {
			steps = append(steps, didYouMean(f, r.stream, granted))
		}
	}
	ranges := timeRangeFields(r.filter)
	prefer := ""
	if len(ranges) > 0 && slices.Contains(filtered, ranges[0]) {
		prefer = ranges[0]
	}
	sc := s.scanPlan(ctx, set, g, src, r, prefer, filtered)
	lead := "client tokens cannot filter; "
	if len(steps) > 0 {
		lead = ""
	}
	checked := strings.Join(filtered, ", ")
	if checked == "" {
		checked = "the values"
	}
	switch {
	case sc.sort != "" && len(ranges) > 0:
		steps = append(steps, lead+"to read the time range newest first and stop at its start: "+
			callText("query_records", "stream", r.stream, "sort", "-"+sc.sort, "fields", sc.fields, "connection_id", r.connectionID))
	case sc.sort != "":
		steps = append(steps, lead+"to check "+checked+" yourself, newest first: "+
			callText("query_records", "stream", r.stream, "sort", "-"+sc.sort, "fields", sc.fields, "connection_id", r.connectionID))
	case len(sc.fields) > 0:
		steps = append(steps, lead+"to check "+checked+" yourself, scan compactly: "+
			callText("query_records", "stream", r.stream, "fields", sc.fields, "connection_id", r.connectionID))
	}
	// The aggregations the RS takes are learned by schema(stream)'s probe
	// (several RS reads, more than a refusal may cost); pointing there
	// keeps the steps the same whether or not a probe is cached.
	return append(steps, fmt.Sprintf(`to count by period, and every other option of the stream (the aggregations the RS accepts, checked): schema {"stream":%q}`, r.stream))
}

// aggregateSteps follow a refused aggregation: across connections, the
// scoped call if the RS takes it; one the RS does not declare, the
// aggregations it does.
func (s *Server) aggregateSteps(ctx context.Context, g Grant, src schemaindex.StreamSource, rsErr *rsclient.Error, r refusedRead) []string {
	switch {
	case strings.Contains(rsErr.Message, "scope with connection_id"):
		return s.perConnectionAggregateSteps(ctx, g, src, r)
	case strings.Contains(rsErr.Message, "not declared"):
		return []string{fmt.Sprintf(`the RS does not declare this aggregation here; the ones it accepts, checked: schema {"stream":%q}`, r.stream)}
	case rsErr.Code == "unknown_field" || rsErr.Code == "field_not_granted" || rsErr.Code == "field_not_found":
		return fieldSuggestions(src, rsErr.Message, r.stream, r.connectionID)
	}
	return nil
}

// perConnectionAggregateSteps follow the RS's "scope with
// connection_id" refusal of an aggregation across connections (the
// reference refuses count_distinct so). Scoped, the real RS still refuses
// a metric its manifest does not declare, so the step is checked with one
// read on the first connection: the scoped call when it works, else a
// plain statement that no call computes it.
func (s *Server) perConnectionAggregateSteps(ctx context.Context, g Grant, src schemaindex.StreamSource, r refusedRead) []string {
	var conns []string
	for _, c := range src.Connections {
		conns = append(conns, c.ID)
	}
	schemaStep := fmt.Sprintf(`the aggregations the RS accepts, checked: schema {"stream":%q}`, r.stream)
	if len(conns) == 0 || !r.mayRead {
		return []string{schemaStep}
	}
	ctx, cancel := within(ctx, s.cfg.Waits.CapabilityProbe)
	defer cancel()
	_, _, err := s.rs.Aggregate(ctx, g.Bearer, rsclient.AggregateQuery{Stream: r.stream, Metric: r.metric, Field: r.field, ConnectionID: conns[0]})
	scoped := callText("aggregate", "stream", r.stream, "metric", r.metric, "field", r.field, "connection_id", conns[0])
	switch outcomeOf(err) {
	case probeAccepted:
		step := "one connection at a time: " + scoped
		if len(conns) > 1 {
			step += "; then the same with connection_id " + strings.Join(conns[1:], ", then ")
		}
		return []string{step}
	case probeRefused:
		return []string{fmt.Sprintf("scoped to one connection the RS refuses it too (it does not declare %s for %s on this stream): no call computes it; %s",
			r.metric, r.field, schemaStep)}
	}
	return []string{schemaStep}
}

// sortSteps follow a refused sort: the nearest granted names when the
// field is misspelt, and the sort the RS takes on this stream (the real RS
// sorts only on the stream's cursor field, which it does not show).
func (s *Server) sortSteps(ctx context.Context, set *sourceSet, g Grant, src schemaindex.StreamSource, rsErr *rsclient.Error, r refusedRead) []string {
	asked := strings.TrimLeft(r.sort, "+-")
	if m := quotedName.FindStringSubmatch(rsErr.Message); m != nil {
		asked = m[1] + m[2]
	}
	var steps []string
	names := grantedNames(src, len(src.FieldCaps))
	near := schemaindex.NearNames(asked, names, maxFieldSuggestions)
	if asked != "" && len(near) > 0 && !slices.Contains(names, asked) {
		steps = append(steps, fmt.Sprintf("no granted field %q in %s; did you mean %s", asked, r.stream, strings.Join(quoteAll(near), " or ")))
	}
	// The one sort to try: the field meant when the asked one is
	// misspelt, else the likeliest cursor field — never the field the RS
	// has just refused.
	var cands []string
	if len(near) > 0 && near[0] != asked && slices.Contains(src.ProbeFields(), near[0]) {
		cands = append(cands, near[0])
	}
	for _, f := range cursorCandidates(src.ProbeFields()) {
		if f != asked {
			cands = append(cands, f)
		}
	}
	prefer := firstName(cands)
	sc := s.scanPlan(ctx, set, g, src, r, prefer, nil)
	switch {
	case sc.sort != "":
		steps = append(steps, "the RS sorts this stream on "+sc.sort+" (newest first; drop the - for oldest first): "+
			callText("query_records", "stream", r.stream, "sort", "-"+sc.sort, "fields", r.fields, "connection_id", r.connectionID))
	case sc.checked:
		steps = append(steps, "the RS sorts a stream only on its cursor field, which it does not show, and refused every time field tried here; read it unsorted: "+
			callText("query_records", "stream", r.stream, "fields", sc.fields, "connection_id", r.connectionID))
	}
	return append(steps, fmt.Sprintf(`the sort the RS accepts, checked: schema {"stream":%q}`, r.stream))
}

// scan is what a refusal's read steps can name: the sort the RS accepts
// ("" when unknown or refused) and the fields worth reading.
type scan struct {
	sort    string
	checked bool // sort "" because the RS refused it, not because unknown
	fields  []string
}

// scanPlan decides the sort and fields of a refusal's read steps. From the
// schema when it names the stream's cursor field, or from a capability
// probe that schema(stream) cached (no RS read either way); else, when r allows it, one limit-1 read sorted on the best
// candidate (prefer, else the first time-like field) that asks for the
// ranked fields too, so the step names only fields this record has
// (fields empty on every record made a useless scan). The first fields
// are always those the refused call filtered on, so the model can check
// them.
func (s *Server) scanPlan(ctx context.Context, set *sourceSet, g Grant, src schemaindex.StreamSource, r refusedRead, prefer string, lead []string) scan {
	ranked := rankedFields(set, src, r)
	var sc scan
	if src.CursorField != "" { // the schema names the sort: no read
		return scan{sort: src.CursorField, checked: true, fields: scanFields(src.CursorField, lead, ranked, nil)}
	}
	if p := s.cachedProbe(g, src, r); p != nil {
		sc = scan{sort: p.Sort, checked: p.Checked}
		sc.fields = scanFields(sc.sort, lead, ranked, nil)
		return sc
	}
	cand := prefer
	if cand == "" {
		cand = firstName(cursorCandidates(src.ProbeFields()))
	}
	if cand == "" || !r.mayRead {
		sc.fields = scanFields("", lead, ranked, nil)
		return sc
	}
	ask := append([]string{cand}, ranked...)
	// A read that only refines the steps: bounded as a capability probe.
	ctx, cancel := within(ctx, s.cfg.Waits.CapabilityProbe)
	defer cancel()
	list, _, err := s.rs.Records(ctx, g.Bearer, rsclient.RecordsQuery{Stream: r.stream, Limit: 1, Sort: []string{"-" + cand},
		Fields: ask, ConnectionID: r.connectionID})
	switch outcomeOf(err) {
	case probeAccepted:
		sc.sort, sc.checked = cand, true
		var rec []byte
		if len(list.Data) > 0 {
			rec = list.Data[0].Data
		}
		sc.fields = scanFields(cand, lead, ranked, rec)
	case probeRefused:
		sc.checked = len(src.ProbeFields()) == 1
		sc.fields = scanFields("", lead, ranked, nil)
	default:
		sc.fields = scanFields("", lead, ranked, nil)
	}
	return sc
}

// cursorCandidates orders time-like fields for the one sort a refusal may
// try: a stream's cursor field is when a record last changed, never when
// its thread or series began, so first_*/earliest_* fields go last
// (the real RS sorts threads on last_message_date, not
// first_message_date).
func cursorCandidates(fields []string) []string {
	out := slices.Clone(fields)
	slices.SortStableFunc(out, func(a, b string) int {
		return cmp.Compare(beginsSeries(a), beginsSeries(b))
	})
	return out
}

// beginsSeries is 1 for a field named for a beginning, else 0.
func beginsSeries(name string) int {
	if strings.HasPrefix(name, "first_") || strings.HasPrefix(name, "earliest_") {
		return 1
	}
	return 0
}

// cachedProbe is the capability probe schema(stream) cached for this
// grant's stream: with the refused call's connection scope, else the
// stream's unscoped one (the RS sorts and aggregates a stream alike on
// each connection).
func (s *Server) cachedProbe(g Grant, src schemaindex.StreamSource, r refusedRead) *schemaindex.Probe {
	if src.Probe != nil {
		return src.Probe
	}
	for _, conn := range []string{r.connectionID, ""} {
		if p, _, _ := s.probes.c.Peek(probeKey(g, r.stream, conn)); p != nil {
			return p
		}
		if r.connectionID == "" {
			break
		}
	}
	return nil
}

// rankedFields are the source's granted fields that say what a record is
// about — title, time, actor, summary, by declared role or else by name —
// best first, without the payload's own id.
func rankedFields(set *sourceSet, src schemaindex.StreamSource, r refusedRead) []string {
	roles := set.ix.FieldRoles(r.stream, r.connectionID)
	var out []string
	for _, f := range src.FieldCaps {
		if f.Caps.Granted && page.MemberRank(roles, f.Name) <= page.RankSummary {
			out = append(out, f.Name)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(page.MemberRank(roles, a), page.MemberRank(roles, b)) })
	return out
}

// scanFields are the fields a scan step names: the sort field, the fields
// the refused call filtered on, then up to maxScanFields ranked fields —
// those the read record has a value in, when a record was read.
func scanFields(sort string, lead, ranked []string, record []byte) []string {
	var out []string
	add := func(f string) {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	add(sort)
	for _, f := range lead {
		add(f)
	}
	var have map[string]json.RawMessage
	if record != nil {
		_ = json.Unmarshal(record, &have)
	}
	n := 0
	for _, f := range ranked {
		if n == maxScanFields {
			break
		}
		if slices.Contains(out, f) || (have != nil && isEmptyJSON(have[f])) {
			continue
		}
		add(f)
		n++
	}
	return out
}

// isEmptyJSON reports an absent or empty value: null, "", [] or {}.
func isEmptyJSON(v json.RawMessage) bool {
	t := bytes.TrimSpace(v)
	switch string(t) {
	case "", "null", `""`, "[]", "{}":
		return true
	}
	return false
}

// filterText is the first non-empty string an exact filter asked for:
// the words a search for the same records takes.
func filterText(f rsclient.Filter) string {
	for _, ff := range f {
		if v, ok := ff.Value.(string); ok && strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// filterFields are the fields a filter names, in its order.
func filterFields(f rsclient.Filter) []string {
	var out []string
	for _, ff := range f {
		if !slices.Contains(out, ff.Field) {
			out = append(out, ff.Field)
		}
	}
	return out
}

// timeRangeFields are the fields a filter bounds by range.
func timeRangeFields(f rsclient.Filter) []string {
	var out []string
	for _, ff := range f {
		if len(ff.Range) > 0 {
			out = append(out, ff.Field)
		}
	}
	return out
}

func firstName(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// callText writes "tool {json}" with the given members in order, leaving
// out empty values: a call as a step names it.
func callText(tool string, kv ...any) string {
	var b strings.Builder
	b.WriteString(tool + " {")
	first := true
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		switch x := v.(type) {
		case string:
			if x == "" {
				continue
			}
		case []string:
			if len(x) == 0 {
				continue
			}
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(page.MarshalNoEscape(kv[i]))
		b.WriteByte(':')
		b.Write(page.MarshalNoEscape(v))
	}
	b.WriteByte('}')
	return b.String()
}

// didYouMean is the step for a field name the grant does not have: the
// closest granted names, or all of them (up to 24) when none is close.
func didYouMean(want, stream string, names []string) string {
	near := schemaindex.NearNames(want, names, maxFieldSuggestions)
	if len(near) == 0 {
		return fmt.Sprintf("no granted field %q in %s; its granted fields: %s", want, stream, strings.Join(names[:min(len(names), 24)], ", "))
	}
	return fmt.Sprintf("no granted field %q in %s; did you mean %s", want, stream, strings.Join(quoteAll(near), " or "))
}

// fieldSuggestions name the granted fields closest to the one the RS
// refused, and the schema call that lists them all.
func fieldSuggestions(src schemaindex.StreamSource, message, stream, connectionID string) []string {
	m := quotedName.FindStringSubmatch(message)
	if m == nil {
		return []string{fmt.Sprintf(`the stream's fields: schema {"stream":%q}`, stream)}
	}
	steps := []string{didYouMean(m[1]+m[2], stream, grantedNames(src, len(src.FieldCaps)))}
	call := fmt.Sprintf(`schema {"stream":%q}`, stream)
	if connectionID != "" {
		call = fmt.Sprintf(`schema {"stream":%q,"connection_id":%q}`, stream, connectionID)
	}
	return append(steps, "every field of the stream: "+call)
}

// grantedNames are up to n granted field names of src, in schema order.
func grantedNames(src schemaindex.StreamSource, n int) []string {
	var out []string
	for _, f := range src.FieldCaps {
		if f.Caps.Granted && len(out) < n {
			out = append(out, f.Name)
		}
	}
	return out
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}
