package demodata

import (
	"fmt"
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
)

// Options selects the size, randomness and clock of a dataset. The zero
// value builds the default demo dataset.
type Options struct {
	// Records is the approximate total record count across all streams;
	// 0 means DefaultRecords. Fixed-size streams (labels, channels, users…)
	// grow slowly with it; the rest is split proportionally, messages-heavy.
	Records int
	// Seed varies content and tokens; 0 means DefaultSeed. Ids of the
	// well-known records, grants and connections do not depend on it.
	Seed int64
	// Now anchors all timestamps (records span the ~12 months before it);
	// the zero value means DemoNow. The wall clock is never read.
	Now time.Time
}

// maxRecords bounds Options.Records so a typo cannot exhaust memory.
const maxRecords = 20_000_000

// Build generates the dataset for opts. The same Options always produce a
// byte-identical Dataset.
func Build(opts Options) (*rstest.Dataset, error) {
	if opts.Records < 0 || opts.Records > maxRecords {
		return nil, fmt.Errorf("demodata: Records %d out of range [0, %d]", opts.Records, maxRecords)
	}
	if opts.Records == 0 {
		opts.Records = DefaultRecords
	}
	if opts.Seed == 0 {
		opts.Seed = DefaultSeed
	}
	if opts.Now.IsZero() {
		opts.Now, _ = time.Parse(time.RFC3339, DemoNow)
	}
	opts.Now = opts.Now.UTC().Truncate(time.Second)

	ds := &rstest.Dataset{}
	for _, key := range []string{"gmail", "slack", "chatgpt", "github"} {
		c, err := loadConnector(key)
		if err != nil {
			return nil, err
		}
		ds.Connectors = append(ds.Connectors, c)
	}
	ds.Connections = []rstest.Connection{
		{ID: GmailPersonalConnectionID, ConnectorKey: "gmail", DisplayName: GmailPersonalDisplayName},
		{ID: GmailWorkConnectionID, ConnectorKey: "gmail", DisplayName: GmailWorkDisplayName},
		{ID: SlackConnectionID, ConnectorKey: "slack", DisplayName: SlackDisplayName},
		{ID: ChatGPTConnectionID, ConnectorKey: "chatgpt", DisplayName: ChatGPTDisplayName},
		{ID: GitHubConnectionID, ConnectorKey: "github", DisplayName: GitHubDisplayName},
	}

	p := planFor(opts.Records)
	b := newBuilder(opts)
	genGmail(b, gmailPersonal, p.gmailPersonal)
	genGmail(b, gmailWork, p.gmailWork)
	genSlack(b, p)
	genChatGPT(b, p)
	genGitHub(b, p)
	ds.Records = b.records()

	ds.Grants = grants(opts)
	ds.OwnerTokens = []string{TokenFor(opts.Seed, "owner")}
	ds.ExpiredTokens = []string{TokenFor(opts.Seed, "expired")}
	return ds, nil
}

// plan is how many primary records each generator produces; dependent
// streams (bodies, threads, attachments, reactions) follow from them.
type plan struct {
	gmailPersonal, gmailWork int // messages per Gmail connection
	slackMessages            int
	slackChannels            int
	slackUsers               int
	chatMessages             int // approximate; conversations are whole
	chatMemories             int
	ghRepos, ghIssues, ghPRs int
}

// planFor splits a record budget. The per-message multipliers are the
// measured averages of the generators (e.g. a Gmail message brings a body,
// ~0.45 threads and ~0.25 attachments), so the total lands near Records.
func planFor(records int) plan {
	root := isqrt(records)
	p := plan{
		slackChannels: min(6+root/16, 300),
		slackUsers:    min(10+root/8, 600),
		chatMemories:  min(6+root/64, 60),
		ghRepos:       min(4+root/40, 200),
	}
	fixed := 2*labelsPerMailbox + 1 + p.slackChannels + p.slackUsers + p.chatMemories + 1 + p.ghRepos
	rem := max(records-fixed, 0)
	p.gmailPersonal = max(int(float64(rem)*0.27/gmailPerMessage), 12)
	p.gmailWork = max(int(float64(rem)*0.33/gmailPerMessage), 12)
	p.slackMessages = max(int(float64(rem)*0.22/slackPerMessage), 20)
	p.chatMessages = max(int(float64(rem)*0.15/chatPerMessage), 12)
	p.ghIssues = max(rem*2/100, 3)
	p.ghPRs = max(rem/100, 2)
	return p
}

// Average records generated per primary message (see planFor).
const (
	gmailPerMessage = 2.70
	slackPerMessage = 1.25
	chatPerMessage  = 1.18
)

func isqrt(n int) int {
	r := 0
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}
