package demodata

import (
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
)

// Granted projections. The Gmail ones are those of rs-contract §5.1, so
// bcc/reply_to and the message_bodies byte/charset/html fields render
// g=false in the schema; Slack withholds users' email and phone.
var (
	gmailMessageFields = []string{"id", "thread_id", "subject", "from_name", "from_email", "to", "cc", "date",
		"received_at", "message_id", "in_reply_to", "references", "size_bytes", "labels", "is_draft", "is_flagged",
		"is_seen", "is_answered", "has_attachments", "snippet"}
	gmailBodyFields       = []string{"id", "message_id", "message_received_at", "body_text", "body_source"}
	restrictedMsgFields   = []string{"id", "thread_id", "subject", "from_name", "received_at"}
	restrictedBodyFields  = []string{"id", "message_id", "message_received_at"}
	slackUserFields       = []string{"id", "team_id", "name", "real_name", "display_name", "title", "status_text", "tz", "is_bot", "deleted", "updated"}
	bothGmailConnections  = []string{GmailPersonalConnectionID, GmailWorkConnectionID}
	workGmailConnection   = []string{GmailWorkConnectionID}
	slackConnections      = []string{SlackConnectionID}
	chatGPTConnections    = []string{ChatGPTConnectionID}
	gitHubConnections     = []string{GitHubConnectionID}
	personalGmailOnlyConn = []string{GmailPersonalConnectionID}
)

// restrictedWindowDays is how far back GmailRestrictedGrantID's time
// constraint on messages reaches.
const restrictedWindowDays = 180

// grants returns the dataset's grants. Slices are freshly allocated so a
// caller mutating one Dataset cannot affect another.
func grants(opts Options) []rstest.Grant {
	all := func(conns []string, names ...string) []rstest.GrantStream {
		gs := make([]rstest.GrantStream, len(names))
		for i, n := range names {
			gs[i] = rstest.GrantStream{Name: n, ConnectionIDs: clone(conns)}
		}
		return gs
	}
	since := opts.Now.Add(-time.Duration(restrictedWindowDays) * day).Truncate(day).Format(time.RFC3339)

	gmail := append([]rstest.GrantStream{
		{Name: "messages", ConnectionIDs: clone(bothGmailConnections), Fields: clone(gmailMessageFields)},
		{Name: "message_bodies", ConnectionIDs: clone(bothGmailConnections), Fields: clone(gmailBodyFields)},
	}, all(bothGmailConnections, "threads", "labels", "attachments")...)
	slack := all(slackConnections, "workspace", "channels", "users", "messages", "reactions")
	slack[2].Fields = clone(slackUserFields)

	return []rstest.Grant{
		{ID: GmailGrantID, ClientID: GmailClientID, Token: TokenFor(opts.Seed, "gmail"), ConnectorKey: "gmail",
			Streams: gmail, Status: "active"},
		{ID: GmailRestrictedGrantID, ClientID: GmailRestrictedClientID, Token: TokenFor(opts.Seed, "gmail-restricted"),
			ConnectorKey: "gmail", Status: "active", Streams: []rstest.GrantStream{
				{Name: "messages", ConnectionIDs: clone(workGmailConnection), Fields: clone(restrictedMsgFields),
					TimeConstraint: &rstest.TimeConstraint{Field: "received_at", Since: since}},
				{Name: "message_bodies", ConnectionIDs: clone(workGmailConnection), Fields: clone(restrictedBodyFields)},
			}},
		{ID: SlackGrantID, ClientID: SlackClientID, Token: TokenFor(opts.Seed, "slack"), ConnectorKey: "slack",
			Streams: slack, Status: "active"},
		{ID: ChatGPTGrantID, ClientID: ChatGPTClientID, Token: TokenFor(opts.Seed, "chatgpt"), ConnectorKey: "chatgpt",
			Streams: all(chatGPTConnections, "conversations", "messages", "memories"), Status: "active"},
		{ID: GitHubGrantID, ClientID: GitHubClientID, Token: TokenFor(opts.Seed, "github"), ConnectorKey: "github",
			Streams: all(gitHubConnections, "user", "repositories", "issues", "pull_requests"), Status: "active"},
		{ID: RevokedGrantID, ClientID: RevokedClientID, Token: TokenFor(opts.Seed, "revoked"), ConnectorKey: "gmail",
			Streams: all(personalGmailOnlyConn, "messages", "message_bodies"), Status: "revoked"},
	}
}

func clone(s []string) []string { return append([]string(nil), s...) }
