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

// Legend explains every token FormatFlags can emit, in grammar order. It
// belongs to the grammar, not to a page: it is the single source of every
// model-visible legend (the stream view's field_capability_legend, the
// schema page's legend line) so none drifts from what FormatFlags emits.
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
		if reason := applyFlagToken(&c, tok, seen); reason != "" && firstErr == nil {
			firstErr = &FlagError{Flags: s, Token: tok, Reason: reason}
		}
	}
	return c, firstErr
}

// flagToken is one comma-separated token of a flag string, split at its
// first "=".
type flagToken struct {
	name, val string
	hasVal    bool
}

// applyFlagToken parses tok into c and returns why it is rejected, "" when
// it is not. A token name counts as seen even when its value is rejected,
// so a second one is a duplicate either way.
func applyFlagToken(c *Caps, tok string, seen map[string]bool) string {
	name, val, hasVal := strings.Cut(tok, "=")
	if seen[name] {
		return "duplicate token"
	}
	seen[name] = true
	parse, ok := flagTokenParsers[name]
	if !ok {
		return "unknown token"
	}
	return parse(c, flagToken{name: name, val: val, hasVal: hasVal})
}

// flagTokenParsers read each known token name into Caps. Each returns the
// reason a token is rejected ("" when accepted) and leaves Caps unchanged
// when it rejects one.
var flagTokenParsers = map[string]func(*Caps, flagToken) string{
	"t":    parseTypeToken,
	"role": parseRoleToken,
	"g":    parseGrantedToken,
	"eq":   parseCapToken,
	"lex":  parseCapToken,
	"sem":  parseCapToken,
	"r":    parseRangeToken,
	"a":    parseAggsToken,
	"declared": func(*Caps, flagToken) string {
		return `"declared" must stand alone`
	},
}

// parseTypeToken reads t=<type>[|<type>...].
func parseTypeToken(c *Caps, t flagToken) string {
	if !t.hasVal || t.val == "" || !validList(t.val) {
		return "needs a non-empty value"
	}
	c.Type = t.val
	return ""
}

// parseRoleToken reads role=<role>: one value, never a list.
func parseRoleToken(c *Caps, t flagToken) string {
	if !t.hasVal || t.val == "" || !validList(t.val) {
		return "needs a non-empty value"
	}
	if strings.Contains(t.val, "|") {
		return "role takes one value"
	}
	c.Role = t.val
	return ""
}

// parseGrantedToken reads g=false, the only form of g.
func parseGrantedToken(c *Caps, t flagToken) string {
	if t.val != "false" {
		return `only "g=false" is defined`
	}
	c.Granted = false
	return ""
}

// parseCapToken reads eq, lex or sem into the capability it names.
func parseCapToken(c *Caps, t flagToken) string {
	capb, _, msg := parseCap(t.val, t.hasVal, false)
	if msg != "" {
		return msg
	}
	*capField(c, t.name) = capb
	return ""
}

// parseRangeToken reads r, which may list its operators.
func parseRangeToken(c *Caps, t flagToken) string {
	capb, ops, msg := parseCap(t.val, t.hasVal, true)
	if msg != "" {
		return msg
	}
	c.Range, c.RangeOps = capb, ops
	return ""
}

// parseAggsToken reads a=<kind>|<kind>..., each kind at most once, into
// canonical order.
func parseAggsToken(c *Caps, t flagToken) string {
	if !t.hasVal || t.val == "" || !validList(t.val) {
		return "needs kinds joined by |"
	}
	kinds := strings.Split(t.val, "|")
	if len(canonicalAggs(kinds)) != len(kinds) {
		return "duplicate aggregation kind"
	}
	c.Aggs = canonicalAggs(kinds)
	return ""
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
