package ritest

import (
	"slices"
	"strings"
)

// Truth is what the seeded RI holds, derived from the data set rather
// than read back from the RI, so a test compares what the adapter shows
// against what was put in.
type Truth struct {
	// MessagesTotal is the number of messages over both connections (54).
	MessagesTotal int
	// MessageIDs are the record ids of every message, sorted.
	MessageIDs []string
	// PerConnection holds the figures of each connection by key
	// ("work", "personal").
	PerConnection map[string]ConnectionTruth
	// SizeBytesSum and SizeBytesMax aggregate messages.size_bytes over both
	// connections (151,407 and 4,973).
	SizeBytesSum, SizeBytesMax int
	// MessagesPerMonth counts messages by received_at month ("2026-01").
	MessagesPerMonth map[string]int
	// SeenTrue and SeenFalse count messages by is_seen (27 and 27).
	SeenTrue, SeenFalse int
	// LongBodyID is the body the window tests read (work-m000-body), with
	// its text, its length in characters and where "Paragraph 50." starts.
	LongBodyID     string
	LongBodyText   string
	LongBodyChars  int
	Paragraph50At  int
	KayakItinerary []string // message ids whose subject or snippet says "kayak itinerary"
	Zephyr         []string // body ids whose text holds "ZEPHYR"
}

// ConnectionTruth is the figures of one connection.
type ConnectionTruth struct {
	DisplayName string
	// Counts is the number of records per stream.
	Counts       map[string]int
	SizeBytesSum int
	// MessageIDs are the record ids of the connection's messages, sorted.
	MessageIDs []string
}

// LongBody is the body whose windows the tests reassemble.
const LongBody = "work-m000-body"

// GroundTruth derives the figures of ds.
func GroundTruth(ds *Dataset) Truth {
	t := Truth{PerConnection: map[string]ConnectionTruth{}, MessagesPerMonth: map[string]int{}, LongBodyID: LongBody}
	for _, c := range ds.Connections() {
		ct := ConnectionTruth{DisplayName: c.DisplayName, Counts: map[string]int{}}
		for _, s := range seedStreams {
			ct.Counts[s] = c.RecordCount(s)
		}
		for _, m := range c.Messages {
			t.MessagesTotal++
			t.MessageIDs = append(t.MessageIDs, m.ID)
			ct.MessageIDs = append(ct.MessageIDs, m.ID)
			ct.SizeBytesSum += m.SizeBytes
			t.SizeBytesMax = max(t.SizeBytesMax, m.SizeBytes)
			t.MessagesPerMonth[m.ReceivedAt[:7]]++
			if m.IsSeen {
				t.SeenTrue++
			} else {
				t.SeenFalse++
			}
			if strings.Contains(strings.ToLower(m.Subject+m.Snippet), "kayak itinerary") {
				t.KayakItinerary = append(t.KayakItinerary, m.ID)
			}
		}
		t.SizeBytesSum += ct.SizeBytesSum
		for _, b := range c.Bodies {
			if strings.Contains(b.BodyText, "ZEPHYR") {
				t.Zephyr = append(t.Zephyr, b.ID)
			}
			if b.ID == LongBody {
				t.LongBodyText = b.BodyText
				t.LongBodyChars = len([]rune(b.BodyText))
				t.Paragraph50At = strings.Index(b.BodyText, "Paragraph 50.")
			}
		}
		slices.Sort(ct.MessageIDs)
		t.PerConnection[c.Key] = ct
	}
	slices.Sort(t.MessageIDs)
	slices.Sort(t.KayakItinerary)
	slices.Sort(t.Zephyr)
	return t
}
