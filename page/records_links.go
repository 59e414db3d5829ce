package page

import ()

// recordLadder lists record i's cut and binary fields (tier 1), at most
// ladderEntriesPerItem. A cut string's continuation starts right after the
// first limit-1 runes and the ellipsis the page shows.
func (p *recordPage) recordLadder(i int) []LadderEntry {
	r := p.records[i]
	opt := LadderOptions{PreviewChars: p.shownRunes(i), MaxEntries: ladderEntriesPerItem}
	if fields, ok := p.parsed[i].ladderFieldsOf(); ok {
		return LadderFromFields(r.Ref, fields, opt)
	}
	return BuildLadder(r.Ref, r.Payload, opt)
}

// shownRunes is the runes record i's line shows of a cut string (its
// ladder's PreviewChars).
func (p *recordPage) shownRunes(i int) int {
	shown := previewMaxRunes
	if i < len(p.fitted) && p.fitted[i].limit > 0 {
		shown = p.fitted[i].limit - 1
	}
	return max(1, shown)
}

// linkCandidates counts record i's ladder entries without building them
// and reports whether one may be a linked text; ok is false when the
// record's fields are not known from its parse (its ladder is built).
func (p *recordPage) linkCandidates(i int) (entries int, candidate, ok bool) {
	fields, ok := p.parsed[i].ladderFieldsOf()
	if !ok {
		return 0, false, false
	}
	preview := p.shownRunes(i)
	for _, fi := range fields {
		if entries == ladderEntriesPerItem {
			break
		}
		if InLadder(fi, preview) {
			entries++
			candidate = candidate || (fi.Class == ClassText && fi.SizeChars >= minLinkedChars)
		}
	}
	return entries, candidate, true
}

// resourceLinks offer resource-aware clients the continuation window of
// the first long text the page cuts (tier 3): one entry is enough, since
// each window's resource read names the next. Claude Code shows every link
// to the model as a line, so a page links once, tersely, and only text
// worth a window: short values cut to fit (ids, addresses) are read whole
// with read_record_field, as the cut hint says. The page's ladder (its
// first maxLadderEntries entries, record by record) is walked only up to
// that first link: building every record's entries cost a quarter of a
// record page's allocations.
func (p *recordPage) resourceLinks() []Link {
	seen := 0
	for i, r := range p.records {
		if seen >= maxLadderEntries || r.Ref.RecordID == "" || r.Ref.Stream == "" {
			break
		}
		if n, candidate, ok := p.linkCandidates(i); ok && !candidate {
			seen += n // entries counted, none built: no long text here
			continue
		}
		for _, l := range p.recordLadder(i) {
			if seen++; seen > maxLadderEntries {
				return nil
			}
			if l.Continuation != nil && l.Continuation.ResourceURI != "" && l.Class == ClassText && l.SizeChars >= minLinkedChars {
				return []Link{{URI: l.Continuation.ResourceURI, Name: "rest of " + truncateBytes(l.FieldPath, 32), MIMEType: "text/plain"}}
			}
		}
	}
	return nil
}

// minLinkedChars is the shortest cut text a record page links to.
const minLinkedChars = 500

// linkLineRoom is what one resource link costs where a host shows it as a
// line ("[Resource link: <name>] <uri>"): the fit reserves it so the page
// stays within its budget there too.
const linkLineRoom = 240
