package page

import (
	"encoding/json"
	"fmt"
	"slices"
)

// cutRef names one cut value for the footer's example continuation;
// field is "" when no cut value on the page is text.
type cutRef struct{ id, field string }

// noteCut records the page's example cut value: the first cut member that
// is text, since read_record_field reads only text fields (the RS refuses
// a boolean, number or array with field_not_text); until one is seen, the
// first record with any cut, whose footer then names fetch alone.
func (p *recordPage) noteCut(id string, pv *preview, cut []string) {
	if len(cut) == 0 || (p.firstCut != nil && p.firstCut.field != "") {
		return
	}
	for _, name := range cut {
		// The payload's own id repeats the fetch id: any other text first.
		if name != "id" && textMember(pv, name) {
			p.firstCut = &cutRef{id: id, field: name}
			return
		}
	}
	if slices.Contains(cut, "id") && textMember(pv, "id") {
		p.firstCut = &cutRef{id: id, field: "id"}
		return
	}
	if p.firstCut == nil {
		p.firstCut = &cutRef{id: id}
	}
}

// textMember reports whether the object preview's top-level member name
// holds a string (a large base64 value is a binary stub, not a string).
func textMember(pv *preview, name string) bool {
	if pv == nil || pv.kind != 'o' {
		return false
	}
	for i, k := range pv.keys {
		if k == name {
			return pv.kids[i].kind == 's'
		}
	}
	return false
}

// cutFooter is the text's line that tells how to read a cut value whole.
func (p *recordPage) cutFooter(id, fieldName string) string { return "\n" + p.cutHint(id, fieldName) }

// cutHint tells how to read a cut value whole, with exact calls; the text
// and structuredContent carry the same words. It names the fields to ask
// for a narrower page: what the records are about (focus), when known.
func (p *recordPage) cutHint(id, fieldName string) string {
	fields := "[…]"
	if len(p.focus) > 0 {
		b, _ := json.Marshal(p.focus)
		fields = string(b)
	}
	if fieldName == "" {
		return fmt.Sprintf("values ending in … are cut; fetch {\"id\":%s} (any listed id) shows a record whole, "+
			"or ask fewer fields (fields:%s) or a smaller limit", quote(id), fields)
	}
	return fmt.Sprintf("values ending in … are cut; read one whole with read_record_field {\"id\":%s,\"field_path\":%s} "+
		"(any listed id and text field), fetch that id, or ask fewer fields (fields:%s) or a smaller limit", quote(id), quote(truncateBytes(fieldName, 64)), fields)
}

// maxFocusFields bounds the fields a cut hint suggests asking for.
const maxFocusFields = 6

// focusFields are the leading members of the first record with a title,
// time, actor or summary rank: the fields:[…] a too-wide page suggests.
func focusFields(parsed []*preview, rank memberRanker) []string {
	for _, pv := range parsed {
		if pv == nil || pv.kind != 'o' {
			continue
		}
		var out []string
		for _, k := range pv.keys {
			if rank.rank(k) <= rankSummary && len(out) < maxFocusFields {
				out = append(out, truncateBytes(k, 64))
			}
		}
		return out
	}
	return nil
}
