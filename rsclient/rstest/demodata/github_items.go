package demodata

import (
	"strconv"
	"strings"
	"time"
)

type ghGen struct {
	b      *builder
	r      *rng
	repos  []string
	number map[string]int // next issue/PR number per repository
}

// item writes issue or pull request i of n; issues and PRs share the
// per-repository numbering, as on GitHub.
func (g *ghGen) item(i, n int, pr bool) {
	r, o := g.r, &g.b.o
	topics := bank["workTopic"]
	ri := r.intn(len(g.repos))
	repo := g.repos[ri]
	g.number[repo]++
	num := g.number[repo]
	stream, kind, base := "issues", "issues", 800000000
	titles := issueTitles
	if pr {
		stream, kind, base, titles = "pull_requests", "pull", 900000000, prTitles
	}
	id := strconv.Itoa(base + i)
	created := g.b.at((float64(i) + r.float()) / float64(n))
	updated := g.b.clamp(created.Add(time.Duration(r.between(1, 40*24)) * time.Hour))
	closed := r.chance(55)
	var body strings.Builder
	paragraph(r, r.between(2, 5), sentences, topics, &body)

	o.begin()
	o.str("id", id)
	o.int("number", int64(num))
	o.str("title", line(r, titles, topics))
	o.str("body", body.String())
	switch {
	case pr && closed:
		o.str("state", "merged")
		o.null("state_reason")
	case closed:
		o.str("state", "closed")
		o.str("state_reason", "completed")
	default:
		o.str("state", "open")
		o.null("state_reason")
	}
	o.str("user_login", ghLogin)
	o.str("user_id", "5810337")
	o.strs("assignees", []string{ghLogin})
	o.strs("labels", []string{pick(r, []string{"bug", "enhancement", "documentation", "chore"})})
	o.strOrNull("milestone_title", pick(r, []string{"", "Q2 2026", "Q3 2026"}))
	o.str("repository_full_name", ghLogin+"/"+repo)
	o.str("repository_id", strconv.Itoa(600000000+ri*7919))
	o.str("html_url", "https://github.com/"+ghLogin+"/"+repo+"/"+kind+"/"+strconv.Itoa(num))
	o.int("comments", int64(r.between(0, 14)))
	o.int("reactions_total_count", int64(r.between(0, 6)))
	o.time("created_at", created)
	o.time("updated_at", updated)
	if closed {
		o.time("closed_at", updated)
	} else {
		o.null("closed_at")
	}
	if !pr {
		o.bool("is_pull_request", false)
		o.null("pull_request_url")
		o.null("draft")
	} else {
		o.bool("draft", !closed && r.chance(20))
		if closed {
			o.time("merged_at", updated)
			o.str("merged_by_login", ghLogin)
		} else {
			o.null("merged_at")
			o.null("merged_by_login")
		}
		o.int("commits_count", int64(r.between(1, 12)))
		o.int("additions", int64(r.between(3, 900)))
		o.int("deletions", int64(r.between(0, 400)))
		o.int("changed_files", int64(r.between(1, 25)))
		o.str("base_ref", "main")
		o.str("head_ref", "fix/"+strings.ReplaceAll(lower(pick(r, topics)), " ", "-"))
		o.strs("requested_reviewers", nil)
		o.int("review_comments_count", int64(r.between(0, 9)))
	}
	g.b.emit(GitHubConnectionID, stream, id, updated)
}
