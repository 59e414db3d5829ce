package adapter

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/page"
)

// countOutput is a small structured result.
type countOutput struct {
	Count int `json:"count(messages)"`
}

func (countOutput) toolOutput() {}

// countView is a small structured result.
var countView = countOutput{Count: 3}

// fastAndMCPGo encodes res as a JSON-RPC answer both ways: through the
// fast path (a placeholder encoded by mcp-go's types, the result members
// spliced in) and as mcp-go encodes res itself.
func fastAndMCPGo(t *testing.T, res *mcp.CallToolResult) (fast, slow []byte) {
	t.Helper()
	var sp ResultSplicer
	placeholder := sp.stash(res)
	if placeholder == res {
		t.Fatalf("result not taken by the fast path: %+v", res)
	}
	env, err := json.Marshal(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(7), placeholder))
	if err != nil {
		t.Fatal(err)
	}
	fast = sp.Join(env)
	if slow, err = json.Marshal(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(7), res)); err != nil {
		t.Fatal(err)
	}
	if sp.pending() {
		t.Fatal("a result stayed held after its answer was written")
	}
	return fast, slow
}

func checkFastPath(t *testing.T, what string, res *mcp.CallToolResult) {
	t.Helper()
	fast, slow := fastAndMCPGo(t, res)
	if diff := JSONValueDiff(slow, fast); diff != "" {
		t.Fatalf("%s: the fast path's answer differs from mcp-go's (-mcp-go +fast):\n%s", what, diff)
	}
}

// FuzzFastPathPages: over random record and search pages (the same
// generators as the budget properties: long values, quotes, newlines,
// multi-byte runes, <mark> tags, cut values, resource links) and their
// error results, the fast path's answer is the value mcp-go encodes.
func FuzzFastPathPages(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3, 2026, 1 << 40} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 26))
		checkFastPath(t, "records page", pageResult(page.Records(genRecordsRead(rng))))
		checkFastPath(t, "search page", pageResult(page.Search(genSearchRead(rng))))

		checkFastPath(t, "error", errorResult(newAdapterError("invalid_arguments", genText(rng, rng.IntN(300)), field{"param", genText(rng, 10)})))
	})
}

// FuzzFastPathStrings: any text (invalid UTF-8, controls, U+2028, HTML
// characters) in the text content, a resource link and an error message
// encodes to the value mcp-go encodes.
func FuzzFastPathStrings(f *testing.F) {
	f.Add("plain", "pdpp://record/a", false)
	f.Add("s\xff\u2028<&>\x00\"\\\n\t", "pdpp://x/\u2029", true)
	f.Fuzz(func(t *testing.T, text, uri string, isError bool) {
		res := textResult(text, countView)
		res.Content = append(res.Content, mcp.NewResourceLink(uri, text, "", "text/plain"))
		res.IsError = isError
		checkFastPath(t, "text", res)
		checkFastPath(t, "error", errorResult(newAdapterError(text, uri)))
	})
}

// The equivalence check can fail: a splice that loses or alters any
// member is caught.
func TestFastPathCheckCatchesWrongEncodings(t *testing.T) {
	t.Parallel()
	res := textResult("1. <mark>a</mark> \"q\"", countView)
	res.IsError = true
	members, ok := appendResultMembers(nil, res)
	if !ok {
		t.Fatal("not encoded")
	}
	slow, _ := json.Marshal(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(7), res))
	for name, wrong := range map[string][]byte{
		"isError dropped":        bytes.Replace(members, []byte(`,"isError":true`), nil, 1),
		"text changed":           bytes.Replace(members, []byte(`<mark>a`), []byte(`<mark>b`), 1),
		"structuredContent lost": bytes.Replace(members, []byte(`"structuredContent"`), []byte(`"structured"`), 1),
		"not JSON":               members[:len(members)-1],
	} {
		var sp ResultSplicer
		placeholder := sp.stash(res)
		sp.held[0].buf = append(make([]byte, envelopeRoom), wrong...)
		env, _ := json.Marshal(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(7), placeholder))
		if JSONValueDiff(slow, sp.Join(env)) == "" {
			t.Errorf("%s: not caught", name)
		}
	}
}

// Join replaces exactly the held placeholders: a message without one is
// one segment, an unknown or malformed number stays as it is, two answers
// in one write are both spliced, and each result is spliced once.
func TestSpliceReplacesHeldPlaceholdersOnly(t *testing.T) {
	t.Parallel()
	var sp ResultSplicer
	a := sp.stash(textResult("A", countView))
	b := sp.stash(errorResult(newAdapterError("x", "B")))
	enc := func(id int, r *mcp.CallToolResult) string {
		raw, _ := json.Marshal(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), r))
		return string(raw)
	}
	plain := `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`
	if got := sp.Join([]byte(plain)); string(got) != plain {
		t.Errorf("a message without placeholder: %q", got)
	}
	unknown := strings.Replace(enc(3, a), markerPrefix+"1", markerPrefix+"99", 1)
	malformed := strings.Replace(enc(4, a), markerPrefix+"1", markerPrefix+"x1", 1)
	for _, msg := range []string{unknown, malformed} {
		if got := string(sp.Join([]byte(msg))); got != msg {
			t.Errorf("changed %s\nto %s", msg, got)
		}
	}
	both := enc(1, a) + "\n" + enc(2, b) + "\n"
	got := string(sp.Join([]byte(both)))
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 2 || strings.Contains(got, markerPrefix) {
		t.Fatalf("two answers in one write: %s", got)
	}
	var r1, r2 struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &r1); err != nil || len(r1.Result.Content) == 0 {
		t.Fatalf("%v: %s", err, lines[0])
	}
	_ = json.Unmarshal([]byte(lines[1]), &r2)
	if diff := cmp.Diff([]any{"A", false, true}, []any{r1.Result.Content[0].Text, r1.Result.IsError, r2.Result.IsError}); diff != "" {
		t.Errorf("spliced answers (-want +got):\n%s", diff)
	}
	if again := string(sp.Join([]byte(enc(1, a)))); !strings.Contains(again, markerPrefix) {
		t.Errorf("a result spliced twice: %s", again)
	}
}

// Join writes an answer around its result in place when the envelope fits
// the room the result was encoded with, and into a new buffer when it does
// not (a request id longer than the room); both are mcp-go's answer, and
// the in-place one is the held bytes themselves (no copy of the result).
func TestJoinInPlaceAndLongEnvelope(t *testing.T) {
	t.Parallel()
	res := textResult(strings.Repeat("a page line\n", 200), countView)
	for _, tc := range []struct {
		name    string
		id      mcp.RequestId
		inPlace bool
	}{
		{"numeric id", mcp.NewRequestId(7), true},
		{"id of 40 bytes", mcp.NewRequestId(strings.Repeat("x", 40)), true},
		{"id longer than the room", mcp.NewRequestId(strings.Repeat("y", envelopeRoom+1)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sp ResultSplicer
			env, err := json.Marshal(mcp.NewJSONRPCResultResponse(tc.id, sp.stash(res)))
			if err != nil {
				t.Fatal(err)
			}
			held := sp.held[0].buf
			got := sp.Join(append(env, '\n'))
			slow, _ := json.Marshal(mcp.NewJSONRPCResultResponse(tc.id, res))
			if diff := JSONValueDiff(slow, bytes.TrimSuffix(got, []byte("\n"))); diff != "" || got[len(got)-1] != '\n' {
				t.Fatalf("answer differs from mcp-go's (-mcp-go +join):\n%s", diff)
			}
			inPlace := cap(got) > 0 && &got[:cap(got)][cap(got)-1] == &held[:cap(held)][cap(held)-1]
			if inPlace != tc.inPlace {
				t.Errorf("written in place: %t, want %t", inPlace, tc.inPlace)
			}
		})
	}
}
