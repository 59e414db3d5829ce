package page

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Bounds of the value previews that page texts cut to fit.
const (
	previewMaxRunes = 1000 // longest string run a preview ever shows
	previewMinRunes = 24   // shortest cut before whole members are dropped: shorter stubs say nothing
	previewMaxDepth = 64   // deeper payloads are previewed as "…"
	titleRunes      = 80   // a title's cut when other members are dropped
)

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
		w, c := JSONRuneCost(s, i)
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
		si := ScanString(lit, previewMaxRunes+1)
		if si.Binary {
			return w.arena.node(preview{kind: 'l', lit: string(AppendBinaryStub(nil, si.MIMEType, si.SizeBytes)),
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
func (w *previewWalker) skipString() { w.i, _ = SkipJSONString(w.b, w.i) }

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
	return DecodeJSONString(w.b[start:w.i]) // valid: json.Valid checked the document
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
