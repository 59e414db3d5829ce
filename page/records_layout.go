package page

import (
	"strconv"
)

// recordTextBudget is the content[] byte budget of a page of n records:
// room for the handles plus a share per record.
func recordTextBudget(n int) int { return 2000 + 300*n }

// layout renders every record line so that the whole text fits the page
// budget, cutting long values evenly across the page. Every record shown
// keeps its role fields (title, time, actor, summary) up to roleFloorRunes;
// records past what the result ceiling holds that way are left for the
// next page (held), whose cursor resumes at the first of them. If even the
// bare handles cannot fit (pathologically long ids), the page keeps only
// the records it can show and drops the RS cursors, so paging never passes
// a record the text did not show.
func (p *recordPage) layout() {
	n := len(p.records)
	if n == 0 {
		return
	}
	m := p.measure()
	prefixes, reserved, previews := m.prefixes, m.reserved, m.previews
	natural, floor, bare := m.natural, m.floor, m.bare
	longestID, longestKey := m.longestID, m.longestKey
	// Both channels carry the same fitted values, so the page is fitted to
	// the larger of the two framings: the text's header, legend and footer,
	// or the JSON's members, warnings and cut hint (R-3: the same budget
	// binds both).
	fixed := func() int {
		return max(len(p.header())+len(recordLegend)+len(p.cutFooter(longestID, longestKey)),
			p.structuredFraming(p.cutHint(longestID, longestKey))+linkLineRoom)
	}
	// A page whose budget would pass the ceiling shows the records that
	// fit it, each with its role fields (floor), or as many as the budget
	// formula gives at the ceiling, cut evenly (bare): whichever is more.
	// The rest are held for the next page.
	f := fixed()
	if recordTextBudget(n) > p.ceiling.bytes && p.ceiling.resume != nil {
		if k := p.holdBack(floor, bare, fixed); k < n {
			p.layout()
			return
		}
	}
	// A page that holds records back fills the ceiling; any other keeps
	// to recordTextBudget. Where the role floors do not fit, records are
	// cut evenly down to their bare handles.
	room := min(p.ceiling.bytes, recordTextBudget(n)) - f
	if p.held > 0 {
		room = p.ceiling.bytes - f
	}
	sizes, ok := shareBudget(natural, floor, room)
	if !ok {
		sizes, ok = shareBudget(natural, bare, room)
	}
	if !ok {
		p.withhold(bare, f)
		p.layout()
		return
	}
	p.lines = make([]string, n)
	p.fitted = make([]fittedPreview, n)
	for i, r := range p.records {
		line := prefixes[i]
		if previews[i] != nil {
			fp := previews[i].fit(sizes[i] - reserved[i] - 1)
			p.fitted[i] = fp
			line += " " + fp.text
			p.noteCut(r.ID, previews[i], fp.cut)
		}
		p.lines[i] = line
	}
}

// recordSizes are each record line's prefix and its sizes: the framing
// reserved (the longer of the line's and the JSON record's), the natural
// size, the floor with role fields, and the bare floor (handles and a
// member count); and the longest id and member name, for the cut hint.
type recordSizes struct {
	prefixes                       []string
	reserved, natural, floor, bare []int
	previews                       []*preview
	longestID, longestKey          string
}

// measure sizes every record line of the page.
func (p *recordPage) measure() recordSizes {
	n := len(p.records)
	m := recordSizes{prefixes: make([]string, n), reserved: make([]int, n), previews: make([]*preview, n),
		natural: make([]int, n), floor: make([]int, n), bare: make([]int, n)}
	for i, r := range p.records {
		m.prefixes[i] = "\n" + strconv.Itoa(i+1) + ". " + r.ID
		if r.Deleted {
			m.prefixes[i] += " deleted_at=" + truncateBytes(r.DeletedAt, 40)
		}
		if len(r.ID) > len(m.longestID) {
			m.longestID = r.ID
		}
		m.reserved[i] = max(len(m.prefixes[i]), structuredRecordFraming(r))
		m.natural[i], m.floor[i], m.bare[i] = m.reserved[i], m.reserved[i], m.reserved[i]
		if pv := p.parsed[i]; pv != nil && pv.minimalLen() > 0 {
			m.previews[i] = pv
			m.natural[i] += 1 + pv.size(previewMaxRunes)
			m.floor[i] += 1 + pv.roleFloorLen()
			m.bare[i] += 1 + pv.fitFloorLen()
			if k := pv.longestKey(); len(k) > len(m.longestKey) {
				m.longestKey = k
			}
		}
	}
	return m
}

// holdBack keeps the leading records that fit the ceiling with their role
// fields (floor), or, if more, as many as recordTextBudget gives within
// the ceiling with their bare handles, and leaves the rest for the next
// page: has_more, and a next_cursor that resumes at the first record
// left. The framing is measured with that cursor and note in place. It
// returns the records kept (len(floor) when none are left).
func (p *recordPage) holdBack(floor, bare []int, fixed func() int) int {
	n := len(floor)
	held0 := p.held
	rsCursor, rsSince, rsMore := p.list.NextCursor, p.list.NextChangesSince, p.list.HasMore
	restore := func() {
		p.held = held0
		p.list.NextCursor, p.list.NextChangesSince, p.list.HasMore = rsCursor, rsSince, rsMore
	}
	if sum(floor) <= p.ceiling.bytes-fixed() {
		return n // every record fits with its role fields: nothing to leave
	}
	fits := func(k int) bool {
		p.held = held0 + n - k
		p.list.NextCursor, p.list.NextChangesSince, p.list.HasMore = p.ceiling.resume(k), "", true
		f := p.ceiling.bytes - fixed()
		return sum(floor[:k]) <= f || (recordTextBudget(k) <= p.ceiling.bytes && sum(bare[:k]) <= f)
	}
	for k := n - 1; k > 0; k-- {
		if fits(k) {
			p.records, p.parsed = p.records[:k], p.parsed[:k]
			return k
		}
	}
	restore()
	return n
}

// withhold keeps the leading records whose bare handles fit and forgets
// the RS cursors, which point past the records it drops.
func (p *recordPage) withhold(floor []int, fixed int) {
	const note = 200 // the withheld warning line
	k, used := 0, 0
	for k < len(floor)-1 && used+floor[k]+fixed+note <= min(recordTextBudget(k+1), p.ceiling.bytes) {
		used += floor[k]
		k++
	}
	p.withheld += len(p.records) - k
	p.records, p.parsed = p.records[:k], p.parsed[:k]
	p.list.NextCursor, p.list.NextChangesSince, p.list.HasMore = "", "", true
}

// structuredRecordFraming is the bytes a record takes in structuredContent
// besides its fitted data: [<id>,<data>(,<deleted_at>)] and a comma.
func structuredRecordFraming(r pageRecord) int {
	n := len(`[,],`) + JSONStringLen(r.ID)
	if r.Deleted {
		n += 1 + JSONStringLen(truncateBytes(r.DeletedAt, 40))
	}
	return n
}

// structuredFraming is the bytes of structuredContent besides its records'
// framing and data, with the cut hint cut (escaped as JSON writes it).
func (p *recordPage) structuredFraming(cut string) int {
	head := p.structuredHead()
	head.Records = []recordOnPage{}
	return len(head.appendJSON(nil)) + len(`,"cut":`) + JSONStringLen(cut)
}
