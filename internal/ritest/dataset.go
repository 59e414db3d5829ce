package ritest

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SeedVersion names the data set below. Change it whenever the generated
// records change: the seeded-database cache is keyed by it.
const SeedVersion = "gmail-two-connections-v1"

// emittedAt is the emitted_at of every ingested record.
const emittedAt = "2026-04-01T00:00:00.000Z"

// The size_bytes figures the generator forces (sum and the single maximum).
const (
	sizeSum = 151_407
	sizeMax = 4_973
)

// Stream names of the gmail connector the data set fills, in ingest order.
var seedStreams = []string{"messages", "message_bodies", "threads", "labels"}

// connConfig shapes one Gmail connection of the data set.
type connConfig struct {
	key          string // "work" or "personal"
	displayName  string
	nMessages    int
	nThreads     int
	owner        string
	userLabel    string
	senders      [][2]string
	topics       []string
	threadTopics []string
	kayak        map[int]string // message index -> subject mentioning "kayak itinerary"
	zephyr       int            // the message index whose body holds "ZEPHYR"
}

var connConfigs = []connConfig{
	{
		key: "work", displayName: "Work Gmail", nMessages: 30, nThreads: 10, owner: "me@work.example", userLabel: "Projects",
		senders: [][2]string{{"Ada Byron", "ada@work.example"}, {"Grace Hopper", "grace@work.example"},
			{"Alan Turing", "alan@work.example"}, {"Edsger Dijkstra", "edsger@work.example"},
			{"Barbara Liskov", "barbara@work.example"}},
		topics: []string{"Quarterly budget review", "Sprint planning notes", "Vendor contract renewal",
			"Design review agenda", "Hiring loop feedback", "Incident postmortem draft",
			"Roadmap sync", "Security audit findings", "Customer escalation summary",
			"Release checklist", "Office move logistics", "Performance review timeline",
			"Data retention policy", "API deprecation plan", "Board deck comments"},
		threadTopics: []string{"Budget", "Planning", "Contracts", "Design", "Hiring", "Incidents",
			"Roadmap", "Security", "Customers", "Releases"},
		kayak: map[int]string{4: "Team offsite: kayak itinerary for Friday",
			13: "Updated kayak itinerary and packing list",
			22: "Re: kayak itinerary (rain plan)"},
		zephyr: 10,
	},
	{
		key: "personal", displayName: "Personal Gmail", nMessages: 24, nThreads: 8, owner: "me@personal.example", userLabel: "Travel",
		senders: [][2]string{{"Mom", "mom@family.example"}, {"Sam Rivera", "sam@friends.example"},
			{"Book Club", "club@books.example"}, {"Dr. Patel", "office@clinic.example"}},
		topics: []string{"Dinner on Saturday", "Photos from the reunion", "Book club pick for March",
			"Dentist appointment reminder", "Garden plans", "Birthday gift ideas",
			"Apartment lease renewal", "Recipe you asked for", "Concert tickets",
			"Weekend hiking plan", "Car service receipt", "Piano lesson schedule"},
		threadTopics: []string{"Family", "Friends", "Books", "Health", "Home", "Gifts", "Errands", "Music"},
		kayak: map[int]string{5: "Our kayak itinerary for the lake weekend",
			17: "Fwd: kayak itinerary confirmation"},
		zephyr: 12,
	},
}

// Filler vocabulary; none of it contains "kayak", "itinerary", "zephyr" or
// "paragraph", so the planted terms stay unique.
var (
	fillerSubjects = []string{"the team", "our schedule", "the proposal", "this draft", "the figures", "that meeting",
		"the follow-up", "the shared folder", "the next step", "the summary", "the timeline",
		"our notes", "the estimate", "the checklist", "the invoice", "the outline"}
	fillerVerbs = []string{"reviewed", "updated", "moved", "confirmed", "shared", "revised", "questioned", "approved",
		"postponed", "summarised", "rechecked", "annotated"}
	fillerTails = []string{"before the deadline", "after lunch", "with fresh numbers", "for the record", "in more detail",
		"on Tuesday", "as discussed", "without changes", "once more", "at the end of the week",
		"for everyone", "with two open questions"}
)

// Message is one record of the gmail messages stream; the member order is
// the order the records are ingested in.
type Message struct {
	ID             string   `json:"id"`
	ThreadID       string   `json:"thread_id"`
	Subject        string   `json:"subject"`
	FromName       string   `json:"from_name"`
	FromEmail      string   `json:"from_email"`
	To             []string `json:"to"`
	CC             []string `json:"cc"`
	BCC            []string `json:"bcc"`
	ReplyTo        []string `json:"reply_to"`
	Date           string   `json:"date"`
	ReceivedAt     string   `json:"received_at"`
	MessageID      string   `json:"message_id"`
	InReplyTo      *string  `json:"in_reply_to"`
	References     []string `json:"references"`
	SizeBytes      int      `json:"size_bytes"`
	Labels         []string `json:"labels"`
	IsDraft        bool     `json:"is_draft"`
	IsFlagged      bool     `json:"is_flagged"`
	IsSeen         bool     `json:"is_seen"`
	IsAnswered     bool     `json:"is_answered"`
	HasAttachments bool     `json:"has_attachments"`
	Snippet        string   `json:"snippet"`
}

// MessageBody is one record of the gmail message_bodies stream.
type MessageBody struct {
	ID                string   `json:"id"`
	MessageID         string   `json:"message_id"`
	MessageReceivedAt string   `json:"message_received_at"`
	BodyText          string   `json:"body_text"`
	BodyHTML          *string  `json:"body_html"`
	BodyTextBytes     int      `json:"body_text_bytes"`
	BodyHTMLBytes     *int     `json:"body_html_bytes"`
	BodySource        string   `json:"body_source"`
	ContentLanguages  []string `json:"content_languages"`
	Charset           string   `json:"charset"`
}

// Thread is one record of the gmail threads stream.
type Thread struct {
	ID                string   `json:"id"`
	Subject           string   `json:"subject"`
	ParticipantEmails []string `json:"participant_emails"`
	MessageCount      int      `json:"message_count"`
	FirstMessageDate  string   `json:"first_message_date"`
	LastMessageDate   string   `json:"last_message_date"`
	Labels            []string `json:"labels"`
	UnreadCount       int      `json:"unread_count"`
	FlaggedCount      int      `json:"flagged_count"`
	HasAttachments    bool     `json:"has_attachments"`
}

// Label is one record of the gmail labels stream.
type Label struct {
	Name          string  `json:"name"`
	CanonicalName string  `json:"canonical_name"`
	IsSystem      bool    `json:"is_system"`
	ParentName    *string `json:"parent_name"`
	MessageCount  int     `json:"message_count"`
}

// Connection is the records of one Gmail connection of the data set.
type Connection struct {
	Key          string // "work" or "personal"
	DisplayName  string
	Messages     []Message
	Bodies       []MessageBody
	Threads      []Thread
	Labels       []Label
	ownerAddress string
}

// Dataset is the fixed two-connection Gmail data set: Work first, then
// Personal. It is deterministic: every run of Generate returns the same
// records, byte for byte once encoded.
type Dataset struct {
	Work, Personal Connection
}

// Connections lists the two connections, Work first.
func (d *Dataset) Connections() []*Connection { return []*Connection{&d.Work, &d.Personal} }

// hashInt is the big-endian integer of the SHA-256 of the parts joined by
// "|": the data set's only source of variety, so it is reproducible.
func hashInt(parts ...any) *big.Int {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = fmt.Sprint(p)
	}
	sum := sha256.Sum256([]byte(strings.Join(s, "|")))
	return new(big.Int).SetBytes(sum[:])
}

// hashMod is hashInt(parts...) / div % mod.
func hashMod(div, mod int64, parts ...any) int {
	n := hashInt(parts...)
	n.Div(n, big.NewInt(div))
	return int(n.Mod(n, big.NewInt(mod)).Int64())
}

func sentence(parts ...any) string {
	s := fillerSubjects[hashMod(1, int64(len(fillerSubjects)), parts...)]
	v := fillerVerbs[hashMod(7, int64(len(fillerVerbs)), parts...)]
	t := fillerTails[hashMod(53, int64(len(fillerTails)), parts...)]
	return strings.ToUpper(s[:1]) + s[1:] + " was " + v + " " + t + "."
}

func paragraph(key string, n, sentences int) string {
	out := make([]string, sentences)
	for k := range sentences {
		out[k] = sentence(key, n, k)
	}
	return strings.Join(out, " ")
}

// longBody is exactly target characters of "Paragraph N. ..." paragraphs
// separated by blank lines.
func longBody(mid string, target int) string {
	var paras []string
	for total, n := 0, 1; total < target; n++ {
		p := "Paragraph " + strconv.Itoa(n) + ". " + paragraph(mid, n, 7)
		paras = append(paras, p)
		total += len(p) + 2
	}
	text := strings.Join(paras, "\n\n")
	if len(text) > target {
		text = text[:target-1] + "."
	}
	return text
}

func shortBody(mid, subject, greeting string, zephyr bool) string {
	parts := []string{greeting + ",", "About " + strings.ToLower(subject) + ": " + paragraph(mid, 0, 2+hashMod(1, 3, mid))}
	if zephyr {
		parts = append(parts, "Please keep the ZEPHYR code word between us until the announcement.")
	}
	parts = append(parts, paragraph(mid, 1, 1+hashMod(1, 3, mid, "b")), "Thanks,")
	return strings.Join(parts, "\n\n")
}

// slot is one message of the global order: its connection and its index
// within the connection.
type slot struct {
	conn  int
	index int
}

// schedule interleaves the 54 messages W W P W P W P W P, six times.
func schedule() []slot {
	var seq []slot
	counters := [2]int{}
	for range 6 {
		for _, c := range "WWPWPWPWP" {
			conn := 0
			if c == 'P' {
				conn = 1
			}
			seq = append(seq, slot{conn, counters[conn]})
			counters[conn]++
		}
	}
	return seq
}

// sizes spreads size_bytes over n messages with the forced sum and single
// maximum; the remainder is shared out with floor division, as a negative
// difference needs.
func sizes(n int) []int {
	out := make([]int, n)
	sum := 0
	for g := range n {
		out[g] = 1000 + (g*7919+13)%3600
	}
	const imax = 5
	out[imax] = sizeMax
	for _, s := range out {
		sum += s
	}
	diff := sizeSum - sum
	others := n - 1
	q, r := diff/others, diff%others
	if r < 0 {
		q, r = q-1, r+others
	}
	k := 0
	for g := range n {
		if g == imax {
			continue
		}
		out[g] += q
		if k < r {
			out[g]++
		}
		k++
	}
	return out
}

func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Generate builds the data set.
func Generate() *Dataset {
	ds := &Dataset{}
	conns := ds.Connections()
	for i, cfg := range connConfigs {
		conns[i].Key, conns[i].DisplayName, conns[i].ownerAddress = cfg.key, cfg.displayName, cfg.owner
	}
	seq := schedule()
	sz := sizes(len(seq))
	monthStarts := []time.Time{
		time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC),
		time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC),
	}
	for g, s := range seq {
		cfg := connConfigs[s.conn]
		i := s.index
		at := isoMillis(monthStarts[g/18].Add(time.Duration(36*(g%18)) * time.Hour))
		mid := fmt.Sprintf("%s-m%03d", cfg.key, i)
		sender := cfg.senders[i%len(cfg.senders)]
		subject, snippet := fmt.Sprintf("%s #%d", cfg.topics[i%len(cfg.topics)], i+1), sentence(mid, "s")+" More inside."
		if k, ok := cfg.kayak[i]; ok {
			subject, snippet = k, "Sharing the kayak itinerary as promised. "+sentence(mid, "s")
		}
		labels := []string{"INBOX"}
		if i%3 == 0 {
			labels = append(labels, "IMPORTANT")
		}
		if i%4 == 0 {
			labels = append(labels, cfg.userLabel)
		}
		conns[s.conn].Messages = append(conns[s.conn].Messages, Message{
			ID: mid, ThreadID: fmt.Sprintf("%s-t%03d", cfg.key, i%cfg.nThreads), Subject: subject,
			FromName: sender[0], FromEmail: sender[1], To: []string{cfg.owner}, CC: []string{}, BCC: []string{}, ReplyTo: []string{},
			Date: at, ReceivedAt: at, MessageID: fmt.Sprintf("<%s@mail.%s.example>", mid, cfg.key),
			References: []string{}, SizeBytes: sz[g], Labels: labels,
			IsFlagged: i%5 == 2, IsSeen: g%2 == 0, IsAnswered: i%4 == 1, HasAttachments: i%6 == 3, Snippet: snippet,
		})
	}
	for i, cfg := range connConfigs {
		fillConnection(conns[i], cfg)
	}
	return ds
}

// fillConnection links replies within threads and derives the bodies,
// threads and labels of one connection from its messages.
func fillConnection(c *Connection, cfg connConfig) {
	slices.SortFunc(c.Messages, func(a, b Message) int { return strings.Compare(a.ID, b.ID) })
	byThread := map[string][]string{}
	for i := range c.Messages {
		m := &c.Messages[i]
		if prev := byThread[m.ThreadID]; len(prev) > 0 {
			last := prev[len(prev)-1]
			m.InReplyTo = &last
			m.References = slices.Clone(prev)
		}
		byThread[m.ThreadID] = append(byThread[m.ThreadID], m.MessageID)
	}
	greeting := "Hi"
	if cfg.key == "personal" {
		greeting = "Hello"
	}
	for i, m := range c.Messages {
		var body string
		if i%7 == 0 {
			target := 24_000 + hashMod(1, 3_500, m.ID, "len")
			if m.ID == "work-m000" {
				target = 24_970
			}
			body = longBody(m.ID, target)
		} else {
			body = shortBody(m.ID, cfg.topics[i%len(cfg.topics)], greeting, i == cfg.zephyr)
		}
		c.Bodies = append(c.Bodies, MessageBody{
			ID: m.ID + "-body", MessageID: m.ID, MessageReceivedAt: m.ReceivedAt, BodyText: body,
			BodyTextBytes: len(body), BodySource: "text_plain", ContentLanguages: []string{"en"}, Charset: "utf-8",
		})
	}
	for j := range cfg.nThreads {
		c.Threads = append(c.Threads, threadOf(c, cfg, j))
	}
	for _, l := range []struct {
		name   string
		system bool
	}{{"INBOX", true}, {"SENT", true}, {"IMPORTANT", true}, {cfg.userLabel, false}} {
		n := 0
		for _, m := range c.Messages {
			if slices.Contains(m.Labels, l.name) {
				n++
			}
		}
		c.Labels = append(c.Labels, Label{Name: l.name, CanonicalName: strings.ToLower(l.name), IsSystem: l.system, MessageCount: n})
	}
}

func threadOf(c *Connection, cfg connConfig, j int) Thread {
	th := Thread{ID: fmt.Sprintf("%s-t%03d", cfg.key, j), Subject: cfg.threadTopics[j] + " thread"}
	participants := map[string]bool{cfg.owner: true}
	labels := map[string]bool{}
	var dates []string
	for _, m := range c.Messages {
		if m.ThreadID != th.ID {
			continue
		}
		th.MessageCount++
		participants[m.FromEmail] = true
		for _, l := range m.Labels {
			labels[l] = true
		}
		dates = append(dates, m.ReceivedAt)
		if !m.IsSeen {
			th.UnreadCount++
		}
		if m.IsFlagged {
			th.FlaggedCount++
		}
		th.HasAttachments = th.HasAttachments || m.HasAttachments
	}
	slices.Sort(dates)
	th.FirstMessageDate, th.LastMessageDate = dates[0], dates[len(dates)-1]
	th.ParticipantEmails = sortedKeys(participants)
	th.Labels = sortedKeys(labels)
	return th
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// NDJSON is the ingest body of one stream of c: one
// {"key","data","emitted_at"} line per record, compact, without HTML
// escapes (the message ids hold angle brackets).
func (c *Connection) NDJSON(stream string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	type line struct {
		Key       string `json:"key"`
		Data      any    `json:"data"`
		EmittedAt string `json:"emitted_at"`
	}
	add := func(key string, data any) error { return enc.Encode(line{key, data, emittedAt}) }
	var err error
	switch stream {
	case "messages":
		for _, r := range c.Messages {
			err = cmpErr(err, add(r.ID, r))
		}
	case "message_bodies":
		for _, r := range c.Bodies {
			err = cmpErr(err, add(r.ID, r))
		}
	case "threads":
		for _, r := range c.Threads {
			err = cmpErr(err, add(r.ID, r))
		}
	case "labels":
		for _, r := range c.Labels {
			err = cmpErr(err, add(r.Name, r))
		}
	default:
		return nil, fmt.Errorf("ritest: the data set has no stream %q", stream)
	}
	return buf.Bytes(), err
}

// RecordCount is the number of records of stream in c.
func (c *Connection) RecordCount(stream string) int {
	switch stream {
	case "messages":
		return len(c.Messages)
	case "message_bodies":
		return len(c.Bodies)
	case "threads":
		return len(c.Threads)
	case "labels":
		return len(c.Labels)
	}
	return 0
}

func cmpErr(first, next error) error {
	if first != nil {
		return first
	}
	return next
}
