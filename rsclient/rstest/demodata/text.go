package demodata

import "strings"

// The banks below are the only source of prose in the dataset. They are
// deliberately small and plain: enough variety for lexical search and
// ranking to be meaningful, and a few shared terms ("invoice", "roadmap",
// "offsite", "budget") that occur in every connector so cross-connector
// search has hits. None of them may contain LongBodyTerm (a test checks).
var bank = map[string][]string{
	"first": {"Priya", "Marcus", "Elena", "Tomas", "Aisha", "Daniel", "Mei", "Oliver", "Sofia", "Kwame",
		"Hannah", "Luis", "Grace", "Ravi", "Nora", "Felix", "Amara", "Jonah", "Leila", "Sam"},
	"last": {"Raman", "Okafor", "Lindqvist", "Novak", "Haddad", "Brennan", "Chen", "Whitaker", "Alvarez",
		"Mensah", "Kowalski", "Ortega", "Park", "Iyer", "Fischer", "Dubois", "Nakamura", "Quinn"},
	"workTopic": {"Q3 roadmap", "vendor invoice", "team offsite", "hiring plan", "budget review",
		"launch checklist", "security audit", "customer onboarding", "design review", "quarterly report",
		"data migration", "pricing update", "support backlog", "partner contract", "board deck"},
	"homeTopic": {"summer trip", "lease renewal", "school fundraiser", "book club", "kitchen renovation",
		"tax documents", "birthday dinner", "marathon training", "dentist appointment", "utility invoice",
		"weekend plans", "car insurance", "garden project", "family reunion", "offsite weekend"},
	"doc": {"draft", "spreadsheet", "slide deck", "invoice", "roadmap", "checklist", "proposal", "budget sheet",
		"meeting notes", "contract", "timeline", "agenda", "summary"},
	"day": {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "next week", "the end of the month",
		"tomorrow morning", "Friday afternoon", "the 15th"},
	"time":   {"9:30", "10:00", "11:15", "1:00", "2:30", "3:45", "4:00"},
	"team":   {"finance", "design", "platform", "sales", "legal", "support", "marketing", "data", "ops"},
	"place":  {"Lisbon", "Denver", "Portland", "Austin", "Montreal", "Edinburgh", "Kyoto", "Santa Fe"},
	"amount": {"$1,250", "$3,480", "$7,900", "$12,400", "$640", "$2,015", "$18,750", "$415"},
	"verb":   {"review", "update", "finalize", "share", "approve", "double-check", "summarize", "reschedule"},
}

// sentences are email-style sentence templates; {slot} picks from bank,
// {topic} from the mailbox's topic bank.
var sentences = []string{
	"Quick update on the {topic}: we are on track for {day}.",
	"Can you {verb} the {doc} before {day}?",
	"{first} mentioned that the {topic} needs another pass from the {team} team.",
	"I attached the latest {doc} so everyone is working from the same numbers.",
	"The invoice for {amount} is still waiting on approval from finance.",
	"Let's block an hour on {day} at {time} to walk through the roadmap together.",
	"For the offsite in {place}, please confirm your travel dates by {day}.",
	"I moved the {topic} discussion to {day} so {first} can join.",
	"Thanks for pulling this together so quickly, it reads much better now.",
	"One open question is whether the budget covers the extra work on the {topic}.",
	"We agreed to {verb} the {doc} and circulate it to the {team} team.",
	"If anything in the {doc} looks off, flag it and I will fix it today.",
	"The short version: the {topic} slipped a week, but nothing critical is blocked.",
	"{first} and I went through the numbers and the total comes to {amount}.",
	"Please keep the {doc} internal until we {verb} it on {day}.",
	"I still owe you the notes from {day}; they are mostly about the {topic}.",
	"Could you check whether the invoice number matches the purchase order?",
	"The roadmap now lists the {topic} as a priority for next quarter.",
	"Happy to jump on a call at {time} if that is easier than email.",
	"We should decide on the offsite venue soon; {place} is my first choice.",
	"Reminder that the {doc} is due {day}, and {first} is covering for me.",
	"I looked at the {topic} again and I think we can simplify the plan.",
	"Finance asked for a copy of the invoice and the signed {doc}.",
	"Let me know if the {time} slot on {day} still works for you.",
}

// chatLines are short Slack-style messages.
var chatLines = []string{
	"morning all, the {doc} for the {topic} is up",
	"can someone {verb} the invoice from {first}? it's {amount}",
	"heads up: roadmap review moved to {day} at {time}",
	"offsite planning thread, {place} is looking likely",
	"thanks {first}, that fixed it",
	"who owns the {topic} this sprint?",
	"I'll {verb} the {doc} after lunch",
	"budget numbers are in the sheet, ping me with questions",
	"+1 to what {first} said",
	"standup notes: {topic} on track, {team} blocked on review",
	"reminder: {doc} due {day}",
	"is the {time} sync still happening?",
	"shipping the {topic} changes today, shout if anything looks odd",
	"the invoice went out, finance has a copy",
	"great work on the {topic} everyone",
}

// prompts are ChatGPT user turns; answers are assistant paragraphs.
var prompts = []string{
	"Help me write an email to {first} about the {topic}.",
	"Summarize the key risks in our {topic} in three bullet points.",
	"Draft an agenda for a two-day offsite in {place}.",
	"How should I structure a product roadmap for the next two quarters?",
	"What is a polite way to follow up on an unpaid invoice of {amount}?",
	"Turn these meeting notes about the {topic} into action items.",
	"Explain the difference between a budget forecast and a budget plan.",
	"Give me a checklist to {verb} a {doc} before sending it to the {team} team.",
	"Suggest names for a team working on the {topic}.",
	"Rewrite this paragraph so it sounds less formal: we will {verb} the {doc} by {day}.",
}

var answers = []string{
	"Here is a draft you can adapt. Start by thanking {first} for the quick turnaround, then state clearly what you need and by when.",
	"The main risks are schedule pressure, unclear ownership of the {doc}, and a budget that assumes no change requests.",
	"A good roadmap separates committed work from exploratory work and revisits priorities every few weeks with the {team} team.",
	"For the invoice, keep the tone friendly: reference the invoice number, the amount of {amount}, and offer to resend it.",
	"Day one of the offsite could focus on retrospectives and strategy; day two on planning and team time in {place}.",
	"Action items: {first} to {verb} the {doc} by {day}; the {team} team to confirm scope; everyone to review the roadmap.",
	"A forecast predicts what will happen based on current data, while a plan states what you intend to spend and why.",
	"Before sending, check the numbers, confirm the dates, remove internal comments, and ask one person to proofread.",
	"If you want, I can also turn this into a short slide deck or a one-page summary for the {team} team.",
	"In short, keep the message specific, name a date such as {day}, and make the next step obvious.",
}

// expand fills {slot} placeholders from bank (and {topic} from topics).
func expand(r *rng, tmpl string, topics []string, sb *strings.Builder) {
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			sb.WriteString(tmpl)
			return
		}
		j := strings.IndexByte(tmpl[i:], '}') + i
		sb.WriteString(tmpl[:i])
		slot := tmpl[i+1 : j]
		if slot == "topic" {
			sb.WriteString(pick(r, topics))
		} else {
			sb.WriteString(pick(r, bank[slot]))
		}
		tmpl = tmpl[j+1:]
	}
}

// paragraph writes n sentences from tmpls separated by spaces.
func paragraph(r *rng, n int, tmpls, topics []string, sb *strings.Builder) {
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(' ')
		}
		expand(r, pick(r, tmpls), topics, sb)
	}
}

// line returns one expanded template.
func line(r *rng, tmpls, topics []string) string {
	var sb strings.Builder
	expand(r, pick(r, tmpls), topics, &sb)
	return sb.String()
}

// fillers pads text to an exact length; fillers[n] is exactly n characters
// (a test checks).
var fillers = []string{"", ".", "\n\n", " ok", " yes", " fine", " noted", " agreed", " thanks.",
	" see you.", " all good.", " more soon.", " talk later."}

// fillClause is the repeated unit of fill for longer gaps.
const fillClause = " and the rest of the notes follow."

// fill returns exactly n characters of plain filler prose, so that the long
// body can put LongBodyTerm and its end at exact offsets.
func fill(n int) string {
	var sb strings.Builder
	for n >= len(fillers) {
		w := fillClause
		if n < len(w)+len(fillers) {
			w = fillers[len(fillers)-1]
		}
		sb.WriteString(w)
		n -= len(w)
	}
	sb.WriteString(fillers[n])
	return sb.String()
}

// snippetOf returns the first words of s up to about n characters, like a
// mail client's preview line.
func snippetOf(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], ' '); i > 0 {
		return s[:i]
	}
	return s[:n]
}
