package demodata

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pdpp/pdpp-mcp/internal/golden"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
)

// summary renders the identities, per-stream counts and a digest of every
// record, so any change to the generated data shows up in review.
func summary(ds *rstest.Dataset) string {
	var sb strings.Builder
	sb.WriteString("connectors\n")
	for _, c := range ds.Connectors {
		names := make([]string, len(c.Streams))
		for i, s := range c.Streams {
			names[i] = s.Name
		}
		fmt.Fprintf(&sb, "  %s %s %q streams=%d\n", c.Key, c.SourceID, c.DisplayName, len(c.Streams))
	}
	sb.WriteString("connections\n")
	for _, c := range ds.Connections {
		fmt.Fprintf(&sb, "  %s %s %q\n", c.ID, c.ConnectorKey, c.DisplayName)
	}
	sb.WriteString("grants\n")
	for _, g := range ds.Grants {
		fmt.Fprintf(&sb, "  %s client=%s connector=%s status=%s token=%s…\n", g.ID, g.ClientID, g.ConnectorKey, g.Status, g.Token[:8])
		for _, s := range g.Streams {
			f := "all"
			if s.Fields != nil {
				f = strings.Join(s.Fields, ",")
			}
			fmt.Fprintf(&sb, "    %s conns=%s fields=%s", s.Name, strings.Join(s.ConnectionIDs, ","), f)
			if tc := s.TimeConstraint; tc != nil {
				fmt.Fprintf(&sb, " time=%s[%s,%s)", tc.Field, tc.Since, tc.Until)
			}
			sb.WriteString("\n")
		}
	}
	fmt.Fprintf(&sb, "owner_tokens=%d expired_tokens=%d\n", len(ds.OwnerTokens), len(ds.ExpiredTokens))

	counts := map[string]int{}
	var keys []string
	h := sha256.New()
	for _, r := range ds.Records {
		k := r.ConnectionID + " " + r.Stream
		if counts[k] == 0 {
			keys = append(keys, k)
		}
		counts[k]++
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%t\n", r.ConnectionID, r.Stream, r.ID, r.Data, r.EmittedAt.Format(time.RFC3339Nano), r.Deleted)
	}
	sort.Strings(keys)
	fmt.Fprintf(&sb, "records total=%d\n", len(ds.Records))
	for _, k := range keys {
		fmt.Fprintf(&sb, "  %s %d\n", k, counts[k])
	}
	fmt.Fprintf(&sb, "digest sha256:%x\n", h.Sum(nil))
	return sb.String()
}

func TestSummaryGolden(t *testing.T) {
	t.Parallel()
	got := summary(mustDefault(t))
	path := filepath.Join("testdata", "summary.golden")
	want := golden.Read(t, path, []byte(got))
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("summary mismatch (-want +got):\n%s", diff)
	}
}

func TestBuildDeterministic(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, opts := range []Options{{}, {Seed: 7}, {Records: 2500, Now: now}, {Records: 1200, Seed: -3}} {
		t.Run(fmt.Sprintf("%+v", opts), func(t *testing.T) {
			t.Parallel()
			a, err := Build(opts)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Build(opts)
			if err != nil {
				t.Fatal(err)
			}
			// The summary digests every record byte; cmp covers the rest.
			// (cmp over megabytes of json.RawMessage would take minutes.)
			if diff := cmp.Diff(summary(a), summary(b)); diff != "" {
				t.Errorf("two builds differ (-first +second):\n%s", diff)
			}
			if diff := cmp.Diff(a.Grants, b.Grants); diff != "" {
				t.Errorf("grants differ (-first +second):\n%s", diff)
			}
			if diff := cmp.Diff(a.Connections, b.Connections); diff != "" {
				t.Errorf("connections differ (-first +second):\n%s", diff)
			}
		})
	}
}

func TestSeedChangesContentNotIdentities(t *testing.T) {
	t.Parallel()
	a, b := mustDefault(t), mustBuild(t, Options{Seed: 99})
	if summary(a) == summary(b) {
		t.Fatal("different seeds produced the same dataset")
	}
	if a.Grants[0].Token == b.Grants[0].Token {
		t.Error("different seeds produced the same token")
	}
	if diff := cmp.Diff(a.Connections, b.Connections); diff != "" {
		t.Errorf("connections depend on the seed (-seed0 +seed99):\n%s", diff)
	}
	if _, ok := recordIndex(b)[[3]string{GmailWorkConnectionID, "message_bodies", LongBodyMessageID}]; !ok {
		t.Error("seed 99 lacks LongBodyMessageID")
	}
}

func mustBuild(t testing.TB, opts Options) *rstest.Dataset {
	t.Helper()
	ds, err := Build(opts)
	if err != nil {
		t.Fatalf("Build(%+v): %v", opts, err)
	}
	return ds
}

func recordIndex(ds *rstest.Dataset) map[[3]string]rstest.Record {
	m := make(map[[3]string]rstest.Record, len(ds.Records))
	for _, r := range ds.Records {
		m[[3]string{r.ConnectionID, r.Stream, r.ID}] = r
	}
	return m
}

func TestWellKnownTokens(t *testing.T) {
	t.Parallel()
	ds := mustDefault(t)
	got := map[string]string{"owner": ds.OwnerTokens[0], "expired": ds.ExpiredTokens[0]}
	for _, g := range ds.Grants {
		got[g.ID] = g.Token
	}
	want := map[string]string{
		"owner": OwnerToken, "expired": ExpiredToken,
		GmailGrantID: GmailToken, GmailRestrictedGrantID: GmailRestrictedToken, SlackGrantID: SlackToken,
		ChatGPTGrantID: ChatGPTToken, GitHubGrantID: GitHubToken, RevokedGrantID: RevokedToken,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
	seen := map[string]bool{}
	for _, tok := range got {
		if len(tok) != 64 || strings.Trim(tok, "0123456789abcdef") != "" || seen[tok] {
			t.Errorf("token %q is not a distinct 64-hex string", tok)
		}
		seen[tok] = true
	}
	if len(ds.OwnerTokens) != 1 || len(ds.ExpiredTokens) != 1 {
		t.Errorf("owner/expired tokens = %d/%d, want 1/1", len(ds.OwnerTokens), len(ds.ExpiredTokens))
	}
}

func TestScaling(t *testing.T) {
	t.Parallel()
	for _, n := range []int{DefaultRecords, 3_000, 10_000, 40_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			opts := Options{Records: n}
			if n == DefaultRecords {
				opts = Options{}
			}
			got := len(mustBuild(t, opts).Records)
			if lo, hi := n*9/10, n*11/10; got < lo || got > hi {
				t.Errorf("Records=%d built %d records, want within ±10%% [%d, %d]", n, got, lo, hi)
			}
		})
	}
}

func TestBuildRejectsBadOptions(t *testing.T) {
	t.Parallel()
	for _, n := range []int{-1, maxRecords + 1} {
		if _, err := Build(Options{Records: n}); err == nil {
			t.Errorf("Build(Records: %d) succeeded, want error", n)
		}
	}
}

// TestTimesAnchoredToNow checks that no record lies in the future of
// Options.Now and that event streams span roughly the year before it.
func TestTimesAnchoredToNow(t *testing.T) {
	t.Parallel()
	now := time.Date(2031, 6, 1, 12, 0, 0, 0, time.UTC)
	ds := mustBuild(t, Options{Records: 3000, Now: now})
	oldest := now
	for _, r := range ds.Records {
		if r.EmittedAt.After(now) {
			t.Fatalf("%s/%s/%s emitted at %v, after Now %v", r.ConnectionID, r.Stream, r.ID, r.EmittedAt, now)
		}
		if r.Stream == "messages" && r.EmittedAt.Before(oldest) {
			oldest = r.EmittedAt
		}
	}
	if span := now.Sub(oldest); span < 300*24*time.Hour || span > 380*24*time.Hour {
		t.Errorf("messages span %v before Now, want about a year", span)
	}
	if !bytes.Contains([]byte(summary(ds)), []byte("grt_")) {
		t.Error("summary lost grants")
	}
}

// TestGmailDateIsISO: a Gmail message's date is ISO 8601, the instant of
// its received_at, as the reference serves the seeded Gmail data the mock
// is measured against (it was RFC 2822 here before).
func TestGmailDateIsISO(t *testing.T) {
	t.Parallel()
	ds := mustDefault(t)
	n := 0
	for _, r := range ds.Records {
		if r.Stream != "messages" || (r.ConnectionID != GmailWorkConnectionID && r.ConnectionID != GmailPersonalConnectionID) {
			continue
		}
		var m struct {
			Date       string `json:"date"`
			ReceivedAt string `json:"received_at"`
		}
		if err := json.Unmarshal(r.Data, &m); err != nil {
			t.Fatal(err)
		}
		d, err := time.Parse(time.RFC3339, m.Date)
		at, _ := time.Parse(time.RFC3339, m.ReceivedAt)
		if err != nil || !d.Equal(at) {
			t.Fatalf("message %s: date %q is not ISO 8601 at received_at %q", r.ID, m.Date, m.ReceivedAt)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no Gmail messages")
	}
}
