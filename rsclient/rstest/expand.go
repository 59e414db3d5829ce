package rstest

import (
	"encoding/json"
	"strconv"
)

// expandReq is one validated owner expansion.
type expandReq struct {
	decl  ExpandDecl
	rel   Relationship
	limit int
}

// parseExpand validates expand / expand_limit (owner only, depth 1).
func (s *Server) parseExpand(c *call, t *target) ([]expandReq, *apiError) {
	names := c.q.list("expand")
	if len(names) == 0 {
		if len(c.q.expandLimit) > 0 {
			return nil, newErr("invalid_request", "expand_limit", "expand_limit requires expand")
		}
		return nil, nil
	}
	var out []expandReq
	for _, n := range names {
		er := s.expandable(t, n)
		if er == nil {
			return nil, newErr("invalid_expand", "expand", "Relation '%s' is not declared as expandable on stream '%s'", n, t.info.decl.Name)
		}
		v, hasLimit := c.q.expandLimit[n]
		er.limit = expandLimit(er, v, hasLimit)
		out = append(out, *er)
	}
	return out, nil
}

// expandable finds relation n declared both as an expansion and as a
// relationship of t's stream (the last such pair, as declared), whose
// target stream the connector has; nil when there is none.
func (s *Server) expandable(t *target, n string) *expandReq {
	var er *expandReq
	for _, d := range t.info.decl.Query.Expand {
		for _, r := range t.info.decl.Relationships {
			if d.Name == n && r.Name == n {
				er = &expandReq{decl: d, rel: r}
			}
		}
	}
	if er == nil || s.ix.streams[t.info.connector.Key][er.rel.Stream] == nil {
		return nil
	}
	return er
}

// expandLimit is the number of children expanded: the declared default (10
// when unset), replaced by the last expand_limit value when it is a
// positive integer and the relation is has_many, then capped at the
// declared maximum.
func expandLimit(er *expandReq, vals []string, hasLimit bool) int {
	limit := er.decl.DefaultLimit
	if limit <= 0 {
		limit = 10
	}
	if hasLimit && er.rel.Cardinality == "has_many" {
		if l, err := strconv.Atoi(vals[len(vals)-1]); err == nil && l > 0 {
			limit = l
		}
	}
	if er.decl.MaxLimit > 0 && limit > er.decl.MaxLimit {
		limit = er.decl.MaxLimit
	}
	return limit
}

// expandRecord resolves relations within the record's own connection: a
// child belongs to the parent when child.data[foreign_key] == parent id.
func (s *Server) expandRecord(t *target, r *rec, reqs []expandReq) obj {
	out := obj{}
	for _, er := range reqs {
		child := target{conn: t.conn, info: s.ix.streams[t.info.connector.Key][er.rel.Stream],
			set: s.ix.recs[csKey{t.conn.ID, er.rel.Stream}]}
		var matches []obj
		more := false
		if child.set != nil {
			for _, cr := range child.set.desc {
				fk := decodePayload(cr.Data)[er.rel.ForeignKey]
				if fmtValue(fk) != r.ID {
					continue
				}
				if len(matches) == er.limit {
					more = true
					break
				}
				matches = append(matches, s.recordItem(&child, cr, nil))
			}
		}
		if er.rel.Cardinality == "has_one" {
			if len(matches) == 0 {
				out = append(out, kv{er.decl.Name, nil})
			} else {
				out = append(out, kv{er.decl.Name, matches[0]})
			}
			continue
		}
		if matches == nil {
			matches = []obj{}
		}
		out = append(out, kv{er.decl.Name, obj{{"object", "list"}, {"data", matches}, {"has_more", more}}})
	}
	return out
}

// fmtValue renders a scalar payload value as a key string.
func fmtValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return "\x00null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
