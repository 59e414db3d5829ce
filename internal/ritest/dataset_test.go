package ritest

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDatasetBytes pins the SHA-256 of every ingest body: the seeded
// database cache is keyed by SeedVersion, so a change to the records must
// change these sums (and SeedVersion with them).
func TestDatasetBytes(t *testing.T) {
	t.Parallel()
	ds := Generate()
	want := map[string]string{
		"personal/labels":         "73dbb8517381df1eb2cf2b5be4f23a1871356f8d086f8fec2f5ef3bae5e653de",
		"personal/message_bodies": "3cae71e6c06a4108e93fd5e24d39c732a509f11cb08bcc9a53faf588d6b3d79d",
		"personal/messages":       "d3682a904c602c9020c46be0918af93089374f5e23578faf81ae690dd8bfcd8e",
		"personal/threads":        "5677df25ff27f978cbc18440bd5b4ef3c5cbe03a436e4da81ab09c3818a9a8d9",
		"work/labels":             "6d6416cca9e9cac21e233a952bba492b14db34248a7768aa6f93502bc1cc1c79",
		"work/message_bodies":     "fea35c633da0d36364aee95834666f18703aa1afd3de755dd5baa287b36be08a",
		"work/messages":           "ebff172612ca69a459cd76603e15889fa097df1a113dcec983a42da102947fea",
		"work/threads":            "be42b859715724a2538a2a1eaebbc5fe3b44785e9b9c9ddd84d21d775635edda",
	}
	got := map[string]string{}
	for _, c := range ds.Connections() {
		for _, s := range seedStreams {
			b, err := c.NDJSON(s)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			got[c.Key+"/"+s] = hex.EncodeToString(sum[:])
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ingest bodies changed (-want +got):\n%s", diff)
	}
}

// TestGroundTruth pins the figures the RI tests assert against.
func TestGroundTruth(t *testing.T) {
	t.Parallel()
	tr := GroundTruth(Generate())
	type figures struct {
		Total, Work, Personal, Sum, Max, SeenTrue, SeenFalse, LongChars, Para50 int
		PerMonth                                                                map[string]int
		Kayak, Zephyr                                                           []string
		WorkCounts, PersonalCounts                                              map[string]int
	}
	want := figures{
		Total: 54, Work: 30, Personal: 24, Sum: 151_407, Max: 4_973, SeenTrue: 27, SeenFalse: 27,
		LongChars: 24_970, Para50: 15_339,
		PerMonth:       map[string]int{"2026-01": 18, "2026-02": 18, "2026-03": 18},
		Kayak:          []string{"personal-m005", "personal-m017", "work-m004", "work-m013", "work-m022"},
		Zephyr:         []string{"personal-m012-body", "work-m010-body"},
		WorkCounts:     map[string]int{"messages": 30, "message_bodies": 30, "threads": 10, "labels": 4},
		PersonalCounts: map[string]int{"messages": 24, "message_bodies": 24, "threads": 8, "labels": 4},
	}
	got := figures{
		Total: tr.MessagesTotal, Work: len(tr.PerConnection["work"].MessageIDs), Personal: len(tr.PerConnection["personal"].MessageIDs),
		Sum: tr.SizeBytesSum, Max: tr.SizeBytesMax, SeenTrue: tr.SeenTrue, SeenFalse: tr.SeenFalse,
		LongChars: tr.LongBodyChars, Para50: tr.Paragraph50At, PerMonth: tr.MessagesPerMonth,
		Kayak: tr.KayakItinerary, Zephyr: tr.Zephyr,
		WorkCounts: tr.PerConnection["work"].Counts, PersonalCounts: tr.PerConnection["personal"].Counts,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ground truth (-want +got):\n%s", diff)
	}
	if len(tr.MessageIDs) != 54 || tr.PerConnection["work"].SizeBytesSum+tr.PerConnection["personal"].SizeBytesSum != 151_407 {
		t.Errorf("ids %d, per-connection sums do not add up", len(tr.MessageIDs))
	}
}
