package schemaindex

import "strings"

// Field ranks say what a member tells a reader about a record, lowest
// first: its title, when it happened, who did it, its summary, then the
// rest, then identifiers a person never reads, and last the payload's own
// id (a fetch handle already carries it). The record pages order and cut a
// record's members by them (RoleRank, NameRank); the schema's projection
// example picks its fields by them (StreamSource.AboutFields).
const (
	RankTitle = iota
	RankTime
	RankActor
	RankSummary
	RankOther
	// RankIdentifier is for opaque ids and references (team_id, uuid). The
	// rules here never assign it: which names count as identifiers is the
	// record page's call, which spends a record's bytes on them last.
	RankIdentifier
	RankOwnID
)

// roleRanks ranks the declared semantic roles.
var roleRanks = map[string]int{"primary-title": RankTitle, "event-time": RankTime, "actor": RankActor, "secondary": RankSummary}

// RoleRank is the rank of a declared semantic role (primary-title,
// event-time, actor, secondary); false for any other role.
func RoleRank(role string) (int, bool) {
	r, ok := roleRanks[role]
	return r, ok
}

// nameRanks ranks common field names where no role is declared (the real
// RS declares none to client tokens).
var nameRanks = map[string]int{
	"subject": RankTitle, "title": RankTitle, "name": RankTitle, "filename": RankTitle,
	"date": RankTime, "time": RankTime, "timestamp": RankTime,
	"author": RankActor, "sender": RankActor, "user": RankActor, "user_name": RankActor, "owner": RankActor,
	"snippet": RankSummary, "text": RankSummary, "summary": RankSummary, "description": RankSummary, "body": RankSummary, "content": RankSummary,
}

// NameRank guesses a field's rank from its name alone (case-insensitive):
// common names, then the suffixes time fields carry (_at, _date, _time),
// then a "from" prefix for the actor; RankOther otherwise. It does not
// special-case "id" (see fieldRank).
func NameRank(name string) int {
	n := strings.ToLower(name)
	if r, ok := nameRanks[n]; ok {
		return r
	}
	switch {
	case strings.HasSuffix(n, "_at") || strings.HasSuffix(n, "_date") || strings.HasSuffix(n, "_time"):
		return RankTime
	case strings.HasPrefix(n, "from"):
		return RankActor
	}
	return RankOther
}

// fieldRank is a field's rank in a stream: the payload's own id last, a
// declared role's rank, RankOther for a field without a role when the
// stream declares roles (rolesDeclared), else what its name suggests.
func fieldRank(f Field, rolesDeclared bool) int {
	switch {
	case f.Name == "id":
		return RankOwnID
	case f.Caps.Role != "":
		if r, ok := RoleRank(f.Caps.Role); ok {
			return r
		}
		return RankOther
	case rolesDeclared:
		return RankOther
	}
	return NameRank(f.Name)
}
