package adapter

import (
	"testing"
	"time"

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

// titleBudget: about one more round trip than the search took, within
// [minTitleBudget, titleWait]; unbounded waits stay unbounded.
func TestTitleBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		w    Waits
		took time.Duration
		want time.Duration
	}{
		{defaultWaits, time.Millisecond, minTitleBudget},
		{defaultWaits, 16 * time.Millisecond, minTitleBudget},
		{defaultWaits, 50 * time.Millisecond, 75 * time.Millisecond},
		{defaultWaits, 400 * time.Millisecond, 600 * time.Millisecond},
		{defaultWaits, 5 * time.Second, 2 * time.Second},
		{Waits{HitTitles: 2 * time.Second, Source: 150 * time.Millisecond}, time.Second, 150 * time.Millisecond},
		{Waits{HitTitles: 10 * time.Millisecond, Source: Unbounded}, time.Second, 10 * time.Millisecond},
		{UnboundedWaits, time.Second, Unbounded},
	} {
		if got := titleBudget(tc.w, tc.took); got != tc.want {
			t.Errorf("titleBudget(%+v, %s) = %s, want %s", tc.w, tc.took, got, tc.want)
		}
	}
}
