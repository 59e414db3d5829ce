package demodata

import (
	"strings"
	"time"
)

var chatModels = []string{"gpt-4o", "gpt-4o", "gpt-4.1", "o3", "gpt-4o-mini"}

var memoryFacts = []string{
	"Prefers concise answers with bullet points.",
	"Works at Acme on the product roadmap and budget planning.",
	"Is organising a team offsite in Lisbon this year.",
	"Handles vendor invoices for the platform team.",
	"Is training for a half marathon in the autumn.",
	"Likes examples written in Go.",
	"Lives with a dog named Biscuit.",
	"Is renovating a kitchen and tracking the budget in a spreadsheet.",
}

// genChatGPT writes conversations, their messages and a few memories.
// Conversations alternate user and assistant turns; some assistant turns
// are several thousand characters long.
func genChatGPT(b *builder, p plan) {
	r := b.rng("chatgpt")
	o, conn := &b.o, ChatGPTConnectionID
	cSalt, mSalt := saltFor(b.seed, "chatgpt/conversation"), saltFor(b.seed, "chatgpt/message")
	topics := append(append([]string{}, bank["workTopic"]...), bank["homeTopic"]...)

	for c, i := 0, 0; i < p.chatMessages; c++ {
		convID := uuidFrom(idFor(cSalt, c) + idFor(cSalt, -c-1))
		turns := min(2*r.between(1, 5), max(p.chatMessages-i, 2))
		start := b.at((float64(i) + r.float()) / float64(p.chatMessages))
		ids := make([]string, turns)
		for t := range ids {
			ids[t] = uuidFrom(idFor(mSalt, 2*(i+t)) + idFor(mSalt, 2*(i+t)+1))
		}
		model := pick(r, chatModels)
		at := start
		var title string
		for t, id := range ids {
			at = b.clamp(at)
			user := t%2 == 0
			var content string
			if user {
				content = line(r, prompts, topics)
				if t == 0 {
					title = snippetOf(strings.TrimSuffix(content, "."), 48)
				}
			} else {
				content = chatAnswer(r, topics)
			}
			o.begin()
			o.str("id", id)
			o.str("conversation_id", convID)
			if t > 0 {
				o.str("parent_id", ids[t-1])
			} else {
				o.null("parent_id")
			}
			if t+1 < len(ids) {
				o.strs("children_ids", ids[t+1:t+2])
			} else {
				o.strs("children_ids", nil)
			}
			if user {
				o.str("role", "user")
			} else {
				o.str("role", "assistant")
			}
			o.str("content", content)
			o.str("content_type", "text")
			if user {
				o.null("model_slug")
			} else {
				o.str("model_slug", model)
			}
			o.time("create_time", at)
			if user {
				o.null("finish_reason")
			} else {
				o.str("finish_reason", "stop")
			}
			o.strs("citations", nil)
			o.strs("tool_calls", nil)
			o.strs("attachment_ids", nil)
			o.bool("on_current_branch", true)
			b.emit(conn, "messages", id, at)
			at = at.Add(time.Duration(r.between(5, 600)) * time.Second)
		}
		i += turns

		o.begin()
		o.str("id", convID)
		o.str("title", title)
		o.time("create_time", b.clamp(start))
		o.time("update_time", b.clamp(at))
		o.bool("is_archived", r.chance(10))
		o.bool("is_starred", r.chance(5))
		o.null("workspace_id")
		o.str("current_node", ids[len(ids)-1])
		o.int("message_count_on_current_branch", int64(len(ids)))
		o.null("gizmo_id")
		b.emit(conn, "conversations", convID, b.clamp(at))
	}

	for i := 0; i < p.chatMemories; i++ {
		id := "mem_" + idFor(saltFor(b.seed, "chatgpt/memory"), i)
		created := b.at(r.float())
		o.begin()
		o.str("id", id)
		o.str("content", memoryFacts[i%len(memoryFacts)])
		o.time("created_at", created)
		o.time("updated_at", created)
		b.emit(conn, "memories", id, created)
	}
}

// chatAnswer is an assistant turn: usually two to four paragraphs, and in
// one of ten turns a long, detailed answer.
func chatAnswer(r *rng, topics []string) string {
	n := r.between(2, 4)
	if r.chance(10) {
		n = r.between(15, 40)
	}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString("\n\n")
		}
		paragraph(r, r.between(2, 4), answers, topics, &sb)
	}
	return sb.String()
}
