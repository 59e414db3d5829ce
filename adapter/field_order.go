package adapter

import (
	"cmp"
	"slices"
	"strings"
)

// A list page shows what each record is about first: its title, when it
// happened, who did it, and its summary, then the rest in the RS's order,
// and last the payload's own id (the fetch id already carries it). When a
// record must be cut to fit, members are dropped from the end, so these
// survive longest (issue 24: a fan-in page used to keep empty bcc and cc
// and drop the subject).

// Member ranks, lowest first.
const (
	rankTitle = iota
	rankTime
	rankActor
	rankSummary
	rankOther
	rankOwnID
)

// roleRank is the rank of a declared semantic role.
var roleRank = map[string]int{"primary-title": rankTitle, "event-time": rankTime, "actor": rankActor, "secondary": rankSummary}

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
	if r, ok := roleRank[m.roles[name]]; ok {
		return r
	}
	if len(m.roles) > 0 {
		return rankOther
	}
	return rankByName(name)
}

// rankByName guesses a member's role from its name: exact names, then the
// suffixes time fields carry.
func rankByName(name string) int {
	n := strings.ToLower(name)
	if r, ok := rankOfName[n]; ok {
		return r
	}
	for _, suffix := range []string{"_at", "_date", "_time"} {
		if strings.HasSuffix(n, suffix) {
			return rankTime
		}
	}
	if strings.HasPrefix(n, "from") {
		return rankActor
	}
	return rankOther
}

// rankOfName ranks common member names.
var rankOfName = map[string]int{
	"subject": rankTitle, "title": rankTitle, "name": rankTitle, "filename": rankTitle,
	"date": rankTime, "time": rankTime, "timestamp": rankTime,
	"author": rankActor, "sender": rankActor, "user": rankActor, "user_name": rankActor, "owner": rankActor,
	"snippet": rankSummary, "text": rankSummary, "summary": rankSummary, "description": rankSummary, "body": rankSummary, "content": rankSummary,
}

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
	p.lead = 0
	for i, o := range ord {
		p.keys[i], p.kids[i] = o.key, o.kid
		if i == p.lead && o.rank == rankTitle {
			p.lead++
		}
	}
}

// rankedMember is one member of an object preview with its rank.
type rankedMember struct {
	rank int
	key  string
	kid  *preview
}
