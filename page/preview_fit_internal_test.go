package page

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzPreviewFit: any payload parses or is refused; a parsed one renders
// as JSON equal to its input when nothing is cut, and fit never exceeds
// its room beyond the minimal form.
func FuzzPreviewFit(f *testing.F) {
	f.Add(`{"a":"hello","b":[1,2,{"c":null}],"d":true}`, 40)
	f.Add(`{"s":"line\nbreak \"quoted\" \\ ünï 😀 \u0001"}`, 10)
	f.Add(`[1,2,3]`, 2)
	f.Add(`"just a string"`, 5)
	f.Fuzz(func(t *testing.T, doc string, room int) {
		p, ok := parsePreview(json.RawMessage(doc))
		if !ok {
			return
		}
		var whole bytes.Buffer
		p.render(&whole, previewMaxRunes)
		if !p.longerThan(previewMaxRunes) && !strings.Contains(doc, `"data:`) {
			var in, out any
			if json.Unmarshal([]byte(doc), &in) == nil && json.Unmarshal(whole.Bytes(), &out) != nil {
				t.Fatalf("render is not JSON: %s", whole.String())
			}
		}
		room = room % 4096
		if room < 0 {
			room = -room
		}
		room = max(room, len(p.minimal()))
		if got := p.fit(room); len(got.text) > room {
			t.Fatalf("fit(%d) = %d bytes: %s", room, len(got.text), got.text)
		}
	})
}

func TestShareBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		natural, floor []int
		room           int
		want           []int
		ok             bool
	}{
		{"all fit whole", []int{10, 20, 30}, []int{5, 5, 5}, 100, []int{10, 20, 30}, true},
		{"long lines cut evenly", []int{10, 100, 100}, []int{5, 5, 5}, 110, []int{10, 50, 50}, true},
		{"floors kept", []int{100, 100}, []int{60, 5}, 100, []int{60, 40}, true},
		{"floors do not fit", []int{100, 100}, []int{60, 60}, 100, nil, false},
		{"empty page", nil, nil, 0, []int{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := shareBudget(tc.natural, tc.floor, tc.room)
			if ok != tc.ok {
				t.Fatalf("ok = %t", ok)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("sizes (-want +got):\n%s", diff)
			}
		})
	}
}

// minimal is the shortest preview minimalLen measures: for an object its
// member count only.
func (p *preview) minimal() string {
	switch {
	case p.kind == 'o' && len(p.kids) == 0 && p.emptied == 0:
		return "{}"
	case p.kind == 'o':
		return "{" + moreFields(0, len(p.kids), p.emptied)
	case p.kind == 'l' && p.lit == "null":
		return ""
	}
	return Ellipsis
}
