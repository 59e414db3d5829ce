package demodata

import (
	"strconv"
	"strings"
)

// write emits the messages, message_bodies and attachments records of m.
func (g *gmailGen) write(m *mail) {
	b, o, conn := g.b, &g.b.o, g.mb.conn
	for _, l := range m.labels {
		g.labelCount[l]++
	}
	var atts []attachment
	if m.attach {
		atts = g.attachments(m)
	}
	size := len(m.body) + 900 + 60*len(m.refs)
	for _, a := range atts {
		size += a.size * 4 / 3 // base64 on the wire
	}

	o.begin()
	o.str("id", m.id)
	o.str("thread_id", m.threadID)
	o.str("subject", m.subject)
	o.strOrNull("from_name", m.from.name)
	o.str("from_email", m.from.email)
	people(o, "to", m.to)
	people(o, "cc", m.cc)
	people(o, "bcc", m.bcc)
	people(o, "reply_to", m.replyTo)
	// ISO 8601, as the reference RS serves the seeded Gmail data the mock
	// is measured against (testdata/real-captures). The reference's Gmail
	// connector stores the raw RFC 2822 header instead
	// (packages/polyfill-connectors/connectors/gmail/schemas.ts): date is
	// text, received_at the typed time.
	o.time("date", m.at)
	o.time("received_at", m.at)
	o.str("message_id", m.headerID)
	if len(m.refs) > 0 {
		o.str("in_reply_to", m.refs[len(m.refs)-1])
	} else {
		o.null("in_reply_to")
	}
	o.strs("references", m.refs)
	o.int("size_bytes", int64(size))
	o.strs("labels", m.labels)
	o.bool("is_draft", m.draft)
	o.bool("is_flagged", m.flagged)
	o.bool("is_seen", m.seen)
	o.bool("is_answered", m.answered)
	o.bool("has_attachments", len(atts) > 0)
	o.str("snippet", snippetOf(afterGreeting(m.body), 120))
	b.emit(conn, "messages", m.id, m.at)

	o.begin()
	o.str("id", m.id)
	o.str("message_id", m.id)
	if m.html == htmlOnly {
		o.null("body_text")
	} else {
		o.str("body_text", m.body)
	}
	var html string
	if m.html != htmlNone {
		html = "<html><body><p>" + strings.ReplaceAll(m.body, "\n\n", "</p><p>") + "</p></body></html>"
		o.str("body_html", html)
	} else {
		o.null("body_html")
	}
	if m.html == htmlOnly {
		o.null("body_text_bytes")
	} else {
		o.int("body_text_bytes", int64(len(m.body)))
	}
	if html != "" {
		o.int("body_html_bytes", int64(len(html)))
	} else {
		o.null("body_html_bytes")
	}
	if m.html == htmlOnly {
		o.str("body_source", "text_html")
	} else {
		o.str("body_source", "text_plain")
	}
	o.raw("content_languages", []byte(`["en"]`))
	o.str("charset", "utf-8")
	o.time("message_received_at", m.at)
	b.emit(conn, "message_bodies", m.id, m.at)

	for _, a := range atts {
		g.writeAttachment(m, a)
	}
}

// people writes an address list in the fixture shape.
func people(o *obj, k string, ps []person) {
	o.key(k)
	o.b = append(o.b, '[')
	for i, p := range ps {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = append(o.b, `{"name":`...)
		if p.name == "" {
			o.b = append(o.b, "null"...)
		} else {
			o.b = appendJSONString(o.b, p.name)
		}
		o.b = append(o.b, `,"email":`...)
		o.b = appendJSONString(o.b, p.email)
		o.b = append(o.b, '}')
	}
	o.b = append(o.b, ']')
}

// afterGreeting drops the "Hi X," line, as Gmail previews start there too
// in practice once the greeting is collapsed.
func afterGreeting(body string) string {
	if i := strings.Index(body, "\n\n"); i >= 0 && i < 40 {
		return body[i+2:]
	}
	return body
}

// writeThread emits the threads record of a finished thread.
func (g *gmailGen) writeThread(a *threadAcc) {
	o := &g.b.o
	o.begin()
	o.str("id", a.id)
	o.str("subject", a.subject)
	o.strs("participant_emails", sortedKeys(a.emails))
	o.int("message_count", int64(a.count))
	o.time("first_message_date", a.first)
	o.time("last_message_date", a.last)
	o.strs("labels", sortedKeys(a.labels))
	o.int("unread_count", int64(a.unread))
	o.int("flagged_count", int64(a.flagged))
	o.bool("has_attachments", a.attach)
	g.b.emit(g.mb.conn, "threads", a.id, a.last)
}

// attachment is one MIME part of a message.
type attachment struct {
	part, filename, mime, status string
	size                         int
	inline                       bool
}

// attachmentKinds are filename patterns with their MIME types.
var attachmentKinds = []struct{ name, mime string }{
	{"invoice-%d.pdf", "application/pdf"}, {"roadmap-q%d.pdf", "application/pdf"},
	{"offsite-agenda-v%d.pdf", "application/pdf"}, {"budget-2026-v%d.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	{"proposal-draft-%d.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	{"IMG_%d.jpg", "image/jpeg"}, {"screenshot-%d.png", "image/png"}, {"meeting-notes-%d.txt", "text/plain"},
}

func (g *gmailGen) attachments(m *mail) []attachment {
	r := g.r
	n := 1
	if r.chance(25) {
		n = 2
	}
	atts := make([]attachment, n)
	for i := range atts {
		k := pick(r, attachmentKinds)
		a := attachment{part: "1." + strconv.Itoa(i+2), mime: k.mime, size: r.between(2_000, 4_000_000)}
		a.filename = strings.Replace(k.name, "%d", strconv.Itoa(r.between(1, 4999)), 1)
		a.inline = strings.HasPrefix(k.mime, "image/") && r.chance(40)
		switch x := r.intn(100); {
		case x < 82:
			a.status = "hydrated"
		case x < 92:
			a.status = "deferred"
		case x < 97:
			a.status = "too_large"
			a.size = r.between(26_000_000, 80_000_000)
		default:
			a.status = "failed"
		}
		atts[i] = a
	}
	return atts
}

func (g *gmailGen) writeAttachment(m *mail, a attachment) {
	o := &g.b.o
	id := m.id + ":" + a.part
	sha := hexDigest(g.mb.conn+"/"+id, 32)
	o.begin()
	o.str("id", id)
	o.str("message_id", m.id)
	o.str("filename", a.filename)
	o.str("content_type", a.mime)
	o.int("size_bytes", int64(a.size))
	if a.inline {
		o.str("content_id", "<"+a.part+"."+m.id[:8]+"@mail.example.com>")
	} else {
		o.null("content_id")
	}
	o.bool("is_inline", a.inline)
	o.str("encoding", "base64")
	o.str("part_index", a.part)
	o.time("message_received_at", m.at)
	if a.status == "hydrated" {
		ref := []byte(`{"blob_id":"blob_` + sha[:24] + `","mime_type":` + strconv.Quote(a.mime) +
			`,"size_bytes":` + strconv.Itoa(a.size) + `,"sha256":"` + sha + `"}`)
		o.raw("blob_ref", ref)
		o.str("content_sha256", sha)
	} else {
		o.null("blob_ref")
		o.null("content_sha256")
	}
	o.str("hydration_status", a.status)
	switch a.status {
	case "failed":
		o.str("hydration_error", "blob upload failed: connection reset by peer")
	case "too_large":
		o.str("hydration_error", "attachment exceeds the 25 MB hydration limit")
	default:
		o.null("hydration_error")
	}
	g.b.emit(g.mb.conn, "attachments", id, m.at)
}
