package adapter

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/pdpp/pdpp-mcp/page"
)

// Bounds of the value previews that page texts cut to fit.
const (
	previewMaxRunes = 1000 // longest string run a preview ever shows
	previewMinRunes = 24   // shortest cut before whole members are dropped: shorter stubs say nothing
	previewMaxDepth = 64   // deeper payloads are previewed as "…"
	titleRunes      = 80   // a title's cut when other members are dropped
)

// shareBudget splits room bytes among lines that want natural[i] bytes
// and need at least floor[i] (their handles): every line gets
// max(floor, min(natural, cap)) for the largest common cap that fits, so
// long lines are cut evenly and short ones stay whole. ok is false when
// even the floors do not fit.
func shareBudget(natural, floor []int, room int) (sizes []int, ok bool) {
	total := func(c int) int {
		sum := 0
		for i := range natural {
			sum += max(floor[i], min(natural[i], c))
		}
		return sum
	}
	top := 0
	for _, n := range natural {
		top = max(top, n)
	}
	if total(0) > room {
		return nil, false
	}
	// The largest cap in [0, top] whose total fits (total is monotonic).
	c := sort.Search(top+1, func(c int) bool { return total(c) > room }) - 1
	sizes = make([]int, len(natural))
	for i := range natural {
		sizes[i] = max(floor[i], min(natural[i], c))
	}
	return sizes, true
}

// preview is a payload parsed once for repeated rendering at different
// string caps: fitting a page renders each record several times, and
// re-decoding 50,000-char bodies each time would dominate the call.
type preview struct {
	kind byte // 'o' object, 'a' array, 's' string, 'l' literal (number, bool, null, binary stub)
	// ascii marks a string whose kept runes are printable ASCII with
	// nothing to escape: its cut sizes are arithmetic, not a walk.
	ascii bool
	// whole marks a string that is shown whole or not at all: a cut
	// timestamp ("2026-03-27T…") says nothing.
	whole      bool
	namesKnown bool   // names holds namesLen
	lit        string // literal JSON
	str        string // string value, pre-cut to previewMaxRunes+1 runes
	runes      int    // the string's full rune count (binary strings too)
	keys       []string
	kids       []*preview
	raw        []byte // the value's bytes in the payload (shared, not copied)
	// bin is set for a large-base64 string shown as the binary stub in
	// lit: its metadata for the content ladder. Rare, so kept apart: a
	// page is hundreds of nodes.
	bin *binaryMeta
	// marks are the other strings' cut sizes every markRunes runes, made
	// on the first size() that cuts: fitting probes a dozen cuts per
	// string, and each walked the kept runes from the start.
	marks   []cutMark
	fullLen int // JSONStringLen(str) once asked (0: not yet)
	// emptied counts an object's members left out because they are empty
	// (null, "", [], {}): the first thing a record drops to fit.
	emptied int
	// lead counts an object's leading title members (memberRanker.order):
	// when members must be dropped, these keep a longer cut.
	lead int
	// roles counts an object's leading role members (title, time, actor,
	// summary: memberRanker.order): what a person reads first, shown
	// whole before any other member gets a byte.
	roles int
	// stripped is withoutEmpty's answer once asked (p itself when there is
	// nothing to strip).
	stripped *preview
	// names is namesLen once namesKnown.
	names int
}

// binaryMeta is a binary stub's MIME type and decoded size.
type binaryMeta struct {
	mime  string
	bytes int64
}

// markRunes is the spacing of a string's cut marks.
const markRunes = 64

// cutMark is where the string's first k·markRunes runes end (byte offset
// in str) and their JSON length with the opening quote.
type cutMark struct{ off, json int }

// buildMarks fills p.marks for a string.
func (p *preview) buildMarks() {
	s := p.str
	p.marks = make([]cutMark, 0, len(s)/markRunes+1)
	n, runes := 1, 0
	for i := 0; i < len(s); {
		w, c := page.JSONRuneCost(s, i)
		n += c
		i += w
		if runes++; runes%markRunes == 0 {
			p.marks = append(p.marks, cutMark{off: i, json: n})
		}
	}
}

// isPlainASCII reports whether s is ASCII that JSON writes as is (no
// controls, quotes or backslashes).
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// parsePreview reads a JSON value; ok is false for invalid JSON. It checks
// the bytes once (json.Valid allocates nothing) and then walks them
// directly: a json.Decoder token stream allocates an error value at the
// end of every array element and object member, which made this the
// largest allocator of a record page.
func parsePreview(raw json.RawMessage) (*preview, bool) {
	return new(previewArena).parse(raw)
}

// previewArena hands out preview nodes from shared blocks: a page of
// records is tens of nodes per record, and one allocation each was the
// largest count of a page of short records.
type previewArena struct {
	block []preview
	// kids and keys are the open containers' members while parsing (a
	// stack); each closed container's are copied into exact slices cut
	// from kidBlock and keyBlock, instead of growing two slices per
	// object member by member.
	kids     []*preview
	keys     []string
	kidBlock []*preview
	keyBlock []string
	// names holds member names already seen on this page: every record
	// of a stream repeats the same few, one copy each is enough.
	names map[string]string
}

// maxInterned bounds names: a hostile payload's distinct names are copied
// as usual once it is full.
const maxInterned = 256

// intern is string(b), shared with earlier equal names.
func (a *previewArena) intern(b []byte) string {
	if s, ok := a.names[string(b)]; ok { // the lookup does not copy b
		return s
	}
	s := string(b)
	if len(a.names) < maxInterned {
		if a.names == nil {
			a.names = make(map[string]string)
		}
		a.names[s] = s
	}
	return s
}

// parse is parsePreview with nodes from the arena.
func (a *previewArena) parse(raw json.RawMessage) (*preview, bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	return a.parseValid(raw)
}

// parseValid is parse of bytes known to be one valid JSON value: record
// data as rsclient decodes it (its contract, fuzzed there) or as project
// re-encodes it. It skips the validity scan, a full pass over every body.
func (a *previewArena) parseValid(raw json.RawMessage) (*preview, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	w := previewWalker{b: raw, arena: a}
	return w.value(0)
}

// arenaSlab is the member slots a block holds.
const arenaSlab = 256

// closeMembers moves the members pushed since kidMark and keyMark into
// exact slices from the blocks and pops them.
func (a *previewArena) closeMembers(kidMark, keyMark int) ([]*preview, []string) {
	var kids []*preview
	var keys []string
	if n := len(a.kids) - kidMark; n > 0 {
		if len(a.kidBlock) < n {
			a.kidBlock = make([]*preview, max(arenaSlab, n))
		}
		kids = a.kidBlock[:n:n]
		a.kidBlock = a.kidBlock[n:]
		copy(kids, a.kids[kidMark:])
		clear(a.kids[kidMark:])
		a.kids = a.kids[:kidMark]
	}
	if n := len(a.keys) - keyMark; n > 0 {
		if len(a.keyBlock) < n {
			a.keyBlock = make([]string, max(arenaSlab, n))
		}
		keys = a.keyBlock[:n:n]
		a.keyBlock = a.keyBlock[n:]
		copy(keys, a.keys[keyMark:])
		clear(a.keys[keyMark:])
		a.keys = a.keys[:keyMark]
	}
	return kids, keys
}

func (a *previewArena) node(v preview) *preview {
	if len(a.block) == 0 {
		a.block = make([]preview, 64)
	}
	n := &a.block[0]
	a.block = a.block[1:]
	*n = v
	return n
}

// previewWalker reads previews out of bytes json.Valid accepted.
type previewWalker struct {
	b     []byte
	i     int
	arena *previewArena
}

func (w *previewWalker) skipSpace() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// value reads one value at depth (the outermost is 0); ok is false only
// when a container is nested previewMaxDepth deep.
func (w *previewWalker) value(depth int) (*preview, bool) {
	w.skipSpace()
	start := w.i
	switch c := w.b[w.i]; c {
	case '{', '[':
		if depth >= previewMaxDepth {
			return nil, false
		}
		w.i++
		p := w.arena.node(preview{kind: 'a'})
		closing := byte(']')
		if c == '{' {
			p.kind, closing = 'o', '}'
		}
		a := w.arena
		kidMark, keyMark := len(a.kids), len(a.keys)
		for {
			w.skipSpace()
			switch w.b[w.i] {
			case closing:
				w.i++
				p.raw = w.b[start:w.i:w.i]
				p.kids, p.keys = a.closeMembers(kidMark, keyMark)
				return p, true
			case ',':
				w.i++
				w.skipSpace()
			}
			if p.kind == 'o' {
				a.keys = append(a.keys, w.str())
				w.skipSpace()
				w.i++ // ':'
			}
			kid, ok := w.value(depth + 1)
			if !ok {
				a.kids, a.keys = a.kids[:kidMark], a.keys[:keyMark]
				return nil, false
			}
			a.kids = append(a.kids, kid)
		}
	case '"':
		w.skipString()
		lit := w.b[start:w.i:w.i]
		// Only the runes a preview can show are decoded; the rest of a
		// long body is counted.
		si := page.ScanString(lit, previewMaxRunes+1)
		if si.Binary {
			return w.arena.node(preview{kind: 'l', lit: string(page.AppendBinaryStub(nil, si.MIMEType, si.SizeBytes)),
				runes: si.Runes, raw: lit, bin: &binaryMeta{mime: si.MIMEType, bytes: si.SizeBytes}}), true
		}
		return w.arena.node(preview{kind: 's', str: si.Prefix, runes: si.Runes, raw: lit, ascii: isPlainASCII(si.Prefix),
			whole: si.Runes <= 40 && looksLikeTimestamp(si.Prefix)}), true
	default: // number, true, false, null: the literal's own bytes
		for w.i < len(w.b) && !isJSONDelimiter(w.b[w.i]) {
			w.i++
		}
		return w.arena.node(preview{kind: 'l', lit: literal(w.b[start:w.i]), raw: w.b[start:w.i:w.i]}), true
	}
}

// literal is a number's or keyword's text; the keywords need no copy.
func literal(b []byte) string {
	switch string(b) { // no allocation: the conversion is only compared
	case "true":
		return "true"
	case "false":
		return "false"
	case "null":
		return "null"
	}
	return string(b)
}

// skipString moves past the string literal at w.i (its opening quote).
func (w *previewWalker) skipString() { w.i, _ = page.SkipJSONString(w.b, w.i) }

// isJSONDelimiter ends a number or literal.
func isJSONDelimiter(c byte) bool {
	switch c {
	case ',', ']', '}', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// str reads the string at w.i (its opening quote) and returns its value.
// Strings without escapes and with valid UTF-8 are their own bytes; the
// rest are decoded exactly as encoding/json decodes them (invalid UTF-8
// and lone surrogates as U+FFFD).
func (w *previewWalker) str() string {
	start := w.i
	w.skipString()
	body := w.b[start+1 : w.i-1]
	plain := bytes.IndexByte(body, '\\') < 0
	if plain && utf8.Valid(body) {
		return w.arena.intern(body)
	}
	return page.DecodeJSONString(w.b[start:w.i]) // valid: json.Valid checked the document
}

// render writes the value with strings longer than limit runes cut to
// limit runes (the last one an ellipsis).
func (p *preview) render(b *bytes.Buffer, limit int) {
	switch p.kind {
	case 'l':
		b.WriteString(p.lit)
	case 's':
		s := p.str
		if p.runes > limit && !p.whole {
			s, _ = page.TruncateRunes(s, limit)
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
				p.fullLen = page.JSONStringLen(p.str)
			}
			return p.fullLen
		}
		if limit <= 0 {
			return 2 // TruncateRunes cuts to ""
		}
		// TruncateRunes keeps limit-1 runes and appends the ellipsis,
		// which needs no escaping.
		if p.ascii {
			return 2 + limit - 1 + len(page.Ellipsis)
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
			w, c := page.JSONRuneCost(p.str, i)
			n += c
			i += w
		}
		return n + 1 + len(page.Ellipsis) // closing quote, ellipsis
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
			p.names += page.JSONStringLen(k) + 1
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
	b.Write(page.AppendJSONString(b.AvailableBuffer(), s))
}

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
		n += page.JSONStringLen(p.keys[i]) + 1 + p.kids[i].size(p.splitLimit(i, roleLimit, otherLimit))
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

// looksLikeTimestamp reports an ISO 8601 date or time ("2026-03-27",
// "2026-03-27T09:30:00Z") or an RFC 5322 date ("Thu, 16 Apr 2026 …"):
// strings a page shows whole or not at all.
func looksLikeTimestamp(s string) bool {
	if len(s) < 10 || len(s) > 40 {
		return false
	}
	digit := func(c byte) bool { return '0' <= c && c <= '9' }
	if digit(s[0]) && digit(s[1]) && digit(s[2]) && digit(s[3]) && s[4] == '-' && digit(s[5]) && digit(s[6]) && s[7] == '-' {
		return true
	}
	return len(s) >= 16 && s[3] == ',' && s[4] == ' ' && digit(s[5])
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
	return len(page.Ellipsis)
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
