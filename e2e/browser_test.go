package e2e

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// browserChromium is Debian's Chromium; .ci/setup-browser installs it.
const browserChromium = "/usr/bin/chromium"

// browserScreenshot is the artifact CI keeps (e2e/artifacts is gitignored).
var browserScreenshot = filepath.Join("artifacts", "connect.png")

// TestConnectPageInChromium renders /connect of a real hosted adapter in
// headless Chromium: what a person sees and copies must be exactly the
// served MCP URL and the exact host commands, with the page's inline
// script and style admitted by its own Content-Security-Policy.
//
// It takes about 3.5 s (measured alone): most of it is starting a real
// headless Chromium, which is the point.
func TestConnectPageInChromium(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	rs := testenv.StartRS(t, testenv.Options{})
	origin := browserAdapter(t, rs.URL)
	mcpURL := origin + "/mcp"

	ctx := browserContext(t, false)
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: origin,
		}); err != nil {
			t.Fatalf("grant %s: %v", name, err)
		}
	}
	// The copy buttons start hidden and only the page's script reveals
	// them, so a visible button proves the CSP admitted the script.
	browserDo(t, ctx, chromedp.Navigate(origin+"/connect"), chromedp.WaitVisible(chromedp.ID("copy-url")))

	got := map[string]string{
		"title":         browserRun(t, ctx, chromedp.Title()),
		"h1":            browserRun(t, ctx, chromedp.Text(chromedp.CSS("h1"))),
		"url input":     browserRun(t, ctx, chromedp.Value(chromedp.ID("mcp-url"))),
		"url label":     browserRun(t, ctx, chromedp.Evaluate[string](`document.getElementById("mcp-url").labels[0].textContent`)),
		"style":         browserRun(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector(".primary")).borderTopColor`)),
		"export":        browserRun(t, ctx, chromedp.Text(chromedp.ID("cmd-export"))),
		"claude code":   browserRun(t, ctx, chromedp.Text(chromedp.ID("cmd-claude-code"))),
		"codex":         browserRun(t, ctx, chromedp.Text(chromedp.ID("cmd-codex"))),
		"claude bearer": browserRun(t, ctx, chromedp.Text(chromedp.ID("cmd-claude-code-bearer"))),
		"codex bearer":  browserRun(t, ctx, chromedp.Text(chromedp.ID("cmd-codex-bearer"))),
		"generic":       browserRun(t, ctx, chromedp.Text(chromedp.ID("cmd-generic-header"))),
		"stdio":         browserRun(t, ctx, chromedp.Text(chromedp.ID("cmd-stdio-connect"))),
		"stdio claude":  browserRun(t, ctx, chromedp.Text(chromedp.ID("cmd-stdio-claude-code"))),
		"stdio codex":   browserRun(t, ctx, chromedp.Text(chromedp.ID("cmd-stdio-codex"))),
		"stdio config":  browserRun(t, ctx, chromedp.Text(chromedp.ID("cmd-stdio-config"))),
		"cli entry":     browserRun(t, ctx, chromedp.Text(chromedp.ID("entry-cli"))),
		"llms link":     browserRun(t, ctx, chromedp.Evaluate[string](`document.getElementById("entry-llms").href`)),
	}
	want := map[string]string{
		"title":         "Connect an AI app",
		"h1":            "Connect an AI app",
		"url input":     mcpURL,
		"url label":     "MCP server URL",
		"style":         "rgb(11, 87, 208)", // the stylesheet applied under the CSP
		"export":        `export PDPP_BEARER="<your client token>"`,
		"claude code":   `claude mcp add --transport http pdpp ` + mcpURL,
		"codex":         `codex mcp add pdpp --url ` + mcpURL,
		"claude bearer": `claude mcp add --transport http pdpp ` + mcpURL + ` --header "Authorization: Bearer $PDPP_BEARER"`,
		"codex bearer":  `codex mcp add pdpp --url ` + mcpURL + ` --bearer-token-env-var PDPP_BEARER`,
		"generic":       `Authorization: Bearer <your client token>`,
		"stdio":         `pdpp-mcp connect ` + rs.URL + ` --cache-root "$HOME/.pdpp"`,
		"stdio claude":  `claude mcp add pdpp-stdio -- "$(command -v pdpp-mcp)" --provider-url ` + rs.URL + ` --cache-root "$HOME/.pdpp"`,
		"stdio codex":   `codex mcp add pdpp-stdio -- "$(command -v pdpp-mcp)" --provider-url ` + rs.URL + ` --cache-root "$HOME/.pdpp"`,
		"stdio config":  `{"mcpServers":{"pdpp-stdio":{"command":"/ABSOLUTE/PATH/TO/pdpp-mcp","args":["--provider-url","` + rs.URL + `","--cache-root","/ABSOLUTE/PATH/TO/HOME/.pdpp"]}}}`,
		"cli entry":     `pdpp-mcp connect ` + rs.URL + ` --cache-root "$HOME/.pdpp"`,
		"llms link":     origin + "/llms.txt",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("/connect as rendered (-want +got):\n%s", diff)
	}

	// Every copy button on the page puts exactly its payload on the
	// clipboard, and every command box has one.
	payload := map[string]string{
		"mcp-url": mcpURL, "cmd-export": want["export"], "cmd-claude-code": want["claude code"], "cmd-codex": want["codex"],
		"cmd-claude-code-bearer": want["claude bearer"], "cmd-codex-bearer": want["codex bearer"],
		"cmd-generic-header": want["generic"], "cmd-stdio-connect": want["stdio"], "cmd-stdio-claude-code": want["stdio claude"],
		"cmd-stdio-codex": want["stdio codex"], "cmd-stdio-config": want["stdio config"],
	}
	targets := browserRun(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("button[data-copy]"), b => b.getAttribute("data-copy"))`))
	boxes := browserRun(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("pre > code"), c => c.id)`))
	if len(targets) != len(payload) {
		t.Errorf("copy buttons %q, want one for each of %d payloads", targets, len(payload))
	}
	for _, id := range boxes {
		if !slices.Contains(targets, id) {
			t.Errorf("command box %s has no copy button", id)
		}
	}
	type copyCase struct{ button, want string }
	var cases []copyCase
	for _, id := range targets {
		w, ok := payload[id]
		if !ok {
			t.Errorf("copy button for %s: no expected payload in this test", id)
			continue
		}
		cases = append(cases, copyCase{`button[data-copy="` + id + `"]`, w})
	}
	for _, tc := range cases {
		browserDo(t, ctx,
			chromedp.Evaluate[chromedp.Void](`document.getElementById("copy-status").textContent = ""`),
			chromedp.Click(chromedp.CSS(tc.button)),
			chromedp.Poll[chromedp.Void](`document.getElementById("copy-status").textContent === "Copied to the clipboard."`,
				chromedp.WithPollingTimeout(10*time.Second)),
		)
		clip := browserRun(t, ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
		if clip != tc.want {
			t.Errorf("after clicking %s the clipboard holds %q, want %q", tc.button, clip, tc.want)
		}
	}

	png := browserRun(t, ctx, chromedp.FullScreenshot(100))
	if err := os.MkdirAll(filepath.Dir(browserScreenshot), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(browserScreenshot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", browserScreenshot, len(png))
}

// TestConnectPageWithoutJavaScript: reading needs no script; the copy
// buttons, which would do nothing, stay hidden.
func TestConnectPageWithoutJavaScript(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	rs := testenv.StartRS(t, testenv.Options{})
	origin := browserAdapter(t, rs.URL)
	ctx := browserContext(t, true)
	browserDo(t, ctx, chromedp.Navigate(origin+"/connect"), chromedp.WaitVisible(chromedp.ID("mcp-url")))
	got := map[string]string{
		"url input":   browserRun(t, ctx, chromedp.Value(chromedp.ID("mcp-url"))),
		"codex":       browserRun(t, ctx, chromedp.Text(chromedp.ID("cmd-codex"))),
		"copy button": browserRun(t, ctx, chromedp.Evaluate[string](`document.getElementById("copy-url").checkVisibility() ? "visible" : "hidden"`)),
	}
	want := map[string]string{
		"url input":   origin + "/mcp",
		"codex":       `codex mcp add pdpp --url ` + origin + `/mcp`,
		"copy button": "hidden",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("/connect without JavaScript (-want +got):\n%s", diff)
	}
}

// requireChromium skips the test with how to install Chromium when it is
// missing — or fails it under CI=true, where .ci/setup-browser has run, so
// CI can never pass by skipping the browser.
func requireChromium(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(browserChromium); err != nil {
		msg := "headless Chromium is not installed at " + browserChromium + "; run .ci/setup-browser (Debian package chromium): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " — CI=true, so this is a failure, not a skip")
		}
		t.Skip(msg)
	}
}

// browserAdapter serves the hosted adapter for rsURL on loopback and
// returns its origin.
func browserAdapter(t *testing.T, rsURL string) string {
	t.Helper()
	rc, err := rsclient.New(rsclient.Config{BaseURL: rsURL})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(hosted.New(a, hosted.Options{}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// browserContext starts a fresh headless Chromium (own profile, no network
// side traffic) that dies with the test; noJS disables page scripts.
func browserContext(t *testing.T, noJS bool) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browserChromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1000, 900),
	}
	// Cancelling the allocator kills the browser process it started.
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start %s: %v", browserChromium, err)
	}
	if noJS {
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
	}
	// Bound the whole test's browser work; the first Run above had no
	// timeout because that context owns the browser's lifetime.
	bounded, cancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	return bounded
}

func browserDo(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func browserRun[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
