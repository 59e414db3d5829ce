package page

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wholeLadderLink is the resource link as chosen before the walk stopped
// early: every record's ladder built (maxLadderEntries in all), then the
// first long text taken.
func wholeLadderLink(p *recordPage) []Link {
	var entries []LadderEntry
	for i, r := range p.records {
		if len(entries) >= maxLadderEntries || r.Ref.RecordID == "" || r.Ref.Stream == "" {
			break
		}
		entries = append(entries, p.recordLadder(i)...)
	}
	if len(entries) > maxLadderEntries {
		entries = entries[:maxLadderEntries]
	}
	for _, l := range entries {
		if l.Continuation != nil && l.Continuation.ResourceURI != "" && l.Class == ClassText && l.SizeChars >= minLinkedChars {
			return []Link{{URI: l.Continuation.ResourceURI, Name: "rest of " + truncateBytes(l.FieldPath, 32), MIMEType: "text/plain"}}
		}
	}
	return nil
}

// FuzzResourceLinkMatchesWholeLadder: the page's link, found by counting
// entries and building only a candidate record's, is the one building the
// whole ladder finds, over random pages with and without a projection.
func FuzzResourceLinkMatchesWholeLadder(f *testing.F) {
	for _, seed := range []uint64{1, 7, 2026, 1 << 33} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, seed uint64, project bool) {
		rng := rand.New(rand.NewPCG(seed, 31))
		var fields []string
		if project {
			fields = []string{"f0_", "f1_", "f2_"}
		}
		p := newRecordPage("messages", "", fields, genRecordList(rng), 0, memberRanker{}, resultCeiling{})
		_ = p.text()
		if diff := cmp.Diff(wholeLadderLink(p), p.resourceLinks()); diff != "" {
			t.Fatalf("resource link (-whole ladder +walk):\n%s", diff)
		}
	})
}
