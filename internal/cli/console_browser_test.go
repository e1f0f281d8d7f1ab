package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/internal/browsertest"
)

var (
	browser = browsertest.Start
	do      = browsertest.Do
	shot    = browsertest.Shot
)

// text waits until the page's text contains want, across page loads.
func text(want string) chromedp.Action[chromedp.Void] { return browsertest.Says("", want) }

// The console in a real browser: a paused run appears live, its pending
// Edit shows as a diff and is approved (the run goes on, the file
// changes); a Bash call is denied with a message the model reads; an
// edited input is refused by a deny rule; a cross-origin form and a
// request without the token are refused; the pages read without
// JavaScript.
func TestConsoleBrowser(t *testing.T) {
	if os.Getenv("TOOLSCOPE_CONSOLE_BROWSER_CHILD") != "1" {
		// Chromium is driven from a test process of its own: with it in
		// the process of the other tests, one of them (TestReadmeShellBlocks)
		// twice found a file descriptor closed under it; the cause is not
		// known, and the other tests must not pay for it.
		if _, err := exec.LookPath("chromium"); err != nil {
			browser(t) // skips, or fails in CI
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestConsoleBrowser$", "-test.count=1", "-test.v", "-test.timeout=5m")
		cmd.Env = append(os.Environ(), "TOOLSCOPE_CONSOLE_BROWSER_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestConsoleBrowser")) {
			t.Fatalf("the browser test (in a process of its own): %v\n%s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "screenshots in") {
				t.Log(strings.TrimSpace(l))
			}
		}
		return
	}
	ctx := browser(t)
	r := newConsoleRig(t, `{"text":"Reading the notes.","tool_calls":[{"id":"c1","name":"Read","arguments":{"file_path":"$WORK/proj/notes.txt"}}]}
{"text":"","tool_calls":[{"id":"c2","name":"Edit","arguments":{"file_path":"$WORK/proj/notes.txt","old_string":"two","new_string":"TWO"}}]}
{"text":"Edited the notes."}
{"text":"","tool_calls":[{"id":"b1","name":"Bash","arguments":{"command":"ls && rm -rf $WORK/proj/build"}}]}
{"text":"Understood, I leave the build alone."}
{"text":"","tool_calls":[{"id":"w1","name":"Write","arguments":{"file_path":"$WORK/proj/notes2.txt","content":"more\n"}}]}
{"text":"Done."}
`, `{"permissions": {"deny": ["Write(secret.txt)"]}}`)
	os.WriteFile(filepath.Join(r.proj, "notes.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	os.MkdirAll(filepath.Join(r.proj, "build"), 0o755)
	shots := t.TempDir()

	// The list, open before the run pauses: the run appears by itself.
	if err := do(ctx, chromedp.Navigate(r.base+"/?token="+r.token), text("No runs yet")); err != nil {
		t.Fatal(err)
	}
	r.pause(t, "edit.json", "Tidy the notes")
	if err := do(ctx, chromedp.WaitVisible(chromedp.CSS(`tr[data-run="edit.json"]`)), text("waiting")); err != nil {
		t.Fatalf("the paused run did not appear live: %v", err)
	}
	shot(t, ctx, shots, "list")

	// The run page: the Edit as a diff against the file on disk.
	if err := do(ctx, chromedp.Click(chromedp.CSS(`a[href="/runs/local/edit.json"]`)), chromedp.WaitVisible(chromedp.CSS(`article[data-call="c2"] pre.diff`))); err != nil {
		t.Fatal(err)
	}
	diff, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`article[data-call="c2"] pre.diff`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "-two") || !strings.Contains(diff, "+TWO") || !strings.Contains(diff, "@@ -1,3 +1,3 @@") {
		t.Errorf("the diff:\n%s", diff)
	}
	shot(t, ctx, shots, "run-diff")
	if err := do(ctx, chromedp.Click(chromedp.CSS(`article[data-call="c2"] button.approve`)), text("Edited the notes."), text("exit code 0")); err != nil {
		t.Fatalf("after approving: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(r.proj, "notes.txt")); string(b) != "one\nTWO\nthree\n" {
		t.Errorf("notes.txt = %q", b)
	}
	shot(t, ctx, shots, "run-approved")

	// A Bash call denied with a message: the transcript shows what the
	// model read, and the model's answer.
	r.pause(t, "bash.json", "Clean up")
	if err := do(ctx, chromedp.Navigate(r.base+"/runs/local/bash.json"), chromedp.WaitVisible(chromedp.CSS(`article[data-call="b1"] table.parts`)),
		chromedp.SendKeys(chromedp.CSS(`article[data-call="b1"] input[name=message]`), "keep the build"),
		chromedp.Click(chromedp.CSS(`article[data-call="b1"] button.deny`)),
		text("The user says: keep the build"), text("Understood, I leave the build alone.")); err != nil {
		t.Fatalf("denying: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.proj, "build")); err != nil {
		t.Error("the denied command ran")
	}
	shot(t, ctx, shots, "run-denied")

	// A form on another origin posting to the console: refused, though
	// the browser sends the cookie (same site, other port).
	file := r.pause(t, "write.json", "Write more")
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/go.js" {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `document.getElementById("f").submit();`)
			return
		}
		fmt.Fprintf(w, `<!doctype html><form id="f" method="post" action="%s/runs/local/write.json/answer"><input name="call" value="w1"><input name="action" value="approve"></form><script src="/go.js"></script>`, r.base)
	}))
	defer evil.Close()
	if err := do(ctx, chromedp.Navigate(evil.URL), text("another origin")); err != nil {
		t.Fatalf("the cross-origin answer: %v", err)
	}
	shot(t, ctx, shots, "cross-origin-refused")
	if ar, err := host.LoadRun(file); err != nil || len(ar.Waiting) != 1 {
		t.Fatalf("the cross-origin answer reached the run: %v", err)
	}
	// Without the token (another host name: no cookie), nothing is shown.
	localhost := strings.Replace(r.base, "127.0.0.1", "localhost", 1)
	if err := do(ctx, chromedp.Navigate(localhost+"/runs/local/write.json"), text("needs its access token")); err != nil {
		t.Fatalf("without the token: %v", err)
	}

	// An edited input that a deny rule refuses.
	edited := `{"file_path":"` + r.proj + `/secret.txt","content":"edited\n"}`
	if err := do(ctx, chromedp.Navigate(r.base+"/runs/local/write.json"),
		chromedp.Click(chromedp.CSS(`article[data-call="w1"] details.edit summary`)),
		chromedp.SetValue(chromedp.CSS(`article[data-call="w1"] textarea[name=input]`), edited),
		chromedp.Click(chromedp.CSS(`article[data-call="w1"] button.edit`)),
		text("exit code 0"), text("Write(secret.txt)")); err != nil {
		t.Fatalf("approving an edited input: %v", err)
	}
	for _, f := range []string{"secret.txt", "notes2.txt"} {
		if _, err := os.Stat(filepath.Join(r.proj, f)); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	shot(t, ctx, shots, "run-edited-refused")

	// A serve --console session: it appears live with its calls; a call
	// that needs approval waits for the page's answer, and the client
	// gets the result of the approved call.
	if err := do(ctx, chromedp.Navigate(r.base+"/"), text("write.json")); err != nil {
		t.Fatal(err)
	}
	sess := serveStdio(t, nil, "--cwd", r.proj, "--config", filepath.Join(r.work, "cfg.json"), "--console", r.runs)
	if _, isErr := callTool(t, sess, "Glob", map[string]any{"pattern": "*.txt"}); isErr {
		t.Fatal("Glob failed")
	}
	if err := do(ctx, chromedp.WaitVisible(chromedp.CSS(`tr.status-live`))); err != nil {
		t.Fatalf("the serve session did not appear live: %v", err)
	}
	served := make(chan string, 1)
	go func() {
		res, err := sess.CallTool(context.Background(), &sdk.CallToolParams{Name: "Write", Arguments: map[string]any{"file_path": filepath.Join(r.proj, "served.txt"), "content": "from the page\n"}})
		switch {
		case err != nil:
			served <- "error: " + err.Error()
		case res.IsError:
			served <- fmt.Sprintf("error: %v", res.Content)
		default:
			served <- "ok"
		}
	}()
	if err := do(ctx, chromedp.WaitVisible(chromedp.CSS(`tr.status-waiting a[href^="/runs/live/"]`)),
		chromedp.Click(chromedp.CSS(`tr.status-waiting a[href^="/runs/live/"]`)),
		chromedp.WaitVisible(chromedp.CSS(`article[data-call="c2"] pre.diff`)), text("+from the page")); err != nil {
		t.Fatalf("the session's waiting Write: %v", err)
	}
	shot(t, ctx, shots, "serve-session")
	if err := do(ctx, chromedp.Click(chromedp.CSS(`article[data-call="c2"] button.approve`))); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-served:
		if strings.HasPrefix(got, "error: ") {
			t.Fatalf("the approved Write: %s", got)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the approved Write did not return")
	}
	if b, _ := os.ReadFile(filepath.Join(r.proj, "served.txt")); string(b) != "from the page\n" {
		t.Errorf("served.txt = %q", b)
	}

	// The page follows the session: the call's result comes in.
	if err := do(ctx, text("has been created successfully")); err != nil {
		t.Fatalf("the session's page after the answer: %v", err)
	}

	// Without JavaScript the pages read the same.
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	if err := do(ctx, chromedp.Navigate(r.base+"/runs/local/edit.json"),
		text("Edited the notes."), text("Successfully replaced 1 occurrence"), chromedp.Navigate(r.base+"/"), chromedp.WaitVisible(chromedp.CSS(`tr[data-run="write.json"]`))); err != nil {
		t.Fatalf("without JavaScript: %v", err)
	}
	ents, _ := os.ReadDir(shots)
	t.Logf("%d screenshots in %s", len(ents), shots)
}
