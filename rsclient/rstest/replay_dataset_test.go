package rstest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// The dataset the real-RS captures were taken against
// (real-rs-differences.md): the repository's gmail manifest, two connections
// under one grant (messages, message_bodies, threads; not labels), 54
// messages with bodies, every 7th body 24–28k characters, 18 threads and 8
// labels. Ids, connection ids and the record layout follow the captures so
// their paths replay unchanged; the words are generated.
const (
	replayWork     = "cin_a04c279a74d7d404a1bc1159"
	replayPersonal = "cin_00905a5871e88ea4ab502a99"
	replayClient   = "1111111111111111111111111111111111111111111111111111111111111111"
	replayOwner    = "0000000000000000000000000000000000000000000000000000000000000001"
)

// replayWords is the generated vocabulary (the captures' own filler words;
// "zephyr" and "xyzzy…" never occur, as in 0122 and 0125).
var replayWords = strings.Fields(`appointment budget insurance update confirmation repair claim statement renewal
review alpha vacation contract trip kayak roadmap shipping recipe quarterly library mortgage flight photos
birthday garden dentist tickets party lunch hotel concert project tomatoes deadline itinerary books meeting
booking invoice bicycle`)

// replayTopics are the subjects, cycled.
var replayTopics = []string{"Kayak trip itinerary", "Quarterly budget review", "Invoice #10%02d", "Dentist appointment",
	"Project alpha roadmap", "Concert tickets"}

// words returns n deterministic vocabulary words for seed.
func words(seed, n int) string {
	out := make([]string, n)
	x := uint32(seed*2654435761 + 12345)
	for i := range out {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		out[i] = replayWords[int(x%uint32(len(replayWords)))]
	}
	return strings.Join(out, " ")
}

// replayDataset builds the capture-shaped dataset.
func replayDataset(t *testing.T) *rstest.Dataset {
	t.Helper()
	raw, err := os.ReadFile("testdata/manifest-gmail.json")
	if err != nil {
		t.Fatal(err)
	}
	gmail, err := demodata.ParseManifest(raw)
	if err != nil {
		t.Fatal(err)
	}
	gmail.SourceID = "https://registry.pdpp.dev/connectors/gmail"
	ds := &rstest.Dataset{
		Connectors: []*rstest.Connector{gmail},
		Connections: []rstest.Connection{
			{ID: replayWork, ConnectorKey: gmail.Key, DisplayName: "Work Gmail"},
			{ID: replayPersonal, ConnectorKey: gmail.Key, DisplayName: "Personal Gmail"},
		},
		OwnerTokens: []string{replayOwner},
	}
	add := func(conn, stream, id string, at time.Time, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		ds.Records = append(ds.Records, rstest.Record{ConnectionID: conn, Stream: stream, ID: id, Data: b, EmittedAt: at})
	}
	for _, mb := range []struct {
		conn, prefix string
		n            int
	}{{replayWork, "work", 30}, {replayPersonal, "personal", 24}} {
		for i := 0; i < mb.n; i++ {
			id := fmt.Sprintf("%s-m%03d", mb.prefix, i)
			at := time.Date(2026, time.Month(i%3+1), i%28+1, (8+i)%24, (7*i)%60, 0, 0, time.UTC)
			topic := replayTopics[i%len(replayTopics)]
			if strings.Contains(topic, "%") {
				topic = fmt.Sprintf(topic, i)
			}
			ts := at.Format("2006-01-02T15:04:05.000Z")
			add(mb.conn, "messages", id, at, map[string]any{"bcc": []string{}, "cc": []string{}, "date": ts,
				"from_email": "alice@example.com", "from_name": "Alice Chen", "has_attachments": i%3 == 0, "id": id,
				"in_reply_to": nil, "is_answered": i%4 == 0, "is_draft": false, "is_flagged": i%5 == 0, "is_seen": i%2 == 0,
				"labels": []string{"INBOX"}, "message_id": "<" + id + "@mail.example>", "received_at": ts, "references": []string{},
				"reply_to": []string{}, "size_bytes": 1000 + 137*i, "snippet": topic + ": " + words(i, 12),
				"subject": fmt.Sprintf("%s (%s %d)", topic, mb.prefix, i), "thread_id": fmt.Sprintf("%s-t%03d", mb.prefix, i/4),
				"to": []string{"me@example.com"}})
			paras := 6
			if i%7 == 0 {
				paras = 64 // 24–28k characters, like every 7th body of the captures
			}
			var body strings.Builder
			fmt.Fprintf(&body, "Dear me, this is message %s about %s.", id, strings.ToLower(topic))
			for p := 1; p <= paras; p++ {
				fmt.Fprintf(&body, "\n\nParagraph %d. %s.", p, words(i*100+p, 55))
			}
			add(mb.conn, "message_bodies", id+"-body", at, map[string]any{"body_html": nil, "body_html_bytes": nil,
				"body_source": "text_plain", "body_text": body.String(), "body_text_bytes": body.Len(), "charset": "utf-8",
				"content_languages": []string{"en"}, "id": id + "-body", "message_id": id, "message_received_at": ts})
		}
		for th := 0; th < 9; th++ {
			at := time.Date(2026, 1, th+1, 8, 0, 0, 0, time.UTC)
			id := fmt.Sprintf("%s-t%03d", mb.prefix, th)
			add(mb.conn, "threads", id, at, map[string]any{"id": id, "subject": replayTopics[th%len(replayTopics)],
				"participant_emails": []string{"alice@example.com"}, "message_count": 4, "first_message_date": at.Format(time.RFC3339),
				"last_message_date": at.Format(time.RFC3339), "labels": []string{"INBOX"}, "unread_count": 1, "flagged_count": 0,
				"has_attachments": false})
		}
		for l := 0; l < 4; l++ {
			name := fmt.Sprintf("Label %d", l)
			add(mb.conn, "labels", fmt.Sprintf("%s-l%d", mb.prefix, l), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
				map[string]any{"name": name, "canonical_name": name, "is_system": false, "parent_name": nil, "message_count": 3})
		}
	}
	both := []string{replayWork, replayPersonal}
	ds.Grants = []rstest.Grant{{ID: "grt_22ffe6953cafc84f", ClientID: "cli_f0aeabbf52d9e573", Token: replayClient,
		ConnectorKey: gmail.Key, Streams: []rstest.GrantStream{
			{Name: "messages", ConnectionIDs: both}, {Name: "message_bodies", ConnectionIDs: both}, {Name: "threads", ConnectionIDs: both}}}}
	return ds
}
