package demodata

import (
	"strconv"
	"time"
)

type slackGen struct {
	b        *builder
	r        *rng
	team     string
	users    []slackUser
	channels []string
}

// slackMsg is one message before it is written.
type slackMsg struct {
	ts, user string
	at       time.Time
	text     string
}

// unit writes a top-level message and its replies (0–4) and returns how
// many messages it wrote. i, of n, places it in time.
func (g *slackGen) unit(i, n int) int {
	r := g.r
	// Low-numbered channels are busier, like #general and #roadmap.
	ch := g.channels[r.intn(r.intn(len(g.channels))+1)]
	k := 0
	if r.chance(25) {
		k = r.between(1, 4)
	}
	k = min(k, n-i-1)
	msgs := make([]slackMsg, k+1)
	at := g.b.at((float64(i) + r.float()) / float64(n))
	for j := range msgs {
		at = g.b.clamp(at)
		msgs[j] = slackMsg{
			ts:   strconv.FormatInt(at.Unix(), 10) + "." + pad6(i+j),
			user: g.users[r.intn(len(g.users))].id,
			at:   at,
			text: g.text(),
		}
		at = at.Add(time.Duration(r.between(20, 5400)) * time.Second)
	}
	parent := msgs[0]
	for j, m := range msgs {
		g.write(ch, m, parent, j, msgs[1:])
	}
	return k + 1
}

// text is mostly one chat line, sometimes a longer multi-sentence post.
func (g *slackGen) text() string {
	if g.r.chance(6) {
		return longSlackText(g.r)
	}
	return line(g.r, chatLines, bank["workTopic"])
}

func longSlackText(r *rng) string {
	s := line(r, chatLines, bank["workTopic"]) + "\n"
	for i, n := 0, r.between(2, 4); i < n; i++ {
		s += "\n" + line(r, sentences, bank["workTopic"])
	}
	return s
}

func pad6(n int) string {
	s := strconv.Itoa(n % 1_000_000)
	for len(s) < 6 {
		s = "0" + s
	}
	return s
}

// write emits one message; j is its position in the unit (0 = parent) and
// replies are the unit's replies, needed for the parent's thread fields.
func (g *slackGen) write(ch string, m, parent slackMsg, j int, replies []slackMsg) {
	r, o := g.r, &g.b.o
	id := ch + ":" + m.ts
	o.begin()
	o.str("id", id)
	o.str("channel_id", ch)
	o.str("user_id", m.user)
	o.null("bot_id")
	o.str("team_id", g.team)
	o.str("client_msg_id", uuidFrom(hexDigest("slack/client/"+id, 16)))
	o.str("ts", m.ts)
	o.time("sent_at", m.at)
	if j > 0 || len(replies) > 0 {
		o.str("thread_ts", parent.ts)
	} else {
		o.null("thread_ts")
	}
	if j > 0 {
		o.str("parent_user_id", parent.user)
	} else {
		o.null("parent_user_id")
	}
	isParent := j == 0 && len(replies) > 0
	o.bool("is_thread_parent", isParent)
	if isParent {
		o.int("reply_count", int64(len(replies)))
		seen := map[string]bool{}
		var ids []string
		for _, rp := range replies {
			if !seen[rp.user] {
				seen[rp.user] = true
				ids = append(ids, rp.user)
			}
		}
		o.strs("reply_user_ids", ids)
		o.str("latest_reply", replies[len(replies)-1].ts)
	} else {
		o.null("reply_count")
		o.null("reply_user_ids")
		o.null("latest_reply")
	}
	o.null("subtype")
	o.bool("is_tombstone", false)
	o.str("text", m.text)
	if r.chance(5) {
		o.str("edited_ts", strconv.FormatInt(m.at.Unix()+int64(r.between(30, 900)), 10)+".000000")
		o.str("edited_by", m.user)
	} else {
		o.null("edited_ts")
		o.null("edited_by")
	}
	o.bool("has_files", false)
	o.null("file_count")
	o.bool("has_attachments", false)
	o.null("attachment_count")
	o.bool("has_blocks", true)
	var emoji []string
	if r.chance(15) {
		e := r.intn(len(slackEmoji))
		emoji = []string{slackEmoji[e]} // a copy: appending to a bank slice would corrupt it
		if r.chance(40) {
			emoji = append(emoji, slackEmoji[(e+1)%len(slackEmoji)])
		}
	}
	o.int("reaction_count", int64(len(emoji)))
	pinned := r.chance(1)
	o.bool("is_pinned", pinned)
	if pinned {
		o.strs("pinned_to", []string{ch})
	} else {
		o.null("pinned_to")
	}
	o.null("metadata_event_type")
	g.b.emit(SlackConnectionID, "messages", id, m.at)

	for _, e := range emoji {
		u := g.users[r.intn(len(g.users))].id
		rid := id + ":" + e + ":" + u
		o.begin()
		o.str("id", rid)
		o.str("message_id", id)
		o.str("channel_id", ch)
		o.str("user_id", u)
		o.str("emoji", e)
		g.b.emit(SlackConnectionID, "reactions", rid, m.at.Add(time.Duration(r.between(10, 3600))*time.Second))
	}
}

// uuidFrom formats 32 hex digits as a UUID.
func uuidFrom(h string) string {
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
