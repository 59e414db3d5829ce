package adapter

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPickHitFields: a hit's title and event-time fields come from the
// declared roles, else (the real RS declares none to client tokens, D1)
// from the names, each role on its own.
func TestPickHitFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		roles map[string]string
		names []string
		want  hitFields
	}{
		{"roles", map[string]string{"headline": "primary-title", "happened": "event-time"}, []string{"id", "headline", "subject", "happened", "received_at"}, hitFields{"headline", "happened"}},
		{"names, real RS posture", nil, []string{"bcc", "cc", "date", "from_email", "received_at", "subject"}, hitFields{"subject", "date"}},
		{"typed time, title by name", map[string]string{"sent_at": "event-time"}, []string{"text", "name", "sent_at"}, hitFields{"name", "sent_at"}},
		{"bodies: time only", nil, []string{"body_text", "body_html", "message_received_at"}, hitFields{"", "message_received_at"}},
		{"nothing", nil, []string{"id", "labels"}, hitFields{}},
	} {
		if diff := cmp.Diff(tc.want, pickHitFields(tc.roles, tc.names), cmp.AllowUnexported(hitFields{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
