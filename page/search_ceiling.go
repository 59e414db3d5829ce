package page

// fitCeiling settles how many of the page's merged hits it shows and its
// paging handles. A page whose budget stays within the result ceiling
// shows every hit; a larger one shows the hits that fit the ceiling whole
// (title and snippet), or as many as searchTextBudget gives within the
// ceiling cut evenly, whichever is more, and leaves the rest for the next
// page. resume(shown) is the paging state after the page shows its first
// shown hits: whether any source has more, and the cursor then. The
// ranked merge takes a prefix of each source's hits, so any prefix of the
// page is a valid page.
func (p *searchPage) fitCeiling(resume func(shown int) (bool, string)) {
	n := len(p.hits)
	settle := func(k int) {
		p.hasMore, p.nextCursor = resume(k)
		p.held = n - k
		p.multiConn = multiConnection(p.hits)
		p.laid = nil
	}
	settle(n)
	// Every page is measured, however few its hits: the framing alone (a
	// long cursor, a coverage retry, notes) can take what the budget
	// formula leaves for the lines.
	if p.ceiling <= 0 {
		return
	}
	all, natural, floor := p.hits, make([]int, n), make([]int, n)
	for i, h := range all {
		l := h.hitLine(i)
		label := len(h.label())
		natural[i] = len(l.render(searchResultSnippet)) + hitJSONExtra + label
		floor[i] = len(l.render(0)) + hitJSONExtra + label
	}
	fits := func(k int) bool {
		p.hits = all[:k]
		settle(k)
		room := p.ceiling - p.framing()
		return sum(natural[:k]) <= room || (searchTextBudget(k) <= p.ceiling && sum(floor[:k]) <= room)
	}
	if fits(n) {
		return
	}
	for k := n - 1; k > 0; k-- {
		if fits(k) {
			return
		}
	}
	p.hits = all
	settle(n)
}

// multiConnection reports whether the hits come from more than one
// connection: only then does the page show its source mix.
func multiConnection(hits []searchHit) bool {
	conns := map[string]bool{}
	for _, h := range hits {
		conns[h.ConnectionID] = true
	}
	return len(conns) > 1
}

// framing is the bytes the page takes besides its hit lines, in the
// larger of its two channels: the header and footer or the structured
// members, and the warning lines.
func (p *searchPage) framing() int {
	text, structured := len(p.header())+len(searchFooter), p.structuredFraming()+linkLineRoom
	for _, w := range p.layoutWarnings() {
		// A warning is a line in the text and a JSON string in
		// structuredContent, where every quote and backslash is escaped:
		// a retry call quoted in a warning doubles them.
		text += len(w) + 8
		structured += JSONStringLen(w) + 8
	}
	return max(text, structured)
}
