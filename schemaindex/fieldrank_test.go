package schemaindex

import "testing"

func TestNameRank(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want int
	}{
		{"subject", RankTitle}, {"Title", RankTitle}, {"filename", RankTitle},
		{"date", RankTime}, {"received_at", RankTime}, {"due_DATE", RankTime}, {"start_time", RankTime},
		{"author", RankActor}, {"from_email", RankActor}, {"FromName", RankActor},
		{"snippet", RankSummary}, {"body", RankSummary},
		{"labels", RankOther}, {"user_id", RankOther}, {"team_id", RankOther}, {"id", RankOther}, {"", RankOther},
	} {
		if got := NameRank(tc.name); got != tc.want {
			t.Errorf("NameRank(%q) = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestRoleRank(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		role string
		want int
		ok   bool
	}{
		{"primary-title", RankTitle, true}, {"event-time", RankTime, true}, {"actor", RankActor, true},
		{"secondary", RankSummary, true}, {"thumbnail", 0, false}, {"", 0, false},
	} {
		if got, ok := RoleRank(tc.role); got != tc.want || ok != tc.ok {
			t.Errorf("RoleRank(%q) = %d, %v; want %d, %v", tc.role, got, ok, tc.want, tc.ok)
		}
	}
}

// A field's rank in a stream: its own id last; a declared role wins; a
// stream that declares roles leaves the rest at RankOther rather than
// guessing from names.
func TestFieldRank(t *testing.T) {
	t.Parallel()
	f := func(name, role string) Field { return Field{Name: name, Caps: Caps{Role: role, Granted: true}} }
	for _, tc := range []struct {
		field Field
		roles bool
		want  int
	}{
		{f("id", "primary-title"), true, RankOwnID},
		{f("headline", "primary-title"), true, RankTitle},
		{f("thumb", "thumbnail"), true, RankOther},
		{f("subject", ""), true, RankOther},
		{f("subject", ""), false, RankTitle},
		{f("sent_at", ""), false, RankTime},
	} {
		if got := fieldRank(tc.field, tc.roles); got != tc.want {
			t.Errorf("fieldRank(%+v, %v) = %d, want %d", tc.field, tc.roles, got, tc.want)
		}
	}
}
