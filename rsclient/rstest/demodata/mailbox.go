package demodata

import "time"

// mailbox describes one Gmail connection: whose it is, what it talks
// about, and which well-known messages it must contain.
type mailbox struct {
	key        string // rng/salt namespace
	conn       string
	ownerFirst string
	ownerName  string
	ownerEmail string
	domains    []string
	topics     []string
	userLabels []string
	// long are the well-known >20,000-char bodies of this mailbox; the
	// first entry of the work mailbox is the exact 50,000-char one.
	long []longSpec
}

// longSpec places one long body: its id and how long ago it arrived.
type longSpec struct {
	id    string
	exact bool // the LongBodyLength body with LongBodyTerm
	ago   time.Duration
	size  int // target length when !exact
}

const day = 24 * time.Hour

var gmailPersonal = &mailbox{
	key:        "personal",
	conn:       GmailPersonalConnectionID,
	ownerFirst: "Jordan",
	ownerName:  "Jordan Ellis",
	ownerEmail: "jordan.ellis@example.com",
	domains:    []string{"example.com", "example.org", "example.net"},
	topics:     bank["homeTopic"],
	userLabels: []string{"Family", "Travel", "Receipts"},
	long: []longSpec{
		{id: LongBodyIDs[3], ago: 41 * day, size: 24_500},
		{id: LongBodyIDs[4], ago: 133 * day, size: 21_200},
	},
}

var gmailWork = &mailbox{
	key:        "work",
	conn:       GmailWorkConnectionID,
	ownerFirst: "Jordan",
	ownerName:  "Jordan Ellis",
	ownerEmail: "jordan@acme.example.com",
	domains:    []string{"acme.example.com", "northwind.example.com", "globex.example.net"},
	topics:     bank["workTopic"],
	userLabels: []string{"Projects/Roadmap", "Finance", "Offsite"},
	long: []longSpec{
		{id: LongBodyMessageID, exact: true, ago: 12 * day},
		{id: LongBodyIDs[0], ago: 27 * day, size: 38_000},
		{id: LongBodyIDs[1], ago: 64 * day, size: 29_750},
		{id: LongBodyIDs[2], ago: 190 * day, size: 22_300},
	},
}

// systemLabels are the Gmail system labels every mailbox has.
var systemLabels = []string{"INBOX", "SENT", "IMPORTANT", "STARRED", "UNREAD", "DRAFT", "CATEGORY_UPDATES"}

// labelsPerMailbox is the fixed labels-stream size of one mailbox.
const labelsPerMailbox = 10 // len(systemLabels) + 3 user labels

// sharedAgo is how long ago the email delivered to both mailboxes arrived.
const sharedAgo = 20 * day

// person is a correspondent.
type person struct{ first, name, email string }

func (mb *mailbox) owner() person {
	return person{first: mb.ownerFirst, name: mb.ownerName, email: mb.ownerEmail}
}

// contact invents a correspondent; a small pool per mailbox keeps names
// recurring, as in a real inbox.
func (mb *mailbox) contact(r *rng) person {
	f, l := pick(r, bank["first"]), pick(r, bank["last"])
	d := mb.domains[(len(f)+len(l))%len(mb.domains)]
	return person{first: f, name: f + " " + l, email: lower(f) + "." + lower(l) + "@" + d}
}

// lower is an ASCII-only strings.ToLower without the allocation checks.
func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// subjects are thread subject templates.
var subjects = []string{
	"{topic} update", "Quick question about the {doc}", "{topic}: next steps", "Invoice for {topic}",
	"Notes from {day}", "Draft {doc} for review", "Re-scheduling the {topic} sync", "Offsite logistics",
	"Roadmap check-in", "Budget numbers for {topic}", "FYI: {topic}", "Can we talk {day}?",
}
