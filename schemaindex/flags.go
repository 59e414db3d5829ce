package schemaindex

import (
	"slices"
	"strings"
)

// AggKinds are the aggregation kinds in the RS's canonical order; flag
// strings and summaries list kinds in this order.
var AggKinds = []string{"count_distinct", "group_by", "group_by_time", "max", "min", "sum"}

// RangeOpsAll are the range operators the RS knows, in canonical order.
var RangeOpsAll = []string{"gte", "gt", "lte", "lt"}

// LegendEntry explains one token of the compact flag grammar.
type LegendEntry struct {
	Token   string `json:"token"`
	Meaning string `json:"meaning"`
}

// Legend explains every token FormatFlags can emit, in grammar order. It is
// the single source for the model-visible legend (LegendText) so the two
// never drift apart.
var Legend = []LegendEntry{
	{"t=", "type"},
	{"role=", "semantic role (primary-title=record title, event-time=when it happened)"},
	{"g=false", "not granted: unreadable, dropped from fields"},
	{"eq", "exact filter: filter:{f:v}"},
	{"r=", "range filter ops: filter:{f:{gte:v}}"},
	{"lex", "lexical search field"},
	{"sem", "semantic search field"},
	{"a=", "aggregate kinds usable on the field"},
	{"=unusable:<reason>", "declared but unusable, e.g. lex=unusable:field_not_granted"},
	{"declared", "no flags advertised; the RS may still sort, aggregate, search (see each source)"},
}

// LegendText renders Legend as one compact line for content[] text.
func LegendText() string {
	var b strings.Builder
	b.WriteString("legend:")
	for i, e := range Legend {
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteString(" ")
		b.WriteString(e.Token)
		b.WriteString(" ")
		b.WriteString(e.Meaning)
	}
	return b.String()
}

// FormatFlags renders caps in the RS compact grammar (rs-contract §3.3):
// t=,role=,g=false,eq,r=,lex,sem,a= in that order, each only when
// applicable; declared-but-unusable capabilities as <flag>=unusable:<reason>;
// "declared" when no token applies. Values are sanitised like the RS does so
// the output always parses back with ParseFlags.
func FormatFlags(c Caps) string {
	var toks []string
	if c.Type != "" {
		toks = append(toks, "t="+sanitizeList(c.Type))
	}
	if c.Role != "" {
		toks = append(toks, "role="+sanitize(c.Role))
	}
	if !c.Granted {
		toks = append(toks, "g=false")
	}
	toks = appendCap(toks, "eq", c.Exact, nil)
	toks = appendCap(toks, "r", c.Range, c.RangeOps)
	toks = appendCap(toks, "lex", c.Lexical, nil)
	toks = appendCap(toks, "sem", c.Semantic, nil)
	if aggs := canonicalAggs(c.Aggs); len(aggs) > 0 {
		for i, a := range aggs {
			aggs[i] = sanitize(a)
		}
		toks = append(toks, "a="+strings.Join(aggs, "|"))
	}
	if len(toks) == 0 {
		return "declared"
	}
	return strings.Join(toks, ",")
}

func appendCap(toks []string, flag string, c Capability, ops []string) []string {
	switch {
	case c.Usable && len(ops) > 0:
		clean := make([]string, len(ops))
		for i, op := range ops {
			clean[i] = sanitize(op)
		}
		return append(toks, flag+"="+strings.Join(clean, "|"))
	case c.Usable:
		return append(toks, flag)
	case c.Declared && c.Reason != "":
		return append(toks, flag+"=unusable:"+sanitize(c.Reason))
	case c.Declared:
		return append(toks, flag+"=unusable")
	}
	return toks
}

// canonicalAggs returns a copy of kinds: known kinds in AggKinds order, then
// unknown ones in their given order, without duplicates or empties.
func canonicalAggs(kinds []string) []string {
	out := make([]string, 0, len(kinds))
	for _, k := range AggKinds {
		if slices.Contains(kinds, k) {
			out = append(out, k)
		}
	}
	for _, k := range kinds {
		if k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// sanitize mirrors the RS compact view: separators and whitespace become
// "_" so a value can never break the grammar. "|" is also replaced because
// it separates list items.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ';', ',', '[', ']', '{', '}', '=', '|', ' ', '\t', '\n', '\r', '\v', '\f':
			return '_'
		}
		if r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, s)
}

// sanitizeList sanitises each "|"-separated item (union types).
func sanitizeList(s string) string {
	parts := strings.Split(s, "|")
	for i, p := range parts {
		parts[i] = sanitize(p)
	}
	return strings.Join(parts, "|")
}

// ParseFlags is the inverse of FormatFlags. Tokens may come in any order;
// an unknown, duplicate or malformed token yields a *FlagError naming it,
// together with the Caps parsed from the other tokens so lenient callers
// (Parse) keep what they can.
func ParseFlags(s string) (Caps, error) {
	c := Caps{Granted: true}
	if s == "declared" {
		return c, nil
	}
	if s == "" {
		return c, &FlagError{Flags: s, Token: s, Reason: `empty; use "declared"`}
	}
	var firstErr error
	seen := map[string]bool{}
	for _, tok := range strings.Split(s, ",") {
		name, val, hasVal := strings.Cut(tok, "=")
		err := func() string {
			if seen[name] {
				return "duplicate token"
			}
			seen[name] = true
			switch name {
			case "t", "role":
				if !hasVal || val == "" || !validList(val) {
					return "needs a non-empty value"
				}
				if name == "t" {
					c.Type = val
				} else if strings.Contains(val, "|") {
					return "role takes one value"
				} else {
					c.Role = val
				}
			case "g":
				if val != "false" {
					return `only "g=false" is defined`
				}
				c.Granted = false
			case "eq", "lex", "sem":
				capb, _, msg := parseCap(val, hasVal, false)
				if msg != "" {
					return msg
				}
				*capField(&c, name) = capb
			case "r":
				capb, ops, msg := parseCap(val, hasVal, true)
				if msg != "" {
					return msg
				}
				c.Range, c.RangeOps = capb, ops
			case "a":
				if !hasVal || val == "" || !validList(val) {
					return "needs kinds joined by |"
				}
				kinds := strings.Split(val, "|")
				if len(canonicalAggs(kinds)) != len(kinds) {
					return "duplicate aggregation kind"
				}
				c.Aggs = canonicalAggs(kinds)
			case "declared":
				return `"declared" must stand alone`
			default:
				return "unknown token"
			}
			return ""
		}()
		if err != "" && firstErr == nil {
			firstErr = &FlagError{Flags: s, Token: tok, Reason: err}
		}
	}
	return c, firstErr
}

func capField(c *Caps, name string) *Capability {
	switch name {
	case "eq":
		return &c.Exact
	case "lex":
		return &c.Lexical
	}
	return &c.Semantic
}

// parseCap reads the value part of eq/r/lex/sem: bare (usable),
// "unusable[:reason]" (declared, unusable), or for r a list of operators.
func parseCap(val string, hasVal, listOK bool) (Capability, []string, string) {
	if !hasVal {
		return Capability{Declared: true, Usable: true}, nil, ""
	}
	if rest, ok := strings.CutPrefix(val, "unusable"); ok {
		if rest == "" {
			return Capability{Declared: true}, nil, ""
		}
		if reason, ok := strings.CutPrefix(rest, ":"); ok && validList(reason) && !strings.Contains(reason, "|") {
			return Capability{Declared: true, Reason: reason}, nil, ""
		}
		return Capability{}, nil, `expected "unusable:<reason>"`
	}
	if !listOK || val == "" || !validList(val) {
		return Capability{}, nil, "unexpected value"
	}
	return Capability{Declared: true, Usable: true}, strings.Split(val, "|"), ""
}

// validList reports whether every "|"-separated item is non-empty and
// survives sanitisation unchanged (so FormatFlags reproduces it).
func validList(v string) bool {
	for _, p := range strings.Split(v, "|") {
		if p == "" || sanitize(p) != p {
			return false
		}
	}
	return true
}
