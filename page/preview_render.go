package page

import (
	"bytes"
	"strconv"
)

// render writes the value with strings longer than limit runes cut to
// limit runes (the last one an ellipsis).
func (p *preview) render(b *bytes.Buffer, limit int) {
	switch p.kind {
	case 'l':
		b.WriteString(p.lit)
	case 's':
		s := p.str
		if p.runes > limit && !p.whole {
			s, _ = TruncateRunes(s, limit)
		}
		writeJSONString(b, s)
	case 'o', 'a':
		open, closing := byte('['), byte(']')
		if p.kind == 'o' {
			open, closing = '{', '}'
		}
		b.WriteByte(open)
		for i, k := range p.kids {
			if i > 0 {
				b.WriteByte(',')
			}
			if p.kind == 'o' {
				writeJSONString(b, p.keys[i])
				b.WriteByte(':')
			}
			k.render(b, limit)
		}
		if p.emptied > 0 {
			b.WriteString(moreFields(len(p.kids), 0, p.emptied))
			return
		}
		b.WriteByte(closing)
	}
}

// size is len of what render(limit) writes, counted without writing:
// fitting asks for it at many limits per record.
func (p *preview) size(limit int) int {
	switch p.kind {
	case 'l':
		return len(p.lit)
	case 's':
		if p.runes <= limit || p.whole {
			if p.fullLen == 0 {
				p.fullLen = JSONStringLen(p.str)
			}
			return p.fullLen
		}
		if limit <= 0 {
			return 2 // TruncateRunes cuts to ""
		}
		// TruncateRunes keeps limit-1 runes and appends the ellipsis,
		// which needs no escaping.
		if p.ascii {
			return 2 + limit - 1 + len(Ellipsis)
		}
		if p.marks == nil {
			p.buildMarks()
		}
		keep := limit - 1
		i, n, kept := 0, 1, 0
		if m := min(keep/markRunes, len(p.marks)); m > 0 {
			i, n, kept = p.marks[m-1].off, p.marks[m-1].json, m*markRunes
		}
		for ; kept < keep; kept++ {
			w, c := JSONRuneCost(p.str, i)
			n += c
			i += w
		}
		return n + 1 + len(Ellipsis) // closing quote, ellipsis
	}
	n := 2 + max(0, len(p.kids)-1) // brackets and commas
	if p.kind == 'o' {
		n += p.namesLen()
	}
	for _, k := range p.kids {
		n += k.size(limit)
	}
	if p.emptied > 0 {
		n += moreFieldsLen(len(p.kids), 0, p.emptied) - 1 // the marker replaces the closing brace
	}
	return n
}

// namesLen is the bytes an object's member names and colons take, counted
// once: fitting sizes a record at a dozen limits, and the names never
// change with the limit (nor with the members' order).
func (p *preview) namesLen() int {
	if !p.namesKnown {
		p.names = 0
		for _, k := range p.keys {
			p.names += JSONStringLen(k) + 1
		}
		p.namesKnown = true
	}
	return p.names
}

// longerThan reports whether any string inside is cut at limit.
func (p *preview) longerThan(limit int) bool {
	if p.kind == 's' {
		return p.runes > limit && !p.whole
	}
	for _, k := range p.kids {
		if k.longerThan(limit) {
			return true
		}
	}
	return false
}

// writeJSONString writes s as a JSON string without HTML escaping (as
// structuredContent writes it), so snippet tags stay readable.
func writeJSONString(b *bytes.Buffer, s string) {
	b.Grow(len(s) + 8) // room for the quotes and a few escapes: appended in place
	b.Write(AppendJSONString(b.AvailableBuffer(), s))
}

// moreFields closes a preview that shows `shown` members and leaves out
// `left` more with values and `empty` empty ones.
//
// The marker is a JSON member (`"…":"+3 fields, 2 empty"`), so a fitted
// preview stays one JSON object: the text line shows it as it is, and
// structuredContent embeds the very same bytes.
func moreFields(shown, left, empty int) string {
	var v string
	switch {
	case left == 0 && empty == 0:
		return "}"
	case left > 0 && empty > 0:
		v = "+" + strconv.Itoa(left) + " fields, " + strconv.Itoa(empty) + " empty"
	case left > 0:
		v = "+" + strconv.Itoa(left) + " fields"
	default:
		v = "+" + strconv.Itoa(empty) + " empty"
	}
	if shown > 0 {
		return `,"…":"` + v + `"}`
	}
	return `"…":"` + v + `"}`
}

// moreFieldsLen is len(moreFields(shown, left, empty)), counted: fitting
// asks for it at every probe, and building the marker to measure it was a
// sixth of a record page's allocations.
func moreFieldsLen(shown, left, empty int) int {
	var v int
	switch {
	case left == 0 && empty == 0:
		return 1
	case left > 0 && empty > 0:
		v = 1 + decimalLen(left) + len(" fields, ") + decimalLen(empty) + len(" empty")
	case left > 0:
		v = 1 + decimalLen(left) + len(" fields")
	default:
		v = 1 + decimalLen(empty) + len(" empty")
	}
	n := len(`"…":"`) + v + len(`"}`)
	if shown > 0 {
		n++ // the comma
	}
	return n
}

// decimalLen is len(strconv.Itoa(n)) for n ≥ 0.
func decimalLen(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// minimalLen is the length of the shortest preview, counted without
// building it: for an object "{" and its member count only ("{}" when it
// has none), "" for null, else the ellipsis alone.
func (p *preview) minimalLen() int {
	switch {
	case p.kind == 'o' && len(p.kids) == 0 && p.emptied == 0:
		return 2
	case p.kind == 'o':
		return 1 + moreFieldsLen(0, len(p.kids), p.emptied)
	case p.kind == 'l' && p.lit == "null":
		return 0
	}
	return len(Ellipsis)
}

// fitFloorLen is the length of the shortest preview fit renders: the
// minimal form of the payload without its empty members (which counts
// them, "+3 fields, 2 empty", so can be longer than minimalLen).
func (p *preview) fitFloorLen() int {
	return max(p.minimalLen(), p.withoutEmpty().minimalLen())
}

// cutFields names the top-level fields whose values are cut at limit.
func (p *preview) cutFields(limit int) []string {
	if p.kind != 'o' {
		return nil
	}
	var out []string
	for i, k := range p.kids {
		if k.longerThan(limit) {
			out = append(out, p.keys[i])
		}
	}
	return out
}

// longestKey is the longest top-level member name (bounded), for reserving
// the footer's room before knowing which value is cut.
func (p *preview) longestKey() string {
	best := ""
	for _, k := range p.keys {
		if len(k) > len(best) {
			best = k
		}
	}
	return truncateBytes(best, 64)
}
