package schemaindex

import (
	"fmt"
	"slices"
	"strings"
)

// maxAggFields bounds the field list per aggregation kind in text.
const maxAggFields = 12

// Text renders the stream-scoped view for content[]: the flag legend first,
// then one block per source with every argument the next call needs, in the
// argument syntax of the tools (sort:"-f", fields:[…], filter:{…},
// connection_id:"…").
func (v StreamView) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "PDPP schema stream=%s sources=%d", token(v.Stream), v.SourceCount)
	if v.ConnectionID != "" {
		b.WriteString(" scope connection_id=" + token(v.ConnectionID))
	}
	b.WriteString("\n" + LegendText() + "\n")
	for i, s := range v.Sources {
		s.writeText(&b, v.Stream, i+1, v.SourceCount)
	}
	for _, n := range v.notes() {
		b.WriteString(n + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// notes are the view's closing lines: sources left out, and the need for
// connection_id when the stream has several connections.
func (v StreamView) notes() []string {
	var out []string
	if omitted := v.SourceCount - len(v.Sources); omitted > 0 {
		out = append(out, fmt.Sprintf("more_sources=%d: call schema(stream, connection_id) for one source", omitted))
	}
	if v.ConnectionID == "" && connectionTotal(v.Sources) > 1 {
		out = append(out, v.severalConnectionsNote())
	}
	return out
}

// severalConnectionsNote says what connection_id is for on a stream with
// several connections: paging one connection (a merged page has no
// cursor) and detail:"full". count_distinct is named only where a source
// advertises it: the reference RS refuses it across connections ("scope
// with connection_id") but, where the manifest declares none, refuses it
// with connection_id too (server/aggregate-request-validation.ts,
// requireDeclaredAggregate), so naming it there is a dead end.
func (v StreamView) severalConnectionsNote() string {
	for _, s := range v.Sources {
		for _, a := range s.Aggregations {
			if a.Kind == "count_distinct" && len(a.Fields) > 0 {
				return `stream has several connections: pass connection_id to page one connection, for count_distinct, or with detail:"full"`
			}
		}
	}
	return `stream has several connections: pass connection_id to page one connection or with detail:"full"`
}

func connectionTotal(ss []StreamSource) int {
	n := 0
	for _, s := range ss {
		n += len(s.Connections) + s.ConnectionsOmitted
	}
	return n
}

func (s StreamSource) writeText(b *strings.Builder, stream string, n, total int) {
	fmt.Fprintf(b, "source %d/%d connector_key=%s", n, total, token(s.ConnectorKey))
	if s.DisplayName != "" {
		b.WriteString(" label=" + label(s.DisplayName))
	}
	if s.GrantID != "" {
		b.WriteString(" grant_id=" + token(s.GrantID))
	}
	if s.TokenKind != "" {
		b.WriteString(" token=" + token(s.TokenKind))
	}
	b.WriteString(" primary_key=" + s.primaryKeyText())
	if s.RecordCount != nil {
		fmt.Fprintf(b, " record_count=%d", *s.RecordCount)
	}
	b.WriteString("\n connection_id: " + connectionsText(s.Connections, s.ConnectionsOmitted) + "\n")
	b.WriteString(" sort: " + s.sortText(stream) + "\n")
	b.WriteString(" count: " + s.countText() + "\n")
	fmt.Fprintf(b, " fields(%d): ", s.FieldCount)
	for i, f := range s.Fields {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(token(f.Name) + "[" + f.Flags + "]")
	}
	if s.FieldsOmitted > 0 {
		fmt.Fprintf(b, "; more:%d", s.FieldsOmitted)
	}
	b.WriteString("\n projection: " + s.projectionText() + "\n")
	b.WriteString(" filters: " + s.filtersText() + "\n")
	b.WriteString(" aggregate: " + s.aggText(stream) + "\n")
	b.WriteString(" expand: " + s.expandText() + "\n")
	b.WriteString(" search: " + s.searchText(stream) + "\n")
}

// countText says how to count the stream's records.
func (s StreamSource) countText() string {
	const exact = `query_records count:"exact" gives the total`
	switch p := s.Probe; {
	case s.CountMetric != nil && *s.CountMetric:
		return exact + `; aggregate metric:"count" supported`
	case s.CountMetric != nil:
		return exact + `; aggregate metric:"count" not declared`
	case p != nil && p.Count:
		return exact + `; aggregate metric:"count" checked: works`
	case p != nil && p.Checked:
		return exact + `; aggregate metric:"count" refused by the RS (no aggregations declared for this stream)`
	case p != nil:
		return exact + `; aggregate metric:"count" not advertised and could not be checked now`
	}
	return exact + `; aggregate metric:"count": not stated by the compact schema, try it`
}

// projectionText says how to narrow records to some fields.
func (s StreamSource) projectionText() string {
	return "fields:" + s.projectionExample() + " takes any top-level field above; g=false fields are dropped"
}

// primaryKeyText is the primary key as the text shows it.
func (s StreamSource) primaryKeyText() string {
	if len(s.PrimaryKey) == 0 {
		return "not_advertised"
	}
	return joinTokens(s.PrimaryKey, ",")
}

// advertisesNothing reports the real RS's posture for manifest-registered
// streams (D1): no primary key, no cursor field and no capability flag on
// any field, although the RS sorts, aggregates and searches them. Only
// then does the text suggest calls to try; a stream whose schema does
// advertise capabilities is taken at its word.
func (s StreamSource) advertisesNothing() bool {
	if len(s.PrimaryKey) > 0 || s.CursorField != "" {
		return false
	}
	for _, f := range s.FieldCaps {
		c := f.Caps
		if c.Type != "" || c.Role != "" || c.Exact.Declared || c.Range.Declared || c.Lexical.Declared ||
			c.Semantic.Declared || len(c.Aggs) > 0 {
			return false
		}
	}
	return true
}

// sortText names the sortable field. Where the RS advertises none (D1)
// it gives the exact call the adapter's probe saw the RS accept, or says
// what was refused or could not be checked; never a guess (D18: the real
// RS sorts only on the manifest's cursor field, which it does not show).
func (s StreamSource) sortText(stream string) string {
	if s.Sort != "" {
		return fmt.Sprintf("sort:%q newest first or sort:%q oldest first; only %s is sortable",
			s.Sort, s.CursorField, token(s.CursorField))
	}
	const deflt = "without sort the RS default order applies"
	p := s.Probe
	switch {
	case !s.advertisesNothing() || len(s.timeFields()) == 0:
		return "not advertised by the RS (no cursor field); " + deflt
	case p == nil || (p.Sort == "" && !p.Checked):
		return "not advertised by the RS and could not be checked now; " + deflt
	case p.Sort == "":
		return "not advertised by the RS, which refused sort on " + capList(tokens(p.Tried)) +
			" (it sorts only on a stream's cursor field); " + deflt
	}
	return fmt.Sprintf(`not advertised by the RS; checked: query_records {"stream":%q,"sort":"-%s"} (newest first; sort:%q oldest first); only %s is sortable`,
		stream, p.Sort, p.Sort, token(p.Sort))
}

// projectionExample shows the fields argument with the granted fields that
// say what a record is about (title, time, actor, summary), best first:
// the first fields in schema order were, on the real RS's alphabetical
// schema, bcc and cc, empty on every record.
func (s StreamSource) projectionExample() string {
	var names []string
	for _, f := range s.aboutFields(3) {
		names = append(names, fmt.Sprintf("%q", f))
	}
	return "[" + strings.Join(names, ",") + "]"
}

// Field ranks for aboutFields, lowest first: the order in which the
// adapter's record pages show members too (page/member_rank.go).
const (
	rankTitle = iota
	rankTime
	rankActor
	rankSummary
	rankOther
	rankOwnID
)

// roleRanks ranks the declared semantic roles.
var roleRanks = map[string]int{"primary-title": rankTitle, "event-time": rankTime, "actor": rankActor, "secondary": rankSummary}

// nameRanks ranks common field names where no role is declared (the real
// RS declares none to client tokens).
var nameRanks = map[string]int{
	"subject": rankTitle, "title": rankTitle, "name": rankTitle, "filename": rankTitle,
	"date": rankTime, "time": rankTime, "timestamp": rankTime,
	"author": rankActor, "sender": rankActor, "user": rankActor, "user_name": rankActor, "owner": rankActor,
	"snippet": rankSummary, "text": rankSummary, "summary": rankSummary, "description": rankSummary, "body": rankSummary, "content": rankSummary,
}

// aboutFields are up to n granted fields ranked by what they say about a
// record: by declared role when the stream declares any, else by name;
// ties keep schema order.
func (s StreamSource) aboutFields(n int) []string {
	roles := false
	for _, f := range s.FieldCaps {
		roles = roles || f.Caps.Role != ""
	}
	type ranked struct {
		name string
		rank int
	}
	var all []ranked
	for _, f := range s.FieldCaps {
		if f.Caps.Granted {
			all = append(all, ranked{f.Name, fieldRank(f, roles)})
		}
	}
	slices.SortStableFunc(all, func(a, b ranked) int { return a.rank - b.rank })
	var out []string
	for _, r := range all[:min(n, len(all))] {
		out = append(out, r.name)
	}
	return out
}

// fieldRank is a field's rank: its role's, else (when the stream declares
// no roles) what its name suggests.
func fieldRank(f Field, roles bool) int {
	switch {
	case f.Name == "id":
		return rankOwnID
	case f.Caps.Role != "":
		if r, ok := roleRanks[f.Caps.Role]; ok {
			return r
		}
		return rankOther
	case roles:
		return rankOther
	}
	n := strings.ToLower(f.Name)
	if r, ok := nameRanks[n]; ok {
		return r
	}
	switch {
	case strings.HasSuffix(n, "_at") || strings.HasSuffix(n, "_date") || strings.HasSuffix(n, "_time"):
		return rankTime
	case strings.HasPrefix(n, "from"):
		return rankActor
	}
	return rankOther
}

func (s StreamSource) filtersText() string {
	var eq, rng []string
	for _, f := range s.FieldCaps {
		if f.Caps.Exact.Usable {
			eq = append(eq, token(f.Name))
		}
		if f.Caps.Range.Usable {
			ops := f.Caps.RangeOps
			if len(ops) == 0 {
				ops = RangeOpsAll
			}
			rng = append(rng, token(f.Name)+"("+strings.Join(ops, "|")+")")
		}
	}
	if len(eq) == 0 && len(rng) == 0 {
		return "unavailable to this token (the RS advertises no filter operators; client-token filters are refused): " +
			"narrow with search, sort, fields and limit, or count with aggregate"
	}
	var parts []string
	if len(eq) > 0 {
		parts = append(parts, "exact filter:{field:value} on "+capList(eq))
	}
	if len(rng) > 0 {
		parts = append(parts, "range filter:{field:{gte:v,lt:v}} on "+capList(rng))
	}
	return strings.Join(parts, "; ")
}

func (s StreamSource) aggText(stream string) string {
	if len(s.Aggregations) == 0 && s.advertisesNothing() {
		return s.probedAggText(stream)
	}
	var parts []string
	if s.CountMetric == nil || *s.CountMetric {
		parts = append(parts, `metric:"count" (no field)`)
	}
	for _, a := range s.Aggregations {
		parts = append(parts, a.Kind+"="+capList(tokens(a.Fields)))
	}
	if len(s.Aggregations) == 0 {
		parts = append(parts, "no field aggregations advertised by the RS")
	} else {
		parts = append(parts, `use metric:"sum|min|max|count_distinct" with field, or metric:"count" with group_by or group_by_time+granularity (minute|hour|day|week|month|quarter|year)`)
	}
	return strings.Join(parts, "; ")
}

// probedAggText is the aggregate line where the RS advertises nothing:
// the calls the adapter's probe saw the RS accept (the real RS aggregates
// only what the manifest declares, D18), or what could not be checked.
func (s StreamSource) probedAggText(stream string) string {
	p := s.Probe
	if p == nil {
		return "aggregations not advertised by the RS and could not be checked now"
	}
	var tries []string
	if p.Count {
		tries = append(tries, fmt.Sprintf(`{"stream":%q,"metric":"count"}`, stream))
	}
	for _, f := range p.GroupByTime {
		tries = append(tries, fmt.Sprintf(`{"stream":%q,"metric":"count","group_by_time":%q,"granularity":"month"}`, stream, f))
	}
	for _, f := range p.Max {
		tries = append(tries, fmt.Sprintf(`{"stream":%q,"metric":"max","field":%q}`, stream, f))
	}
	out := "aggregations not advertised by the RS"
	switch {
	case len(tries) > 0:
		out += "; checked: aggregate " + strings.Join(tries, " or ")
	case p.Checked:
		out += `; it refused metric:"count" (no aggregations declared for this stream)`
	}
	if !p.Checked {
		out += "; some calls could not be checked now"
	}
	return out
}

func (s StreamSource) expandText() string {
	if len(s.Expand) == 0 {
		return "no relations advertised"
	}
	var rels []string
	for _, e := range s.Expand {
		r := token(e.Name) + "(" + e.Cardinality
		if e.Usable {
			r += ",usable"
		} else {
			reason := e.Reason
			if reason == "" {
				reason = "not_usable"
			}
			r += ",unusable:" + token(reason)
		}
		if e.MaxLimit > 0 {
			r += fmt.Sprintf(",limit<=%d", e.MaxLimit)
		}
		rels = append(rels, r+")")
	}
	out := strings.Join(rels, "; ")
	if s.TokenKind == "client" {
		out = "not available to client-token grants (RS rejects expand); relations: " + out
	}
	return out
}

// searchText describes how to search the stream: its searchable fields
// and modes when the RS lists them, otherwise what the RS offers at all.
func (s StreamSource) searchText(stream string) string {
	// Collected here rather than returned by a helper: slices that do not
	// leave this frame keep their backing store on the stack.
	var lex, sem []string
	for _, f := range s.FieldCaps {
		if f.Caps.Lexical.Usable {
			lex = append(lex, token(f.Name))
		}
		if f.Caps.Semantic.Usable {
			sem = append(sem, token(f.Name))
		}
	}
	if len(lex) == 0 && len(sem) == 0 {
		if !s.advertisesNothing() {
			return "no search fields advertised by the RS for this stream"
		}
		return s.unadvertisedSearchText(stream)
	}
	return fieldSearchText(s.SearchModes, lex, sem)
}

// unadvertisedSearchText is for a stream whose schema advertises nothing:
// the real RS still searches it, so point at the modes the RS offers. It
// says in words what to search with rather than printing a call with a
// placeholder: a template's "<words>" run as written finds nothing
// lexically and unrelated records semantically.
func (s StreamSource) unadvertisedSearchText(stream string) string {
	if len(s.OfferedModes) == 0 {
		return "search fields not advertised, and the RS advertises no search mode"
	}
	out := fmt.Sprintf(`search fields not advertised by the RS, which offers modes=%s; search with "streams":[%q] and "q" set to words the records contain (a name, or words of a subject or title)`,
		strings.Join(s.OfferedModes, "|"), stream)
	if alt := semanticFallback(s.OfferedModes); alt != "" {
		out += fmt.Sprintf(`; if lexical finds nothing, "mode":%q ranks by meaning and returns the nearest records for any words, which need not contain them`, alt)
	}
	return out
}

// semanticFallback is the mode to try when lexical search finds nothing:
// semantic if offered, else hybrid if offered, else "".
func semanticFallback(offered []string) string {
	switch {
	case slices.Contains(offered, ModeSemantic):
		return ModeSemantic
	case slices.Contains(offered, ModeHybrid):
		return ModeHybrid
	}
	return ""
}

// fieldSearchText lists the stream's search modes and its lexical and
// semantic fields (each list capped).
func fieldSearchText(searchModes, lex, sem []string) string {
	modes := "not_advertised_by_this_RS"
	if len(searchModes) > 0 {
		modes = strings.Join(searchModes, "|")
	}
	out := "modes=" + modes
	if len(lex) > 0 {
		out += " lex=" + capList(lex)
	}
	if len(sem) > 0 {
		out += " sem=" + capList(sem)
	}
	return out
}

// capList joins names with "|", keeping at most maxAggFields.
func capList(names []string) string {
	if len(names) <= maxAggFields {
		return strings.Join(names, "|")
	}
	return strings.Join(names[:maxAggFields], "|") + fmt.Sprintf("|more:%d", len(names)-maxAggFields)
}

func tokens(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = token(n)
	}
	return out
}

func joinTokens(names []string, sep string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(tokens(names), sep)
}
