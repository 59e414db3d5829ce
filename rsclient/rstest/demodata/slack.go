package demodata

import (
	"strconv"
	"strings"
	"time"
)

// slackChannelNames seed the channel list; later channels get a suffix.
var slackChannelNames = []string{"general", "random", "roadmap", "finance-invoices", "offsite-2026",
	"eng-platform", "design-crit", "support-escalations", "sales-wins", "data-team", "hiring",
	"announcements", "budget-planning", "incidents", "customer-feedback", "watercooler"}

var slackEmoji = []string{"+1", "tada", "eyes", "white_check_mark", "raised_hands", "heart", "rocket", "pray"}

// slackUser is the part of a user that messages refer to.
type slackUser struct{ id, first string }

// genSlack writes the Acme Slack workspace: workspace, channels, users,
// messages (with threads) and reactions.
func genSlack(b *builder, p plan) {
	r := b.rng("slack")
	conn, o := SlackConnectionID, &b.o
	team := "T" + strings.ToUpper(idFor(saltFor(b.seed, "slack/team"), 0)[:10])
	uSalt, cSalt := saltFor(b.seed, "slack/user"), saltFor(b.seed, "slack/channel")

	users := make([]slackUser, p.slackUsers)
	for i := range users {
		first, last := "Jordan", "Ellis"
		if i > 0 {
			first, last = pick(r, bank["first"]), pick(r, bank["last"])
		}
		u := slackUser{id: "U" + strings.ToUpper(idFor(uSalt, i)[:10]), first: first}
		users[i] = u
		updated := b.at(r.float())
		handle := lower(first) + "." + lower(last)
		o.begin()
		o.str("id", u.id)
		o.str("team_id", team)
		o.str("name", handle)
		for _, k := range []string{"real_name", "real_name_normalized"} {
			o.str(k, first+" "+last)
		}
		for _, k := range []string{"display_name", "display_name_normalized"} {
			o.str(k, first)
		}
		o.str("first_name", first)
		o.str("last_name", last)
		o.str("email", handle+"@acme.example.com")
		o.null("phone")
		o.str("title", pick(r, []string{"Engineer", "Product Manager", "Designer", "Finance Lead", "Support Specialist", "Data Analyst", "Recruiter"}))
		o.str("status_text", pick(r, []string{"", "In a meeting", "Heads down", "Travelling to the offsite", "Out sick"}))
		o.str("status_emoji", pick(r, []string{"", ":calendar:", ":headphones:", ":airplane:"}))
		o.int("status_expiration", 0)
		o.str("tz", "America/Los_Angeles")
		o.str("tz_label", "Pacific Daylight Time")
		o.int("tz_offset", -25200)
		o.str("color", "#"+idFor(uSalt, -i-1)[:6])
		o.bool("is_bot", false)
		o.bool("is_admin", i == 0)
		o.bool("is_owner", i == 0)
		o.bool("is_primary_owner", i == 0)
		o.bool("is_restricted", false)
		o.bool("is_ultra_restricted", false)
		o.bool("is_stranger", false)
		o.bool("is_invited_user", false)
		o.bool("is_app_user", false)
		o.bool("deleted", i > 0 && r.chance(3))
		o.bool("has_2fa", r.chance(80))
		o.str("two_factor_type", "app")
		o.str("image_192_url", "https://avatars.example.com/"+u.id+"_192.jpg")
		o.null("enterprise_id")
		o.int("updated", updated.Unix())
		b.emit(conn, "users", u.id, updated)
	}

	channels := make([]string, p.slackChannels)
	for i := range channels {
		id := "C" + strings.ToUpper(idFor(cSalt, i)[:10])
		channels[i] = id
		name := slackChannelNames[i%len(slackChannelNames)]
		if i >= len(slackChannelNames) {
			name += "-" + strconv.Itoa(i/len(slackChannelNames)+1)
		}
		created := b.start.Add(-time.Duration(r.between(30, 900)) * day).Truncate(time.Second)
		creator := users[r.intn(len(users))].id
		o.begin()
		o.str("id", id)
		o.str("name", name)
		o.str("name_normalized", name)
		o.bool("is_channel", true)
		o.bool("is_group", false)
		o.bool("is_im", false)
		o.bool("is_mpim", false)
		o.bool("is_private", i > 3 && r.chance(12))
		for _, k := range []string{"is_shared", "is_ext_shared", "is_org_shared", "is_archived"} {
			o.bool(k, false)
		}
		o.bool("is_general", i == 0)
		o.bool("is_member", true)
		o.bool("is_read_only", false)
		o.str("creator", creator)
		o.int("created", created.Unix())
		o.str("created_at", created.Format("2006-01-02T15:04:05.000Z07:00"))
		o.str("topic", "Everything about "+strings.ReplaceAll(name, "-", " "))
		o.str("topic_creator", creator)
		o.int("topic_last_set", created.Unix()+600)
		o.str("purpose", line(r, []string{"Coordination for the {topic}.", "Where the {team} team shares updates."}, bank["workTopic"]))
		o.str("purpose_creator", creator)
		o.int("purpose_last_set", created.Unix()+300)
		o.null("user")
		o.null("shared_team_ids")
		o.str("context_team_id", team)
		o.null("previous_names")
		o.bool("has_canvas", false)
		o.null("canvas_file_id")
		o.bool("posting_restricted", i == 0)
		o.bool("threads_restricted", false)
		b.emit(conn, "channels", id, created)
	}

	o.begin()
	o.str("id", team)
	o.str("name", "Acme")
	o.str("domain", "acme-example")
	o.str("email_domain", "acme.example.com")
	o.null("enterprise_id")
	o.null("enterprise_name")
	o.str("url", "https://acme-example.slack.com/")
	o.str("icon_url", "https://avatars.example.com/acme_132.png")
	o.str("authenticated_user_id", users[0].id)
	o.str("authenticated_username", "jordan.ellis")
	o.null("authenticated_bot_id")
	o.time("fetched_at", b.now.Add(-time.Hour))
	b.emit(conn, "workspace", team, b.now.Add(-time.Hour))

	sg := &slackGen{b: b, r: r, team: team, users: users, channels: channels}
	for i := 0; i < p.slackMessages; {
		i += sg.unit(i, p.slackMessages)
	}
}
