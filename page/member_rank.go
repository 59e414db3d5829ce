package page

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// A list page shows what each record is about first: its title, when it
// happened, who did it, and its summary, then the rest in the RS's order,
// then identifiers a person never reads (channel_id, team_id,
// client_msg_id), and last the payload's own id (the fetch id already
// carries it). When a record must be cut to fit, the leading role members
// are kept whole first and members are dropped from the end, so these
// survive longest and the identifiers go first (a fan-in page used to keep
// empty bcc and cc and drop the subject; a Slack page spent its bytes on
// team_id while cutting the message text).

// Member ranks, lowest first: the schema model's field ranks, which the
// schema's projection example uses too.
const (
	rankTitle      = schemaindex.RankTitle
	rankTime       = schemaindex.RankTime
	rankActor      = schemaindex.RankActor
	rankSummary    = schemaindex.RankSummary
	rankOther      = schemaindex.RankOther
	rankIdentifier = schemaindex.RankIdentifier
	rankOwnID      = schemaindex.RankOwnID
)

// memberRanker ranks a stream's members: by the roles its schema declares,
// else (the real RS declares none to client tokens, D1) by what common
// names suggest.
type memberRanker struct {
	roles map[string]string
}

// rank is the member's rank.
func (m memberRanker) rank(name string) int {
	if name == "id" {
		return rankOwnID
	}
	if r, ok := schemaindex.RoleRank(m.roles[name]); ok {
		return r
	}
	if len(m.roles) > 0 {
		// A role the schema declares for no member is guessed from names
		// as if none were declared: Slack's messages declare their text
		// and time but not user_id, their author.
		if guess := rankByName(name); guess < rankOther && !m.declares(guess) {
			return guess
		}
		if isIdentifierName(name) {
			return rankIdentifier
		}
		return rankOther
	}
	return rankByName(name)
}

// declares reports whether the schema gives some member the role of rank.
func (m memberRanker) declares(rank int) bool {
	for _, role := range m.roles {
		if r, ok := schemaindex.RoleRank(role); ok && r == rank {
			return true
		}
	}
	return false
}

// isIdentifierName reports a member a person never reads: an opaque id or
// reference ("team_id", "client_msg_id", "reply_user_ids", "uuid"). Its
// value is only worth bytes once everything readable is shown.
func isIdentifierName(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "uuid", "guid", "ts", "thread_ts", "etag", "hash":
		return true
	}
	return strings.HasSuffix(n, "_id") || strings.HasSuffix(n, "_ids") || strings.HasSuffix(n, "_uuid") ||
		strings.HasSuffix(n, "_ts") || strings.HasSuffix(n, "_hash")
}

// rankByName guesses a member's role from its name: the schema model's
// name ranking (schemaindex.NameRank), refined for record pages, which
// spend a record's bytes member by member: the ids that name a message's
// author (Slack's user_id), and identifiers ranked after everything
// readable. The schema's projection example keeps the model's plain
// ranking, as its pinned text shows.
func rankByName(name string) int {
	n := strings.ToLower(name)
	if r, ok := authorIDNames[n]; ok {
		return r
	}
	r := schemaindex.NameRank(n)
	if r == rankOther && isIdentifierName(n) {
		return rankIdentifier
	}
	return r
}

// authorIDNames are who wrote it, where the source names people only by
// id (Slack's user_id is the message's author).
var authorIDNames = map[string]int{"user_id": rankActor, "author_id": rankActor, "sender_id": rankActor}

// order sorts an object preview's members by rank, stably (ties keep the
// RS's order), in place. Other kinds are left as they are.
func (m memberRanker) order(p *preview) {
	if p == nil || p.kind != 'o' || len(p.kids) < 2 {
		return
	}
	var small [32]rankedMember // a record's members, without allocating
	ord := small[:0]
	if len(p.kids) > len(small) {
		ord = make([]rankedMember, 0, len(p.kids))
	}
	for i, k := range p.keys {
		ord = append(ord, rankedMember{rank: m.rank(k), key: k, kid: p.kids[i]})
	}
	slices.SortStableFunc(ord, func(a, b rankedMember) int { return cmp.Compare(a.rank, b.rank) })
	p.lead, p.roles = 0, 0
	for i, o := range ord {
		p.keys[i], p.kids[i] = o.key, o.kid
		if i == p.lead && o.rank == rankTitle {
			p.lead++
		}
		if i == p.roles && o.rank <= rankSummary {
			p.roles++
		}
	}
}

// rankedMember is one member of an object preview with its rank.
type rankedMember struct {
	rank int
	key  string
	kid  *preview
}

// Member ranks other packages compare with: a member ranked RankSummary
// or lower says what a record is about (title, time, actor, summary).
const (
	RankTitle   = rankTitle
	RankTime    = rankTime
	RankSummary = rankSummary
)

// MemberRank is the rank of a stream's member, lowest first, given the
// roles its schema declares (name → role): the order a record page shows
// members in.
func MemberRank(roles map[string]string, name string) int {
	return memberRanker{roles: roles}.rank(name)
}

// RankByName is a member's rank guessed from its name alone.
func RankByName(name string) int { return rankByName(name) }
