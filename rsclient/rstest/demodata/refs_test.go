package demodata

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReferentialIntegrity checks the foreign keys the manifests declare
// (and the counts that summarise them) within each connection.
func TestReferentialIntegrity(t *testing.T) {
	t.Parallel()
	ds := mustDefault(t)
	by := byStream(ds)
	ids := func(conn, stream string) map[string]map[string]json.RawMessage {
		m := map[string]map[string]json.RawMessage{}
		for _, r := range by[[2]string{conn, stream}] {
			m[r.ID] = fields(t, r)
		}
		if len(m) == 0 {
			t.Fatalf("no %s records in %s", stream, conn)
		}
		return m
	}
	type fk struct{ conn, stream, field, target string }
	var fks []fk
	for _, c := range []string{GmailPersonalConnectionID, GmailWorkConnectionID} {
		fks = append(fks, fk{c, "message_bodies", "message_id", "messages"}, fk{c, "attachments", "message_id", "messages"},
			fk{c, "messages", "thread_id", "threads"}, fk{c, "messages", "id", "message_bodies"})
	}
	fks = append(fks,
		fk{SlackConnectionID, "messages", "channel_id", "channels"}, fk{SlackConnectionID, "messages", "user_id", "users"},
		fk{SlackConnectionID, "reactions", "message_id", "messages"}, fk{SlackConnectionID, "reactions", "user_id", "users"},
		fk{SlackConnectionID, "channels", "creator", "users"},
		fk{ChatGPTConnectionID, "messages", "conversation_id", "conversations"},
		fk{ChatGPTConnectionID, "conversations", "current_node", "messages"},
		fk{GitHubConnectionID, "issues", "repository_id", "repositories"},
		fk{GitHubConnectionID, "pull_requests", "repository_id", "repositories"})
	for _, f := range fks {
		targets := ids(f.conn, f.target)
		for id, m := range ids(f.conn, f.stream) {
			if v := str(t, m, f.field); targets[v] == nil {
				t.Errorf("%s %s/%s.%s = %q: no such %s", f.conn, f.stream, id, f.field, v, f.target)
			}
		}
	}

	for _, c := range []string{GmailPersonalConnectionID, GmailWorkConnectionID} {
		perThread, perLabel := map[string]int{}, map[string]int{}
		for _, m := range ids(c, "messages") {
			perThread[str(t, m, "thread_id")]++
			var ls []string
			_ = json.Unmarshal(m["labels"], &ls)
			for _, l := range ls {
				perLabel[l]++
			}
		}
		for id, th := range ids(c, "threads") {
			var n int
			_ = json.Unmarshal(th["message_count"], &n)
			if n != perThread[id] {
				t.Errorf("%s thread %s: message_count %d, messages %d", c, id, n, perThread[id])
			}
		}
		for name, l := range ids(c, "labels") {
			var n int
			_ = json.Unmarshal(l["message_count"], &n)
			if n != perLabel[name] {
				t.Errorf("%s label %s: message_count %d, messages %d", c, name, n, perLabel[name])
			}
		}
	}

	// Slack replies point at a parent in the same channel.
	msgs := ids(SlackConnectionID, "messages")
	for id, m := range msgs {
		ts, thread := str(t, m, "ts"), str(t, m, "thread_ts")
		if thread != "" && thread != ts {
			if parent := msgs[str(t, m, "channel_id")+":"+thread]; parent == nil {
				t.Errorf("slack reply %s: parent %s missing", id, thread)
			}
		}
		if !strings.HasPrefix(id, str(t, m, "channel_id")+":") {
			t.Errorf("slack message id %s does not start with its channel", id)
		}
	}
	// ChatGPT parents exist within the same conversation.
	chat := ids(ChatGPTConnectionID, "messages")
	for id, m := range chat {
		if p := str(t, m, "parent_id"); p != "" && str(t, chat[p], "conversation_id") != str(t, m, "conversation_id") {
			t.Errorf("chatgpt message %s: parent %s not in the same conversation", id, p)
		}
	}
}

// TestSharedTerms checks that cross-connector search has something to find.
func TestSharedTerms(t *testing.T) {
	t.Parallel()
	ds := mustDefault(t)
	conns := map[string]string{}
	for _, c := range ds.Connections {
		conns[c.ID] = c.ConnectorKey
	}
	for _, term := range []string{"invoice", "roadmap", "offsite", "budget"} {
		found := map[string]bool{}
		for _, r := range ds.Records {
			if strings.Contains(strings.ToLower(string(r.Data)), term) {
				found[conns[r.ConnectionID]] = true
			}
		}
		for _, key := range []string{"gmail", "slack", "chatgpt", "github"} {
			if !found[key] {
				t.Errorf("term %q never occurs in %s records", term, key)
			}
		}
	}
}
