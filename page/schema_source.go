package page

import (
	"fmt"
	"strings"

	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// The phrases of one source block of a stream page, each answering one
// question a model has before its next call. Which fields, operators and
// calls qualify is the schema model's (schemaindex); these say it.

// schemaPrimaryKeyText is the primary key as the page shows it.
func schemaPrimaryKeyText(s schemaindex.StreamSource) string {
	if len(s.PrimaryKey) == 0 {
		return "not_advertised"
	}
	return strings.Join(schemaTokens(s.PrimaryKey), ",")
}

// schemaCountText says how to count the stream's records.
func schemaCountText(s schemaindex.StreamSource) string {
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

// schemaSortText names the sortable field. Where the RS advertises none it
// gives the exact call the adapter's probe saw the RS accept, or says what
// was refused or could not be checked; never a guess (the real RS sorts
// only on the manifest's cursor field, which it does not show).
func schemaSortText(s schemaindex.StreamSource, stream string) string {
	if s.Sort != "" {
		return fmt.Sprintf("sort:%q newest first or sort:%q oldest first; only %s is sortable",
			s.Sort, s.CursorField, schemaToken(s.CursorField))
	}
	const deflt = "without sort the RS default order applies"
	p := s.Probe
	switch {
	case !s.AdvertisesNothing() || len(s.ProbeFields()) == 0:
		return "not advertised by the RS (no cursor field); " + deflt
	case p == nil || (p.Sort == "" && !p.Checked):
		return "not advertised by the RS and could not be checked now; " + deflt
	case p.Sort == "":
		return "not advertised by the RS, which refused sort on " + schemaCapList(schemaTokens(p.Tried)) +
			" (it sorts only on a stream's cursor field); " + deflt
	}
	return fmt.Sprintf(`not advertised by the RS; checked: query_records {"stream":%q,"sort":"-%s"} (newest first; sort:%q oldest first); only %s is sortable`,
		stream, p.Sort, p.Sort, schemaToken(p.Sort))
}

// schemaProjectionText says how to narrow records to some fields, with an
// example of the fields that say what a record is about.
func schemaProjectionText(s schemaindex.StreamSource) string {
	return "fields:" + schemaProjectionExample(s) + " takes any top-level field above; g=false fields are dropped"
}

// schemaProjectionExample is the fields argument with up to three fields
// that say what a record is about, best first.
func schemaProjectionExample(s schemaindex.StreamSource) string {
	var names []string
	for _, f := range s.AboutFields(3) {
		names = append(names, fmt.Sprintf("%q", f))
	}
	return "[" + strings.Join(names, ",") + "]"
}

// schemaFiltersText says which fields filter, and how, or that none does.
func schemaFiltersText(s schemaindex.StreamSource) string {
	eq := schemaTokens(s.ExactFilterFields())
	var rng []string
	for _, r := range s.RangeFilters() {
		rng = append(rng, schemaToken(r.Field)+"("+strings.Join(r.Ops, "|")+")")
	}
	if len(eq) == 0 && len(rng) == 0 {
		return "unavailable to this token (the RS advertises no filter operators; client-token filters are refused): " +
			"narrow with search, sort, fields and limit, or count with aggregate"
	}
	var parts []string
	if len(eq) > 0 {
		parts = append(parts, "exact filter:{field:value} on "+schemaCapList(eq))
	}
	if len(rng) > 0 {
		parts = append(parts, "range filter:{field:{gte:v,lt:v}} on "+schemaCapList(rng))
	}
	return strings.Join(parts, "; ")
}

// schemaAggregateText lists the metrics and per-kind fields the stream
// advertises, or, where it advertises nothing, what the probe saw.
func schemaAggregateText(s schemaindex.StreamSource, stream string) string {
	if len(s.Aggregations) == 0 && s.AdvertisesNothing() {
		return schemaProbedAggregateText(s, stream)
	}
	var parts []string
	if s.CountMetric == nil || *s.CountMetric {
		parts = append(parts, `metric:"count" (no field)`)
	}
	for _, a := range s.Aggregations {
		parts = append(parts, a.Kind+"="+schemaCapList(schemaTokens(a.Fields)))
	}
	if len(s.Aggregations) == 0 {
		parts = append(parts, "no field aggregations advertised by the RS")
	} else {
		parts = append(parts, `use metric:"sum|min|max|count_distinct" with field, or metric:"count" with group_by or group_by_time+granularity (minute|hour|day|week|month|quarter|year)`)
	}
	return strings.Join(parts, "; ")
}

// schemaProbedAggregateText is the aggregate line where the RS advertises
// nothing: the calls the adapter's probe saw the RS accept (the real RS
// aggregates only what the manifest declares), or what could not be
// checked.
func schemaProbedAggregateText(s schemaindex.StreamSource, stream string) string {
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

// schemaExpandText lists the stream's relations and whether each is
// usable; client-token grants cannot expand at all.
func schemaExpandText(s schemaindex.StreamSource) string {
	if len(s.Expand) == 0 {
		return "no relations advertised"
	}
	var rels []string
	for _, e := range s.Expand {
		r := schemaToken(e.Name) + "(" + e.Cardinality
		if e.Usable {
			r += ",usable"
		} else {
			reason := e.Reason
			if reason == "" {
				reason = "not_usable"
			}
			r += ",unusable:" + schemaToken(reason)
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

// schemaSearchText describes how to search the stream: its searchable
// fields and modes when the RS lists them, otherwise what the RS offers at
// all.
func schemaSearchText(s schemaindex.StreamSource, stream string) string {
	lex, sem := s.SearchFields()
	if len(lex) == 0 && len(sem) == 0 {
		if !s.AdvertisesNothing() {
			return "no search fields advertised by the RS for this stream"
		}
		return schemaUnadvertisedSearchText(s, stream)
	}
	modes := "not_advertised_by_this_RS"
	if len(s.SearchModes) > 0 {
		modes = strings.Join(s.SearchModes, "|")
	}
	out := "modes=" + modes
	if len(lex) > 0 {
		out += " lex=" + schemaCapList(schemaTokens(lex))
	}
	if len(sem) > 0 {
		out += " sem=" + schemaCapList(schemaTokens(sem))
	}
	return out
}

// schemaUnadvertisedSearchText is for a stream whose schema advertises
// nothing: the real RS still searches it, so point at the modes the RS
// offers. It says in words what to search with rather than printing a
// call with a placeholder: a template's "<words>" run as written finds
// nothing lexically and unrelated records semantically.
func schemaUnadvertisedSearchText(s schemaindex.StreamSource, stream string) string {
	if len(s.OfferedModes) == 0 {
		return "search fields not advertised, and the RS advertises no search mode"
	}
	out := fmt.Sprintf(`search fields not advertised by the RS, which offers modes=%s; search with "streams":[%q] and "q" set to words the records contain (a name, or words of a subject or title)`,
		strings.Join(s.OfferedModes, "|"), stream)
	if alt := s.FallbackMode(); alt != "" {
		out += fmt.Sprintf(`; if lexical finds nothing, "mode":%q ranks by meaning and returns the nearest records for any words, which need not contain them`, alt)
	}
	return out
}
