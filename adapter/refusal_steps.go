package adapter

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// maxFieldSuggestions bounds the "did you mean" field list of a refusal.
const maxFieldSuggestions = 5

// filterValuePlaceholder stands for the value a refused filter named, until
// the tool that knows its filter puts the value in (withFilterValue).
const filterValuePlaceholder = "<the value you filtered on>"

// clientFilterRefusal is how the RS refuses every filter[...] from a
// client token (D14): "filter[...] is not supported for client-token reads".
const clientFilterRefusal = "not supported for client-token reads"

// quotedName finds the field an RS refusal names: 'subjet' or ": subjet".
var quotedName = regexp.MustCompile(`'([^']+)'|: ([A-Za-z0-9_.]+)$`)

// refusalSteps are the calls that work after an RS refusal of a read on
// stream, so the model is never left with the RS's words alone (issue
// 24.2): a refused client-token filter gets the alternatives the schema
// offers (search, sort, fields, aggregate) as concrete calls; an unknown
// or ungranted field gets the closest granted names and schema(stream).
// Every call is one the adapter knows the RS takes: search and fields
// always work for a granted stream, sort and aggregate only as the
// capability probe saw them accepted.
func (s *Server) refusalSteps(set *sourceSet, g Grant, rsErr *rsclient.Error, stream, connectionID string) []string {
	if stream == "" || rsErr.Status < 400 || rsErr.Status >= 500 {
		return nil
	}
	view, err := set.ix.Stream(stream, connectionID, nil)
	if err != nil || len(view.Sources) == 0 {
		return nil
	}
	src := view.Sources[0]
	for _, cand := range view.Sources { // the source of the grant that was refused
		if cand.GrantKey == g.Key {
			src = cand
			break
		}
	}
	switch {
	case strings.Contains(rsErr.Message, clientFilterRefusal):
		return s.filterAlternatives(g, src, stream, connectionID)
	case rsErr.Code == "unknown_field" || rsErr.Code == "field_not_granted" || rsErr.Code == "field_not_found":
		return fieldSuggestions(src, rsErr.Message, stream, connectionID)
	}
	return nil
}

// filterAlternatives are the calls that answer what a refused filter
// asked: find by value with search, order by time with the sort the RS
// accepted, narrow with fields, count by period with aggregate.
func (s *Server) filterAlternatives(g Grant, src schemaindex.StreamSource, stream, connectionID string) []string {
	conn := ""
	if connectionID != "" {
		conn = fmt.Sprintf(`,"connection_id":%q`, connectionID)
	}
	steps := []string{
		fmt.Sprintf(`client tokens cannot filter; to find records by a value: search {"q":%q,"streams":[%q]%s}`, filterValuePlaceholder, stream, conn),
	}
	fields := grantedNames(src, 3)
	p := src.Probe
	if p == nil {
		p, _, _ = s.probes.c.Peek(probeKey(g, stream, connectionID))
	}
	if p != nil && p.Sort != "" {
		steps = append(steps, fmt.Sprintf(`to read a time range newest first and stop at its start: query_records {"stream":%q,"sort":"-%s","fields":%s%s}`,
			stream, p.Sort, string(marshalNoEscape(append([]string{p.Sort}, without(fields, p.Sort)...))), conn))
	} else if len(fields) > 0 {
		steps = append(steps, fmt.Sprintf(`to scan compactly: query_records {"stream":%q,"fields":%s%s}`, stream, string(marshalNoEscape(fields)), conn))
	}
	if p != nil && len(p.GroupByTime) > 0 {
		steps = append(steps, fmt.Sprintf(`to count by period: aggregate {"stream":%q,"metric":"count","group_by_time":%q,"granularity":"month"%s}`,
			stream, p.GroupByTime[0], conn))
	}
	return append(steps, fmt.Sprintf(`every option of the stream: schema {"stream":%q}`, stream))
}

// fieldSuggestions name the granted fields closest to the one the RS
// refused, and the schema call that lists them all.
func fieldSuggestions(src schemaindex.StreamSource, message, stream, connectionID string) []string {
	m := quotedName.FindStringSubmatch(message)
	if m == nil {
		return []string{fmt.Sprintf(`the stream's fields: schema {"stream":%q}`, stream)}
	}
	want := m[1] + m[2]
	names := grantedNames(src, len(src.FieldCaps))
	near := schemaindex.NearNames(want, names, maxFieldSuggestions)
	step := fmt.Sprintf("no granted field %q in %s; did you mean %s", want, stream, strings.Join(quoteAll(near), " or "))
	if len(near) == 0 {
		step = fmt.Sprintf("no granted field %q in %s; its granted fields: %s", want, stream, strings.Join(names[:min(len(names), 24)], ", "))
	}
	steps := []string{step}
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

// withFilterValue puts the first exact value of a refused filter into the
// search step, so the alternative is the model's own question.
func withFilterValue(te *toolError, f rsclient.Filter) *toolError {
	for _, ff := range f {
		if v, ok := ff.Value.(string); ok && v != "" {
			return withSearchText(te, v)
		}
	}
	return te
}

// withSearchText puts q into the search step in place of the
// placeholder: a refused filter's value, or — when the refused call was a
// search — the search's own q, so the step is that search without its
// filter, never a placeholder.
func withSearchText(te *toolError, q string) *toolError {
	if te == nil || q == "" {
		return te
	}
	enc, _ := json.Marshal(q)
	for i, st := range te.Next {
		te.Next[i] = strings.ReplaceAll(st, `"`+filterValuePlaceholder+`"`, string(enc))
	}
	return te
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

func without(names []string, drop string) []string {
	var out []string
	for _, n := range names {
		if n != drop {
			out = append(out, n)
		}
	}
	return out
}
