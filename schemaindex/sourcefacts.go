package schemaindex

import "slices"

// The questions a schema page asks of a stream view: which fields filter,
// search or say what a record is about, which mode to fall back to, what
// the view left out. The answers are the model; the page only words them.

// AdvertisesNothing reports the real RS's posture for manifest-registered
// streams: no primary key, no cursor field and no capability flag on
// any field, although the RS sorts, aggregates and searches them. Only
// then does a page suggest calls to try; a stream whose schema does
// advertise capabilities is taken at its word.
func (s StreamSource) AdvertisesNothing() bool {
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

// AboutFields are up to n granted fields ranked by what they say about a
// record (title, time, actor, summary), best first: by declared role when
// the stream declares any, else by name; ties keep schema order. The first
// fields in schema order were, on the real RS's alphabetical schema, bcc
// and cc, empty on every record.
func (s StreamSource) AboutFields(n int) []string {
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

// RangeFilter is a field usable in a range filter with its operators.
type RangeFilter struct {
	Field string
	// Ops are the advertised operators, or RangeOpsAll when the RS lists
	// none for a usable range filter.
	Ops []string
}

// ExactFilterFields are the fields usable in an exact filter, in schema
// order.
func (s StreamSource) ExactFilterFields() []string {
	var out []string
	for _, f := range s.FieldCaps {
		if f.Caps.Exact.Usable {
			out = append(out, f.Name)
		}
	}
	return out
}

// RangeFilters are the fields usable in a range filter, in schema order.
func (s StreamSource) RangeFilters() []RangeFilter {
	var out []RangeFilter
	for _, f := range s.FieldCaps {
		if f.Caps.Range.Usable {
			ops := f.Caps.RangeOps
			if len(ops) == 0 {
				ops = RangeOpsAll
			}
			out = append(out, RangeFilter{Field: f.Name, Ops: ops})
		}
	}
	return out
}

// SearchFields are the fields usable in lexical and in semantic search, in
// schema order.
func (s StreamSource) SearchFields() (lexical, semantic []string) {
	for _, f := range s.FieldCaps {
		if f.Caps.Lexical.Usable {
			lexical = append(lexical, f.Name)
		}
		if f.Caps.Semantic.Usable {
			semantic = append(semantic, f.Name)
		}
	}
	return lexical, semantic
}

// FallbackMode is the search mode to try when lexical search finds
// nothing on a stream that advertises no search field: semantic if the RS
// offers it, else hybrid if offered, else "".
func (s StreamSource) FallbackMode() string {
	switch {
	case slices.Contains(s.OfferedModes, ModeSemantic):
		return ModeSemantic
	case slices.Contains(s.OfferedModes, ModeHybrid):
		return ModeHybrid
	}
	return ""
}

// SourcesOmitted counts the matching sources beyond MaxStreamSources that
// the view leaves out.
func (v StreamView) SourcesOmitted() int { return v.SourceCount - len(v.Sources) }

// SeveralConnections reports whether an unscoped view spans more than one
// connection, so paging one connection (a merged page has no cursor) and
// detail:"full" need connection_id.
func (v StreamView) SeveralConnections() bool {
	if v.ConnectionID != "" {
		return false
	}
	n := 0
	for _, s := range v.Sources {
		n += len(s.Connections) + s.ConnectionsOmitted
	}
	return n > 1
}

// CountDistinctAdvertised reports whether some source advertises
// count_distinct on a field. The reference RS refuses count_distinct
// across connections ("scope with connection_id") but, where the manifest
// declares none, refuses it with connection_id too
// (server/aggregate-request-validation.ts, requireDeclaredAggregate), so
// connection_id helps count_distinct only where it is advertised.
func (v StreamView) CountDistinctAdvertised() bool {
	for _, s := range v.Sources {
		for _, a := range s.Aggregations {
			if a.Kind == "count_distinct" && len(a.Fields) > 0 {
				return true
			}
		}
	}
	return false
}
