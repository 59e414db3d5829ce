package schemaindex

import (
	"fmt"
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
		s.writeText(&b, i+1, v.SourceCount)
	}
	if omitted := v.SourceCount - len(v.Sources); omitted > 0 {
		fmt.Fprintf(&b, "more_sources=%d: call schema(stream, connection_id) for one source\n", omitted)
	}
	if v.ConnectionID == "" && connectionTotal(v.Sources) > 1 {
		b.WriteString("stream has several connections: pass connection_id to fetch, page, count_distinct or detail:\"full\"\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func connectionTotal(ss []StreamSource) int {
	n := 0
	for _, s := range ss {
		n += len(s.Connections) + s.ConnectionsOmitted
	}
	return n
}

func (s StreamSource) writeText(b *strings.Builder, n, total int) {
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
	b.WriteString(" primary_key=" + joinTokens(s.PrimaryKey, ","))
	if s.RecordCount != nil {
		fmt.Fprintf(b, " record_count=%d", *s.RecordCount)
	}
	b.WriteString("\n connection_id: " + connectionsText(s.Connections, s.ConnectionsOmitted) + "\n")
	if s.Sort != "" {
		fmt.Fprintf(b, " sort: sort:%q newest first or sort:%q oldest first; only %s is sortable\n",
			s.Sort, s.CursorField, token(s.CursorField))
	} else {
		b.WriteString(" sort: none (no cursor field; RS default order)\n")
	}
	b.WriteString(" count: query_records count:\"exact\" gives the total")
	switch {
	case s.CountMetric == nil:
		b.WriteString("; aggregate metric:\"count\" (compact schema does not state it; usually supported)\n")
	case *s.CountMetric:
		b.WriteString("; aggregate metric:\"count\" supported\n")
	default:
		b.WriteString("; aggregate metric:\"count\" not declared\n")
	}
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
	b.WriteString("\n projection: fields:" + s.projectionExample() + " takes any top-level field above; g=false fields are dropped\n")
	b.WriteString(" filters: " + s.filtersText() + "\n")
	b.WriteString(" aggregate: " + s.aggText() + "\n")
	b.WriteString(" expand: " + s.expandText() + "\n")
	b.WriteString(" search: " + s.searchText() + "\n")
}

// projectionExample shows the fields argument with the first granted fields.
func (s StreamSource) projectionExample() string {
	var names []string
	for _, f := range s.FieldCaps {
		if f.Caps.Granted && len(names) < 3 {
			names = append(names, fmt.Sprintf("%q", f.Name))
		}
	}
	return "[" + strings.Join(names, ",") + "]"
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
		msg := "none advertised for this grant"
		if s.TokenKind == "client" {
			msg += " (client tokens cannot filter server-side; narrow with search, sort, fields, limit)"
		}
		return msg
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

func (s StreamSource) aggText() string {
	var parts []string
	if s.CountMetric == nil || *s.CountMetric {
		parts = append(parts, `metric:"count" (no field)`)
	}
	for _, a := range s.Aggregations {
		parts = append(parts, a.Kind+"="+capList(tokens(a.Fields)))
	}
	if len(s.Aggregations) == 0 {
		parts = append(parts, "no field aggregations")
	} else {
		parts = append(parts, `use metric:"sum|min|max|count_distinct" with field, or metric:"count" with group_by or group_by_time+granularity (minute|hour|day|week|month|quarter|year)`)
	}
	return strings.Join(parts, "; ")
}

func (s StreamSource) expandText() string {
	if len(s.Expand) == 0 {
		return "none"
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

func (s StreamSource) searchText() string {
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
		return "none (no lex/sem fields)"
	}
	modes := "none offered by this RS"
	if len(s.SearchModes) > 0 {
		modes = strings.Join(s.SearchModes, "|")
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
