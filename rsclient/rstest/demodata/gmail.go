package demodata

import (
	"sort"
	"strings"
	"time"
)

// mail is one generated Gmail message before it is written out.
type mail struct {
	id, threadID, subject string
	from                  person
	to, cc, bcc, replyTo  []person
	at                    time.Time
	headerID              string
	refs                  []string
	body                  string
	labels                []string
	draft, flagged, seen  bool
	answered, attach      bool
	// html is the body format: htmlNone (text/plain only), htmlBoth
	// (multipart) or htmlOnly (body_text null).
	html int
}

const (
	htmlNone = iota
	htmlBoth
	htmlOnly
)

// threadAcc accumulates one thread's statistics for its threads record.
type threadAcc struct {
	id, subject     string
	first, last     time.Time
	count           int
	unread, flagged int
	attach          bool
	emails, labels  map[string]bool
}

// genGmail writes messages, message_bodies, attachments, threads and
// labels for one mailbox with about n messages.
func genGmail(b *builder, mb *mailbox, n int) {
	r := b.rng("gmail/" + mb.key)
	msgSalt := saltFor(b.seed, "gmail/"+mb.key+"/message")
	thrSalt := saltFor(b.seed, "gmail/"+mb.key+"/thread")
	labelCount := map[string]int{}
	g := &gmailGen{b: b, mb: mb, r: r, labelCount: labelCount}

	// Well-known messages first, each its own thread.
	g.single(sharedMail(b), false)
	for i, ls := range mb.long {
		g.single(longMail(b, mb, ls, idFor(thrSalt, -1-i)), true)
	}

	regular := max(n-1-len(mb.long), 0)
	for i, t := 0, 0; i < regular; t++ {
		k := min(threadSize(r), regular-i)
		start := b.at((float64(i) + r.float()) / float64(regular))
		g.thread(idFor(thrSalt, t), start, k, func() string { id := idFor(msgSalt, i); i++; return id })
	}

	// labels last: their message_count is the number just generated.
	names := append(append([]string{}, systemLabels...), mb.userLabels...)
	for _, name := range names {
		o := &b.o
		o.begin()
		o.str("name", name)
		o.str("canonical_name", strings.ReplaceAll(lower(name), "/", "-"))
		o.bool("is_system", strings.ToUpper(name) == name)
		if i := strings.LastIndexByte(name, '/'); i > 0 {
			o.str("parent_name", name[:i])
		} else {
			o.null("parent_name")
		}
		o.int("message_count", int64(labelCount[name]))
		b.emit(mb.conn, "labels", name, b.now.Add(-time.Hour))
	}
}

// threadSize draws a conversation length: mostly 1–3, sometimes up to 6.
func threadSize(r *rng) int {
	switch x := r.intn(100); {
	case x < 40:
		return 1
	case x < 70:
		return 2
	case x < 87:
		return 3
	default:
		return r.between(4, 6)
	}
}

type gmailGen struct {
	b          *builder
	mb         *mailbox
	r          *rng
	labelCount map[string]int
}

// thread generates k messages replying to each other. Every random draw
// happens in a fixed order (the dataset is deterministic), so the helpers
// below must keep theirs.
func (g *gmailGen) thread(threadID string, start time.Time, k int, nextID func() string) {
	r, mb := g.r, g.mb
	other := mb.contact(r)
	subject := line(r, subjects, mb.topics)
	at := start
	var prev *mail
	acc := newThreadAcc(threadID, subject)
	for j := 0; j < k; j++ {
		m := &mail{id: nextID(), threadID: threadID, subject: subject, at: g.b.clamp(at)}
		if j > 0 {
			m.subject = "Re: " + subject
		}
		fromOwner := g.address(m, other, prev)
		m.headerID = "<" + m.id + "." + threadID[:6] + "@mail." + strings.SplitN(m.from.email, "@", 2)[1] + ">"
		if prev != nil {
			m.refs = append(append([]string{}, prev.refs...), prev.headerID)
		}
		g.fill(m, fromOwner, j == k-1)
		m.labels = g.labelsFor(m, fromOwner)
		g.write(m)
		acc.add(m)
		prev = m
		at = at.Add(time.Duration(r.between(300, 30*3600)) * time.Second)
	}
	g.writeThread(acc)
}

// address decides who sends m (the owner or other) and fills its sender
// and recipients; it reports whether the owner sent it. prev is the message
// m answers, nil for a thread's first.
func (g *gmailGen) address(m *mail, other person, prev *mail) bool {
	r, mb := g.r, g.mb
	fromOwner := r.chance(25)
	if prev != nil && prev.from.email != mb.ownerEmail {
		fromOwner = r.chance(60) // people answer the mail they get
	}
	if fromOwner {
		m.from, m.to = mb.owner(), []person{other}
	} else {
		m.from, m.to = other, []person{mb.owner()}
	}
	if r.chance(30) {
		m.cc = []person{mb.contact(r)}
	}
	if fromOwner && r.chance(6) {
		m.bcc = []person{mb.contact(r)}
	}
	if !fromOwner && r.chance(8) {
		m.replyTo = []person{{email: "replies@" + mb.domains[0]}}
	}
	return fromOwner
}

// fill writes m's body, flags and body format; last marks the thread's
// final message, the only one that may be a draft or stay unanswered.
func (g *gmailGen) fill(m *mail, fromOwner, last bool) {
	r, mb := g.r, g.mb
	m.body = mailBody(r, m.to[0].first, m.from.first, mb.topics)
	m.draft = fromOwner && last && r.chance(4)
	m.seen = fromOwner || r.chance(85)
	m.flagged = r.chance(8)
	m.answered = !last && m.to[0].email == mb.ownerEmail
	m.attach = r.chance(18)
	switch x := r.intn(100); {
	case x < 5:
		m.html = htmlOnly
	case x < 15:
		m.html = htmlBoth
	}
}

// single writes a one-message thread (the well-known messages).
func (g *gmailGen) single(m *mail, longBody bool) {
	m.labels = []string{"INBOX", "IMPORTANT"}
	if longBody {
		m.labels = append(m.labels, g.mb.userLabels[0])
	}
	acc := newThreadAcc(m.threadID, m.subject)
	g.write(m)
	acc.add(m)
	g.writeThread(acc)
}

func (g *gmailGen) labelsFor(m *mail, fromOwner bool) []string {
	r := g.r
	var ls []string
	switch {
	case m.draft:
		ls = []string{"DRAFT"}
	case fromOwner:
		ls = []string{"SENT"}
	default:
		ls = []string{"INBOX"}
		if r.chance(20) {
			ls = append(ls, "IMPORTANT")
		}
		if r.chance(15) {
			ls = append(ls, "CATEGORY_UPDATES")
		}
	}
	if !m.seen {
		ls = append(ls, "UNREAD")
	}
	if m.flagged {
		ls = append(ls, "STARRED")
	}
	if r.chance(25) {
		ls = append(ls, pick(r, g.mb.userLabels))
	}
	return ls
}

// mailBody writes a greeting, one to three paragraphs and a sign-off.
func mailBody(r *rng, toFirst, fromFirst string, topics []string) string {
	var sb strings.Builder
	if toFirst == "" {
		toFirst = "there"
	}
	sb.WriteString("Hi " + toFirst + ",\n\n")
	for p, np := 0, r.between(1, 3); p < np; p++ {
		if p > 0 {
			sb.WriteString("\n\n")
		}
		paragraph(r, r.between(2, 4), sentences, topics, &sb)
	}
	sb.WriteString("\n\n" + pick(r, []string{"Thanks", "Best", "Cheers", "Talk soon"}) + ",\n" + fromFirst)
	return sb.String()
}

func newThreadAcc(id, subject string) *threadAcc {
	return &threadAcc{id: id, subject: subject, emails: map[string]bool{}, labels: map[string]bool{}}
}

func (a *threadAcc) add(m *mail) {
	if a.count == 0 || m.at.Before(a.first) {
		a.first = m.at
	}
	if m.at.After(a.last) {
		a.last = m.at
	}
	a.count++
	if !m.seen {
		a.unread++
	}
	if m.flagged {
		a.flagged++
	}
	a.attach = a.attach || m.attach
	for _, ps := range [][]person{{m.from}, m.to, m.cc} {
		for _, p := range ps {
			a.emails[p.email] = true
		}
	}
	for _, l := range m.labels {
		a.labels[l] = true
	}
}

func sortedKeys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
