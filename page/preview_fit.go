package page

import (
	"bytes"
	"sort"
)

// fittedPreview is one record payload rendered for a text line.
type fittedPreview struct {
	text  string   // compact JSON preview, "" for an empty payload
	cut   []string // top-level fields whose values were cut or left out
	limit int      // the rune cap strings were cut at: a cut one shows limit-1 runes
}

// fit renders the payload in at most maxBytes: strings are cut with … to
// the longest common rune length that fits; when even short cuts do not
// fit, trailing members are left out and counted ("…+3 fields"). An object
// with role members (title, time, actor, summary) spends the bytes on them
// first: they are shown whole, or as long as fits with every other member
// left out, before any other member gets a byte. Large base64 values are
// binary stubs, never bytes.
func (p *preview) fit(maxBytes int) fittedPreview {
	if p.size(previewMaxRunes) <= maxBytes {
		return p.rendered(previewMaxRunes)
	}
	if q := p.withoutEmpty(); q != p {
		return q.fit(maxBytes)
	}
	if p.kind == 'o' && p.roles > 0 && p.roles < len(p.kids) {
		if fp, ok := p.fitRolesFirst(maxBytes); ok {
			return fp
		}
	}
	// Largest rune cap in [previewMinRunes, previewMaxRunes) that fits.
	n := sort.Search(previewMaxRunes-previewMinRunes, func(i int) bool {
		return p.size(previewMinRunes+i) > maxBytes
	})
	if n > 0 {
		return p.rendered(previewMinRunes + n - 1)
	}
	return p.dropMembers(maxBytes)
}

// fitRolesFirst fits an object whose leading p.roles members are its role
// members: those whole (up to previewMaxRunes) with the other members cut
// to the longest common cap that fits, or left out from the end (the
// identifiers rank last, so they go first); when the role members alone
// do not fit whole, they are cut to the longest common cap with every
// other member left out. ok is false when not even that fits at
// previewMinRunes (dropMembers takes over).
func (p *preview) fitRolesFirst(maxBytes int) (fittedPreview, bool) {
	others := len(p.kids) - p.roles
	if p.splitSize(previewMaxRunes, previewMinRunes, others) <= maxBytes {
		n := sort.Search(previewMaxRunes-previewMinRunes, func(i int) bool {
			return p.splitSize(previewMaxRunes, previewMinRunes+i, others) > maxBytes
		})
		return p.renderedSplit(previewMaxRunes, previewMinRunes+n-1, others), true
	}
	if p.splitSize(previewMaxRunes, previewMinRunes, 0) <= maxBytes {
		keep := sort.Search(others+1, func(k int) bool {
			return p.splitSize(previewMaxRunes, previewMinRunes, k) > maxBytes
		}) - 1
		return p.renderedSplit(previewMaxRunes, previewMinRunes, keep), true
	}
	n := sort.Search(previewMaxRunes-previewMinRunes, func(i int) bool {
		return p.splitSize(previewMinRunes+i, 0, 0) > maxBytes
	})
	if n == 0 {
		return fittedPreview{}, false
	}
	return p.renderedSplit(previewMinRunes+n-1, 0, 0), true
}

// roleFloorRunes is the cap a page's floor gives each record's role
// members: a chat message, a subject or a name whole; a longer body cut
// (read_record_field reads it whole).
const roleFloorRunes = 400

// roleFloorLen is the shortest preview that still shows the role members
// cut at roleFloorRunes with every other member left out (empty members
// already dropped): what a page reserves for each record it shows. A
// record without role members reserves minimalLen.
func (p *preview) roleFloorLen() int {
	q := p.withoutEmpty()
	if q.kind != 'o' || q.roles == 0 {
		return p.fitFloorLen()
	}
	return min(q.size(previewMaxRunes), q.splitSize(roleFloorRunes, 0, 0))
}

// splitSize is len of what renderSplit writes, counted without writing.
func (p *preview) splitSize(roleLimit, otherLimit, keep int) int {
	shown := p.roles + keep
	n := 1 + max(0, shown-1) // the brace and the commas between shown members
	for i := range shown {
		n += JSONStringLen(p.keys[i]) + 1 + p.kids[i].size(p.splitLimit(i, roleLimit, otherLimit))
	}
	return n + moreFieldsLen(shown, len(p.kids)-shown, p.emptied)
}

// splitLimit is member i's rune cap in a split render.
func (p *preview) splitLimit(i, roleLimit, otherLimit int) int {
	if i < p.roles {
		return roleLimit
	}
	return otherLimit
}

// renderedSplit renders an object with its role members' strings cut at
// roleLimit runes, the next keep members' at otherLimit, and the rest
// left out and counted. Its limit (for the continuation windows of cut
// strings) is the smaller cap that cut something: a continuation that
// starts early repeats a little, one that starts late would skip text.
func (p *preview) renderedSplit(roleLimit, otherLimit, keep int) fittedPreview {
	shown := p.roles + keep
	var b bytes.Buffer
	b.WriteByte('{')
	var cut []string
	limit := previewMaxRunes
	for i := range shown {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, p.keys[i])
		b.WriteByte(':')
		l := p.splitLimit(i, roleLimit, otherLimit)
		p.kids[i].render(&b, l)
		if p.kids[i].longerThan(l) {
			cut = append(cut, p.keys[i])
			limit = min(limit, l)
		}
	}
	b.WriteString(moreFields(shown, len(p.kids)-shown, p.emptied))
	cut = append(cut, p.keys[shown:]...)
	return fittedPreview{text: b.String(), cut: cut, limit: limit}
}

func (p *preview) rendered(limit int) fittedPreview {
	var b bytes.Buffer
	p.render(&b, limit)
	return fittedPreview{text: b.String(), cut: p.cutFields(limit), limit: limit}
}

// dropMembers keeps the leading members (strings cut short) that fit and
// counts the ones left out. Its shortest form (measured by minimalLen) is the floor a
// page reserves for every record.
func (p *preview) dropMembers(maxBytes int) fittedPreview {
	if p.kind != 'o' {
		var b bytes.Buffer
		p.render(&b, previewMinRunes)
		return fittedPreview{text: truncateBytes(b.String(), maxBytes), cut: nil, limit: previewMinRunes}
	}
	var b, one bytes.Buffer
	b.WriteByte('{')
	for i, k := range p.kids {
		one.Reset()
		if i > 0 {
			one.WriteByte(',')
		}
		writeJSONString(&one, p.keys[i])
		one.WriteByte(':')
		mark := one.Len()
		k.render(&one, previewMinRunes)
		if i < p.lead && k.longerThan(previewMinRunes) {
			// A title says what the record is: longer, where it fits.
			var long bytes.Buffer
			k.render(&long, titleRunes)
			if b.Len()+mark+long.Len()+moreFieldsLen(i+1, len(p.kids)-i-1, p.emptied) <= maxBytes {
				one.Truncate(mark)
				one.Write(long.Bytes())
			}
		}
		if b.Len()+one.Len()+moreFieldsLen(i+1, len(p.kids)-i-1, p.emptied) > maxBytes {
			b.WriteString(moreFields(i, len(p.kids)-i, p.emptied))
			return fittedPreview{text: b.String(), cut: append([]string(nil), p.keys[i:]...), limit: previewMinRunes}
		}
		b.Write(one.Bytes())
	}
	b.WriteString(moreFields(len(p.kids), 0, p.emptied))
	return fittedPreview{text: b.String(), cut: p.cutFields(previewMinRunes), limit: previewMinRunes}
}

// withoutEmpty is the object without its empty members (null, "", [],
// {}), counted in emptied; p itself when it has none or is no object.
func (p *preview) withoutEmpty() *preview {
	if p.kind != 'o' {
		return p
	}
	if p.stripped == nil {
		p.stripped = p.stripEmpty()
	}
	return p.stripped
}

// stripEmpty computes withoutEmpty (once per preview: a record is fitted
// at several budgets while the page is laid out).
func (p *preview) stripEmpty() *preview {
	kept := 0
	for _, k := range p.kids {
		if !k.isEmpty() {
			kept++
		}
	}
	if kept == len(p.kids) {
		return p
	}
	q := *p
	q.keys, q.kids = make([]string, 0, kept), make([]*preview, 0, kept)
	q.lead, q.roles, q.namesKnown = 0, 0, false
	for i, k := range p.kids {
		if k.isEmpty() {
			q.emptied++
			continue
		}
		if i < p.lead {
			q.lead++
		}
		if i < p.roles {
			q.roles++
		}
		q.keys, q.kids = append(q.keys, p.keys[i]), append(q.kids, k)
	}
	return &q // kept < len(p.kids): at least one member was emptied
}

// isEmpty reports a value that says nothing: null, "", [] or {}.
func (p *preview) isEmpty() bool {
	switch p.kind {
	case 'l':
		return p.lit == "null"
	case 's':
		return p.runes == 0
	}
	return len(p.kids) == 0
}
