package adapter

import (
	"sort"
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

// rankByName guesses a member's role from its name.
func rankByName(name string) int {
	n := strings.ToLower(name)
	switch {
	case n == "subject" || n == "title" || n == "name" || n == "filename":
		return rankTitle
	case strings.HasSuffix(n, "_at") || n == "date" || n == "time" || n == "timestamp" || strings.HasSuffix(n, "_date") || strings.HasSuffix(n, "_time"):
		return rankTime
	case strings.HasPrefix(n, "from") || n == "author" || n == "sender" || n == "user" || n == "user_name" || n == "owner":
		return rankActor
	case n == "snippet" || n == "text" || n == "summary" || n == "description" || n == "body" || n == "content":
		return rankSummary
	}
	return rankOther
}

// order sorts an object preview's members by rank, stably (ties keep the
// RS's order). Other kinds are left as they are.
func (m memberRanker) order(p *preview) {
	if p == nil || p.kind != 'o' || len(p.kids) < 2 {
		return
	}
	idx := make([]int, len(p.kids))
	ranks := make([]int, len(p.kids))
	for i, k := range p.keys {
		idx[i], ranks[i] = i, m.rank(k)
	}
	sort.SliceStable(idx, func(a, b int) bool { return ranks[idx[a]] < ranks[idx[b]] })
	keys := make([]string, len(idx))
	kids := make([]*preview, len(idx))
	for i, j := range idx {
		keys[i], kids[i] = p.keys[j], p.kids[j]
	}
	p.keys, p.kids = keys, kids
	p.lead = 0
	for p.lead < len(keys) && ranks[idx[p.lead]] == rankTitle {
		p.lead++
	}
}
