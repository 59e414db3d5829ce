package rstest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// sch is a tiny schema builder for test manifests.
func sch(props ...string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)
}

// gmailConnector mirrors the Gmail manifest used by rs-contract §3.4.
func gmailConnector() *Connector {
	str, nstr := `{"type":"string"}`, `{"type":["string","null"]}`
	msgs := Stream{
		Name: "messages", PrimaryKey: []string{"id"}, CursorField: "received_at", ConsentTimeField: "received_at",
		Semantics: "mutable_state", Selection: json.RawMessage(`{"fields":true,"resources":true}`),
		Schema: sch(`"id":`+str, `"thread_id":`+str,
			`"subject":{"type":["string","null"],"x_pdpp_type":"text","x_pdpp_role":"primary-title"}`,
			`"from_name":`+nstr, `"from_email":`+nstr, `"to":{"type":"array"}`, `"cc":{"type":"array"}`,
			`"bcc":{"type":"array"}`, `"reply_to":{"type":"array"}`,
			`"date":{"type":["string","null"],"format":"date-time"}`,
			`"received_at":{"type":"string","format":"date-time","x_pdpp_role":"event-time"}`,
			`"message_id":`+nstr, `"in_reply_to":`+nstr, `"references":{"type":"array"}`,
			`"size_bytes":{"type":["integer","null"]}`, `"labels":{"type":"array"}`,
			`"is_draft":{"type":"boolean"}`, `"is_flagged":{"type":"boolean"}`, `"is_seen":{"type":"boolean"}`,
			`"is_answered":{"type":"boolean"}`, `"has_attachments":{"type":"boolean"}`, `"snippet":`+nstr),
		Views: []View{{ID: "envelope", Label: "Envelope", Fields: []string{"id", "subject", "received_at"}}},
		Relationships: []Relationship{
			{Name: "message_bodies", Stream: "message_bodies", ForeignKey: "message_id", Cardinality: "has_one"},
			{Name: "attachments", Stream: "attachments", ForeignKey: "message_id", Cardinality: "has_many"}},
		Query: StreamQuery{
			RangeFilters: map[string][]string{"received_at": {"gte", "gt", "lte", "lt"}, "size_bytes": {"gte", "gt", "lte", "lt"}},
			Search:       &SearchDecl{LexicalFields: []string{"subject", "from_name", "from_email", "snippet"}, SemanticFields: []string{"subject", "snippet"}},
			Aggregations: &AggregationDecl{Count: true, Sum: []string{"size_bytes"},
				Min: []string{"received_at", "date", "size_bytes"}, Max: []string{"received_at", "date", "size_bytes"},
				GroupBy:     []string{"has_attachments", "is_seen", "is_flagged", "is_answered", "is_draft"},
				GroupByTime: []string{"received_at", "date"}},
			Expand: []ExpandDecl{{Name: "message_bodies"}, {Name: "attachments", DefaultLimit: 10, MaxLimit: 50}},
		},
	}
	bodies := Stream{
		Name: "message_bodies", PrimaryKey: []string{"id"},
		Schema: sch(`"id":`+str, `"message_id":`+str, `"message_received_at":{"type":["string","null"],"format":"date-time"}`,
			`"body_text":`+nstr, `"body_html":`+nstr, `"body_text_bytes":{"type":["integer","null"]}`,
			`"body_html_bytes":{"type":["integer","null"]}`, `"body_source":`+str,
			`"content_languages":{"type":["array","null"]}`, `"charset":`+nstr),
		Query: StreamQuery{
			Search:       &SearchDecl{LexicalFields: []string{"body_text"}, SemanticFields: []string{"body_text"}},
			Aggregations: &AggregationDecl{GroupByTime: []string{"message_received_at"}},
		},
	}
	att := Stream{Name: "attachments", PrimaryKey: []string{"id"}, Schema: sch(`"id":`+str, `"message_id":`+str, `"filename":`+str)}
	return &Connector{Key: "gmail", SourceID: "https://registry.pdpp.dev/connectors/gmail", DisplayName: "Gmail",
		Streams: []Stream{msgs, bodies, att}}
}

// slackConnector is a one-stream Slack manifest.
func slackConnector() *Connector {
	return &Connector{Key: "slack", SourceID: "slack", DisplayName: "Slack", Streams: []Stream{{
		Name: "messages", PrimaryKey: []string{"id"}, CursorField: "sent_at",
		Schema: sch(`"id":{"type":"string"}`, `"channel_id":{"type":"string"}`,
			`"sent_at":{"type":"string","format":"date-time","x_pdpp_role":"event-time"}`,
			`"text":{"type":["string","null"],"x_pdpp_role":"primary-title"}`, `"reaction_count":{"type":["integer","null"]}`),
		Query: StreamQuery{Search: &SearchDecl{LexicalFields: []string{"text"}, SemanticFields: []string{"text"}},
			Aggregations: &AggregationDecl{Count: true, CountDistinct: []string{"channel_id"}, GroupBy: []string{"channel_id"}}},
	}}}
}

// base is the dataset clock origin.
var base = time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)

// msgRecord builds one Gmail message payload.
func msgRecord(conn string, i int, receivedAt *time.Time) Record {
	id := fmt.Sprintf("m%03d", i)
	ra := "null"
	if receivedAt != nil {
		ra = `"` + receivedAt.Format(time.RFC3339) + `"`
	}
	data := fmt.Sprintf(`{"id":%q,"thread_id":"t%d","subject":"Project update %d","from_name":"Ann","from_email":"ann@example.com","to":[],"cc":[],"bcc":["secret@example.com"],"reply_to":[],"date":null,"received_at":%s,"message_id":null,"in_reply_to":null,"references":[],"size_bytes":%d,"labels":["INBOX"],"is_draft":false,"is_flagged":%t,"is_seen":true,"is_answered":false,"has_attachments":false,"snippet":"status of objectives %d"}`,
		id, i, i, ra, 100+i, i%2 == 0, i)
	return Record{ConnectionID: conn, Stream: "messages", ID: id, Data: json.RawMessage(data), EmittedAt: base.Add(time.Duration(i) * time.Minute)}
}

// bodyText is the §2.6 example text (Gmail message_bodies fixture).
const bodyText = "Here is the latest status on our project objectives. We have made significant progress on the core deliverables this week. The team completed the initial design phase and moved into development. Next steps include implementation review and integration testing scheduled for next week."

// testDataset: connA has 30 messages (m000..m029; m028, m029 with null
// received_at), connB has 5 (m000..m004, so those ids are ambiguous), plus
// bodies; Slack has 3 messages; several grants in every status.
func testDataset() *Dataset {
	ds := &Dataset{
		Connectors: []*Connector{gmailConnector(), slackConnector(), spotifyConnector()},
		Connections: []Connection{{ID: connA, ConnectorKey: "gmail", DisplayName: "Personal Gmail"},
			{ID: connB, ConnectorKey: "gmail", DisplayName: "Work Gmail"},
			{ID: connSlack, ConnectorKey: "slack", DisplayName: "Acme Slack"},
			{ID: connSpot, ConnectorKey: "spotify"},
			{ID: "cin_000000000000000000000002", ConnectorKey: "slack", DisplayName: "Other Slack"}},
		OwnerTokens:   []string{ownerTok},
		ExpiredTokens: []string{staleTok},
	}
	// "gone" was ingested first (the change log follows ingestion order)
	// and deleted two days later.
	ds.Records = append(ds.Records, Record{ConnectionID: connA, Stream: "messages", ID: "gone", Deleted: true,
		DeletedAt: base.Add(48 * time.Hour), EmittedAt: base, Data: json.RawMessage(`{}`)})
	for i := 0; i < 30; i++ {
		ts := base.Add(time.Duration(i%10) * time.Hour).Add(time.Duration(i) * time.Second)
		var p *time.Time
		if i < 28 {
			p = &ts
		}
		ds.Records = append(ds.Records, msgRecord(connA, i, p))
	}
	for i := 0; i < 5; i++ {
		ts := base.Add(time.Duration(i) * 24 * time.Hour)
		ds.Records = append(ds.Records, msgRecord(connB, i, &ts))
	}
	ds.Records = append(ds.Records,
		Record{ConnectionID: connA, Stream: "message_bodies", ID: "19659a5b3c1d4e2f", EmittedAt: base,
			Data: json.RawMessage(`{"id":"19659a5b3c1d4e2f","message_id":"m000","message_received_at":"2026-04-24T10:30:45Z","body_text":` + mustJSON(bodyText) + `,"body_html":null,"body_text_bytes":276,"body_source":"text_plain","charset":"utf-8"}`)},
		Record{ConnectionID: connA, Stream: "message_bodies", ID: "uni/code", EmittedAt: base,
			Data: json.RawMessage(`{"id":"uni/code","message_id":"m001","message_received_at":"2026-04-24T10:30:45Z","body_text":"héllo wörld 🎉 ünïcode — fin","body_source":"text_plain","body_text_bytes":3}`)},
		Record{ConnectionID: connA, Stream: "message_bodies", ID: "old", EmittedAt: base,
			Data: json.RawMessage(`{"id":"old","message_id":"m002","message_received_at":"2025-01-01T00:00:00Z","body_text":"too old","body_source":"x"}`)},
	)
	for i := 0; i < 3; i++ {
		ds.Records = append(ds.Records, Record{ConnectionID: connSlack, Stream: "messages", ID: fmt.Sprintf("C01:%d", i),
			EmittedAt: base.Add(time.Duration(i) * time.Hour),
			Data:      json.RawMessage(fmt.Sprintf(`{"id":"C01:%d","channel_id":"C0%d","sent_at":"2026-04-0%dT12:00:00Z","text":"This is a threaded reply %d","reaction_count":%d}`, i, i%2, i+1, i, i))})
	}
	ds.Records = append(ds.Records, spotifyRecords()...)
	msgFields := []string{"id", "thread_id", "subject", "from_name", "from_email", "to", "cc", "date", "received_at", "message_id", "in_reply_to", "references", "size_bytes", "labels", "is_draft", "is_flagged", "is_seen", "is_answered", "has_attachments", "snippet"}
	gmailStreams := []GrantStream{
		{Name: "messages", ConnectionIDs: []string{connA, connB}, Fields: msgFields},
		{Name: "message_bodies", ConnectionIDs: []string{connA, connB}, Fields: []string{"id", "message_id", "message_received_at", "body_text", "body_source"},
			TimeConstraint: &TimeConstraint{Field: "message_received_at", Since: "2026-01-01T00:00:00Z"}},
	}
	ds.Grants = []Grant{
		{ID: "grt_8c1d2e3f4a5b6c7d", ClientID: "cli_0a1b2c3d4e5f6a7b", Token: gmailTok, ConnectorKey: "gmail", Streams: gmailStreams},
		{ID: "grt_1f2e3d4c5b6a7980", ClientID: "cli_0a1b2c3d4e5f6a7b", Token: slackTok, ConnectorKey: "slack",
			Streams: []GrantStream{{Name: "messages", ConnectionIDs: []string{connSlack}}}},
		{ID: "grt_0000000000000001", ClientID: "cli_1", Token: revokedTok, ConnectorKey: "slack", Status: "revoked",
			Streams: []GrantStream{{Name: "messages", ConnectionIDs: []string{connSlack}}}},
		{ID: "grt_0000000000000002", ClientID: "cli_1", Token: expiredGr, ConnectorKey: "slack", Status: "expired",
			Streams: []GrantStream{{Name: "messages", ConnectionIDs: []string{connSlack}}}},
		{ID: "grt_0000000000000003", ClientID: "cli_1", Token: invalidGr, ConnectorKey: "slack", Status: "invalid",
			Streams: []GrantStream{{Name: "messages", ConnectionIDs: []string{connSlack}}}},
		{ID: "grt_ad13b8ee3adb47c5", ClientID: "cli_91dbfbc7cda38b29", Token: spotifyTok, ConnectorKey: "spotify",
			Streams: []GrantStream{{Name: "top_artists", ConnectionIDs: []string{connSpot}},
				{Name: "saved_tracks", ConnectionIDs: []string{connSpot}}, {Name: "recently_played", ConnectionIDs: []string{connSpot}}}},
	}
	return ds
}

// spotifyConnector mirrors the seed manifest behind the raw captures:
// properties without types, so every compact flag reads "declared".
func spotifyConnector() *Connector {
	props := func(names ...string) json.RawMessage {
		var ps []string
		for _, n := range names {
			ps = append(ps, `"`+n+`":{}`)
		}
		return json.RawMessage(`{"additionalProperties":false,"properties":{` + strings.Join(ps, ",") + `},"type":"object"}`)
	}
	return &Connector{Key: "spotify", SourceID: "https://registry.pdpp.dev/connectors/spotify", Streams: []Stream{
		{Name: "playlists", Schema: props("id")},
		{Name: "saved_tracks", Schema: props("album_name", "artist_ids", "artist_names", "blob_ref", "duration_ms", "id", "name", "popularity", "saved_at", "source_created_at")},
		{Name: "top_artists", Schema: props("followers", "genres", "id", "image_url", "name", "popularity", "source_updated_at")},
		{Name: "recently_played", Schema: props("artist_names", "context_type", "duration_ms", "id", "played_at", "track_id", "track_name")},
	}}
}

// spotifyRecords are the two seed artists of the captures.
func spotifyRecords() []Record {
	mk := func(i int, name string) Record {
		ts := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)
		return Record{ConnectionID: connSpot, Stream: "top_artists", ID: fmt.Sprintf("railway-seed-artist-%d", i), EmittedAt: ts,
			Data: json.RawMessage(fmt.Sprintf(`{"followers":%d,"genres":["test-fixture"],"id":"railway-seed-artist-%d","name":%q,"popularity":%d,"source_updated_at":%q}`,
				i*10, i, name, 40+i, ts.Format("2006-01-02T15:04:05.000Z")))}
	}
	return []Record{mk(1, "Deploy Test Quartet"), mk(2, "Restart Survival Band")}
}

// mustJSON encodes a string as JSON.
func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
