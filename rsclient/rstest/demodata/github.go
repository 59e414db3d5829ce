package demodata

import (
	"strconv"
	"time"
)

var repoNames = []string{"roadmap-tracker", "invoice-parser", "offsite-planner", "budget-cli", "dotfiles",
	"pdpp-playground", "homelab", "notes", "trail-maps", "recipe-box"}

var issueTitles = []string{
	"Invoice export drops the currency symbol", "Add roadmap view for next quarter", "Offsite planner crashes on empty agenda",
	"Budget totals are off by one month", "Document the {topic} workflow", "Flaky test in the {doc} importer",
	"Support dark mode in the {doc} viewer", "Speed up the {topic} sync",
}

var prTitles = []string{"Fix invoice rounding", "Roadmap: add quarter filter", "Refactor the {doc} parser",
	"Bump dependencies", "Add offsite schedule export", "Improve error messages for the {topic} sync"}

const ghLogin = "jordan-ellis"

// genGitHub writes the user, repositories, issues and pull requests of
// one GitHub account.
func genGitHub(b *builder, p plan) {
	r := b.rng("github")
	o, conn := &b.o, GitHubConnectionID
	topics := bank["workTopic"]

	userCreated := b.start.Add(-6 * window).Truncate(time.Second)
	o.begin()
	o.str("id", "5810337")
	o.str("login", ghLogin)
	o.str("name", "Jordan Ellis")
	o.str("email", "jordan.ellis@example.com")
	o.str("bio", "Product engineer. Roadmaps, budgets and the occasional side project.")
	o.str("company", "Acme")
	o.str("location", "Portland, OR")
	o.str("blog", "https://jordan.example.com")
	o.null("twitter_username")
	o.time("created_at", userCreated)
	o.time("updated_at", b.now.Add(-3*day))
	o.str("avatar_url", "https://avatars.example.com/u/5810337")
	b.emit(conn, "user", "5810337", b.now.Add(-3*day))

	repos := make([]string, p.ghRepos)
	for i := range repos {
		name := repoNames[i%len(repoNames)]
		if i >= len(repoNames) {
			name += "-" + strconv.Itoa(i/len(repoNames)+1)
		}
		repos[i] = name
		created := b.start.Add(-time.Duration(r.between(10, 1500)) * day).Truncate(time.Second)
		pushed := b.at(r.float())
		o.begin()
		o.str("id", strconv.Itoa(600000000+i*7919))
		o.str("name", name)
		o.str("full_name", ghLogin+"/"+name)
		o.str("owner_login", ghLogin)
		o.str("description", "A small tool for the "+pick(r, topics))
		o.bool("private", r.chance(30))
		o.bool("fork", r.chance(10))
		o.bool("archived", false)
		o.bool("disabled", false)
		o.str("default_branch", "main")
		o.str("language", pick(r, []string{"Go", "TypeScript", "Python", "Rust"}))
		o.strs("topics", []string{"personal", "tools"})
		stars := r.between(0, 300)
		o.int("stargazers_count", int64(stars))
		o.int("forks_count", int64(stars/8))
		o.int("open_issues_count", int64(r.between(0, 12)))
		o.int("watchers_count", int64(stars))
		o.int("size_kb", int64(r.between(40, 9000)))
		o.str("license_key", "mit")
		o.str("html_url", "https://github.com/"+ghLogin+"/"+name)
		o.null("homepage")
		o.time("created_at", created)
		o.time("updated_at", pushed)
		o.time("pushed_at", pushed)
		b.emit(conn, "repositories", strconv.Itoa(600000000+i*7919), pushed)
	}

	g := &ghGen{b: b, r: r, repos: repos, number: map[string]int{}}
	for i := 0; i < p.ghIssues; i++ {
		g.item(i, p.ghIssues, false)
	}
	for i := 0; i < p.ghPRs; i++ {
		g.item(i, p.ghPRs, true)
	}
}
