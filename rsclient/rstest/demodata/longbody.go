package demodata

import (
	"strings"
	"time"
)

// sharedMail is the email delivered to both Gmail mailboxes (Jordan is on
// To at work and Cc at home), so SharedRecordID exists in both
// connections. It draws from its own rng so both copies are identical.
func sharedMail(b *builder) *mail {
	r := b.rng("gmail/shared")
	at := b.clamp(b.now.Add(-sharedAgo).Truncate(time.Minute))
	sender := person{first: "Priya", name: "Priya Raman", email: "priya.raman@acme.example.com"}
	var sb strings.Builder
	sb.WriteString("Hi Jordan,\n\nSending this to both of your addresses so it reaches you while you travel. ")
	sb.WriteString("The offsite agenda is final, the venue invoice is paid, and the roadmap session moved to the second morning. ")
	paragraph(r, 3, sentences, bank["workTopic"], &sb)
	sb.WriteString("\n\nThanks,\nPriya")
	return &mail{
		id:       SharedRecordID,
		threadID: idFor(saltFor(b.seed, "gmail/shared/thread"), 0),
		subject:  "Offsite agenda and travel details",
		from:     sender,
		to:       []person{gmailWork.owner()},
		cc:       []person{gmailPersonal.owner()},
		at:       at,
		headerID: "<" + SharedRecordID + ".offsite@mail.acme.example.com>",
		body:     sb.String(),
		seen:     true,
	}
}

// longMail builds one of the well-known long emails of mb.
func longMail(b *builder, mb *mailbox, ls longSpec, threadID string) *mail {
	r := b.rng("gmail/long/" + ls.id)
	sender := person{first: "Marcus", name: "Marcus Okafor", email: "marcus.okafor@" + mb.domains[1]}
	m := &mail{
		id:       ls.id,
		threadID: threadID,
		from:     sender,
		to:       []person{mb.owner()},
		at:       b.clamp(b.now.Add(-ls.ago).Truncate(time.Minute)),
		headerID: "<" + ls.id + ".notes@mail." + mb.domains[1] + ">",
		seen:     true,
	}
	if ls.exact {
		m.subject = "Vendor contract review: full notes and open questions"
		m.body = exactLongBody(r, mb.topics)
	} else {
		m.subject = "Long read: " + line(r, subjects, mb.topics)
		var sb strings.Builder
		sb.WriteString("Hi " + mb.ownerFirst + ",\n\nHere are my complete notes, sorry for the length.\n\n")
		proseUntil(r, &sb, ls.size, mb.topics)
		sb.WriteString("\n\nBest,\nMarcus")
		m.body = sb.String()
	}
	return m
}

// Fixed pieces of the exact long body around LongBodyTerm.
const (
	longLead  = " Internally the vendor calls this engagement project "
	longAfter = ". Please keep that code name out of external threads.\n\n"
	longSign  = "\n\nBest,\nMarcus"
)

// exactLongBody returns a body of exactly LongBodyLength characters with
// LongBodyTerm at exactly LongBodyTermOffset.
func exactLongBody(r *rng, topics []string) string {
	var sb strings.Builder
	sb.Grow(LongBodyLength)
	sb.WriteString("Hi Jordan,\n\nBelow are the full review notes for the vendor contract, section by section.\n\n")
	proseUntil(r, &sb, LongBodyTermOffset-len(longLead), topics)
	sb.WriteString(longLead)
	sb.WriteString(LongBodyTerm)
	sb.WriteString(longAfter)
	proseUntil(r, &sb, LongBodyLength-len(longSign), topics)
	sb.WriteString(longSign)
	return sb.String()
}

// proseUntil appends sentences, in paragraphs of four to seven, while the
// builder stays within limit, then pads to exactly limit characters.
func proseUntil(r *rng, sb *strings.Builder, limit int, topics []string) {
	var s strings.Builder
	inPara := 0
	for {
		s.Reset()
		sep := " "
		if inPara == 0 {
			sep = ""
		} else if inPara >= 4 && r.chance(35) {
			sep, inPara = "\n\n", 0
		}
		expand(r, pick(r, sentences), topics, &s)
		if sb.Len()+len(sep)+s.Len() > limit {
			break
		}
		sb.WriteString(sep)
		sb.WriteString(s.String())
		inPara++
	}
	sb.WriteString(fill(limit - sb.Len()))
}
