package demodata

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestLongBody(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{{}, {Seed: 5, Records: 5000}} {
		ds := mustBuild(t, opts)
		idx := recordIndex(ds)
		r, ok := idx[[3]string{GmailWorkConnectionID, "message_bodies", LongBodyMessageID}]
		if !ok {
			t.Fatalf("%+v: LongBodyMessageID missing from the work connection", opts)
		}
		body := str(t, fields(t, r), "body_text")
		if len(body) != LongBodyLength {
			t.Errorf("%+v: long body is %d chars, want %d", opts, len(body), LongBodyLength)
		}
		if got := strings.Index(body, LongBodyTerm); got != LongBodyTermOffset {
			t.Errorf("%+v: term at offset %d, want %d", opts, got, LongBodyTermOffset)
		}
		// Exactly once in the whole dataset, any case, any record, any field.
		term := []byte(LongBodyTerm)
		n := 0
		for _, rec := range ds.Records {
			n += bytes.Count(bytes.ToLower(rec.Data), term)
		}
		if n != 1 {
			t.Errorf("%+v: %q occurs %d times in the dataset, want 1", opts, LongBodyTerm, n)
		}
		if _, ok := idx[[3]string{GmailWorkConnectionID, "messages", LongBodyMessageID}]; !ok {
			t.Errorf("%+v: long body has no messages record", opts)
		}
	}
}

func TestOtherLongBodies(t *testing.T) {
	t.Parallel()
	ds := mustDefault(t)
	var long []string
	for _, r := range ds.Records {
		if r.Stream != "message_bodies" || r.ID == LongBodyMessageID {
			continue
		}
		if len(str(t, fields(t, r), "body_text")) > 20_000 {
			long = append(long, r.ID)
		}
	}
	slices.Sort(long)
	want := slices.Sorted(slices.Values(LongBodyIDs))
	if !slices.Equal(long, want) {
		t.Errorf("bodies over 20,000 chars = %v, want LongBodyIDs %v", long, want)
	}
	if len(want) < 4 {
		t.Errorf("only %d other long bodies, want at least 4", len(want))
	}
}

func TestSharedRecord(t *testing.T) {
	t.Parallel()
	ds := mustDefault(t)
	got := map[string][]string{}
	for _, r := range ds.Records {
		if r.ID == SharedRecordID {
			got[r.Stream] = append(got[r.Stream], r.ConnectionID)
		}
	}
	both := []string{GmailPersonalConnectionID, GmailWorkConnectionID}
	for _, s := range []string{"messages", "message_bodies"} {
		if !slices.Equal(got[s], both) {
			t.Errorf("SharedRecordID in %s: connections %v, want %v", s, got[s], both)
		}
	}
}

func TestFill(t *testing.T) {
	t.Parallel()
	for i, f := range fillers {
		if len(f) != i {
			t.Errorf("fillers[%d] = %q has length %d", i, f, len(f))
		}
	}
	for n := 0; n < 400; n++ {
		if got := len(fill(n)); got != n {
			t.Errorf("len(fill(%d)) = %d", n, got)
		}
	}
}

// TestBanksAvoidTerm guards the uniqueness of LongBodyTerm at the source.
func TestBanksAvoidTerm(t *testing.T) {
	t.Parallel()
	var all []string
	for _, b := range bank {
		all = append(all, b...)
	}
	all = slices.Concat(all, sentences, chatLines, prompts, answers, subjects, memoryFacts, issueTitles, prTitles, repoNames, slackChannelNames)
	for _, s := range all {
		if strings.Contains(strings.ToLower(s), LongBodyTerm) {
			t.Errorf("bank entry %q contains LongBodyTerm", s)
		}
	}
}
