package demodata

// DemoNow is the frozen clock of the demo dataset (the same instant as the
// PDPP reference sandbox). Options.Now defaults to it; the wall clock is
// never consulted, so the dataset is reproducible.
const DemoNow = "2026-04-25T15:00:00Z"

// DefaultSeed is the seed Build uses when Options.Seed is 0. The exported
// token constants below are the tokens of this seed.
const DefaultSeed int64 = 20260425

// DefaultRecords is the approximate record count Build produces when
// Options.Records is 0: small enough for a readable demo, large enough that
// paging, fan-in and search have something to do.
const DefaultRecords = 400

// Connection ids. The two Gmail ids are the ones the RS contract uses in its
// examples (rs-contract §3.4, §5.1), so captures and docs line up.
const (
	GmailPersonalConnectionID = "cin_3f9a1c0e5b7d2a4c6e8f0a1b"
	GmailWorkConnectionID     = "cin_7b2e4d6f8a0c1e3a5b7d9f0c"
	SlackConnectionID         = "cin_0bddd55e5f80fe250662e8d4"
	ChatGPTConnectionID       = "cin_d556baab41fb6260cf07ab4a"
	GitHubConnectionID        = "cin_be506a590ec27dac0fe7bdd2"
)

// Connection display names, as the RS reports them in granted_connections.
const (
	GmailPersonalDisplayName = "Personal Gmail"
	GmailWorkDisplayName     = "Work Gmail"
	SlackDisplayName         = "Acme Slack"
	ChatGPTDisplayName       = "ChatGPT"
	GitHubDisplayName        = "GitHub"
)

// Grant ids. GmailGrantID covers both Gmail connections with the projection
// of rs-contract §5.1; GmailRestrictedGrantID covers only the work
// connection with a narrow field set and a time constraint (for
// field_not_granted and time-window tests); RevokedGrantID is a Gmail grant
// whose Status is "revoked".
const (
	GmailGrantID           = "grt_8c1d2e3f4a5b6c7d"
	GmailRestrictedGrantID = "grt_3b0f5dd5b444be6f"
	SlackGrantID           = "grt_c430eadbf41b380a"
	ChatGPTGrantID         = "grt_883f9823a8e1b655"
	GitHubGrantID          = "grt_b9935d49f1805aba"
	RevokedGrantID         = "grt_c836074d30d9fb3b"
)

// Client ids, one per grant.
const (
	GmailClientID           = "cli_0a1b2c3d4e5f6a7b"
	GmailRestrictedClientID = "cli_77c5d5f9c61ce63b"
	SlackClientID           = "cli_5302c44b9e273f0d"
	ChatGPTClientID         = "cli_0e1312a45e95dd9a"
	GitHubClientID          = "cli_c4f343c33cc6bc44"
	RevokedClientID         = "cli_5921bc1963cf4dff"
)

// Bearer tokens of the default seed. Other seeds derive different tokens
// (see TokenFor); a test pins these to Build(Options{}).
const (
	GmailToken           = "c3d5405ac7d6f41b56cd5c13f2f11c71b7dbb55f62f898debb0a42752a932560"
	GmailRestrictedToken = "4321c92db1b096820479b67aaeed36d026a92527e8ecf308ed027aed37979dee"
	SlackToken           = "11307a117c6bef8d9eaaf152a5f913955843a30ffd353d7c7df9a52c53d08aef"
	ChatGPTToken         = "761c270109c5ab2b4b75d1612fd3aafdf530dcf78362b96eae04d9b2d65729be"
	GitHubToken          = "c7172f1e3bb2d5121a1d1f0d3c51302a65f49a3da7d891c55709e9f36692c371"
	RevokedToken         = "030e7ee4b2554421b442f9dce2f4a8515cb1f781be5a0e3752390a953d14203a"
	OwnerToken           = "10763224fef84a819063e9487db81f13a9210061d7d8394072d4af27211955b2"
	ExpiredToken         = "f0530a5813938844b1d8960a96fed4199ea690f0244099b878d55eeb8ff098e8"
)

// SharedRecordID is a Gmail messages (and message_bodies) id present in
// BOTH Gmail connections — one email delivered to both mailboxes — so an
// unscoped single-record read under GmailGrantID is ambiguous (409
// ambiguous_connection) until connection_id is given.
const SharedRecordID = "0ef65a205413a06f"

// LongBodyMessageID is the Gmail message (and message_bodies record) in the
// WORK connection whose body_text is exactly LongBodyLength characters
// (ASCII, so bytes too). It exists for the content ladder: field windows,
// truncation and search snippets deep inside a long field.
const LongBodyMessageID = "339057c9bdc51272"

// LongBodyLength is the exact length of LongBodyMessageID's body_text.
const LongBodyLength = 50000

// LongBodyTerm occurs exactly once in the whole dataset: in
// LongBodyMessageID's body_text at character offset LongBodyTermOffset.
// Searching for it must therefore return that one record, with a snippet
// from the middle of the body.
const LongBodyTerm = "lanternfish"

// LongBodyTermOffset is the 0-based character offset of LongBodyTerm in the
// long body.
const LongBodyTermOffset = 31000

// LongBodyIDs lists the other Gmail message ids whose body_text exceeds
// 20,000 characters (connection in the comment). Unlike the 50,000-char
// body their exact length is unspecified.
var LongBodyIDs = []string{
	"a41c7e9b20d5f836", // work
	"b5d28f0c6e3a9147", // work
	"c7e39a1d4f6b0258", // work
	"d2f4b6a8c0e1a369", // personal
	"e8a1c3f5b7d9e470", // personal
}
