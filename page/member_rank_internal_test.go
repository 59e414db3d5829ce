package page

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A record's members are ordered for a person: title, time, actor and
// summary first, then the rest, then identifiers a person never reads,
// then the payload's own id. A role the schema declares for no member is
// guessed from names (Slack declares text and sent_at, not user_id).
func TestMemberOrderPutsIdentifiersLast(t *testing.T) {
	t.Parallel()
	slackKeys := []string{"id", "channel_id", "user_id", "bot_id", "team_id", "client_msg_id", "ts", "sent_at",
		"thread_ts", "is_thread_parent", "text", "reaction_count"}
	for _, tc := range []struct {
		name  string
		rank  memberRanker
		keys  []string
		want  []string
		roles int
	}{
		{"by names", memberRanker{}, slackKeys,
			[]string{"sent_at", "user_id", "text", "is_thread_parent", "reaction_count",
				"channel_id", "bot_id", "team_id", "client_msg_id", "ts", "thread_ts", "id"}, 3},
		{"declared text and time, author guessed", memberRanker{roles: map[string]string{"text": "secondary", "sent_at": "event-time"}}, slackKeys,
			[]string{"sent_at", "user_id", "text", "is_thread_parent", "reaction_count",
				"channel_id", "bot_id", "team_id", "client_msg_id", "ts", "thread_ts", "id"}, 3},
		{"declared actor wins over the name", memberRanker{roles: map[string]string{"text": "secondary", "sent_at": "event-time", "bot_id": "actor"}}, slackKeys,
			[]string{"sent_at", "bot_id", "text", "is_thread_parent", "reaction_count",
				"channel_id", "user_id", "team_id", "client_msg_id", "ts", "thread_ts", "id"}, 3},
		{"mail", memberRanker{}, []string{"message_id", "thread_id", "subject", "from_email", "labels", "date"},
			[]string{"subject", "date", "from_email", "labels", "message_id", "thread_id"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := &preview{kind: 'o'}
			for _, k := range tc.keys {
				p.keys = append(p.keys, k)
				p.kids = append(p.kids, &preview{kind: 'l', lit: "1"})
			}
			tc.rank.order(p)
			if diff := cmp.Diff(tc.want, p.keys); diff != "" {
				t.Errorf("member order (-want +got):\n%s", diff)
			}
			if p.roles != tc.roles {
				t.Errorf("%d leading role members, want %d", p.roles, tc.roles)
			}
		})
	}
}
