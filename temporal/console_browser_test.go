package temporal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolscope/toolscope/console"
	"github.com/toolscope/toolscope/internal/browsertest"
	"github.com/toolscope/toolscope/temporal/tconsole"
)

var (
	browser = browsertest.Start
	do      = browsertest.Do
	shot    = browsertest.Shot
	says    = browsertest.Says
	holds   = browsertest.Holds
)

// jsonArgs is a tool call's input as JSON.
func jsonArgs(t *testing.T, v map[string]string) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The web console in a real browser, on durable runs of the dev server:
// a run that pauses appears in the open list by itself, its waiting Edit
// shows as a diff against the file and is approved (the run goes on, the
// file changes once); a Bash call is denied with a message the model
// reads; an edited input, kept while the page updates itself, is refused
// by the run's deny rule.
func TestConsoleTemporalBrowser(t *testing.T) {
	if os.Getenv("TOOLSCOPE_CONSOLE_BROWSER_CHILD") != "1" {
		// Chromium is driven from a test process of its own, as in
		// internal/cli's TestConsoleBrowser (there, with it in the process
		// of the other tests, one of them found a file descriptor closed
		// under it). The process uses this one's dev server.
		addr := server(t) // skips without the temporal CLI, or fails in CI
		if _, err := exec.LookPath("chromium"); err != nil {
			browser(t) // skips, or fails in CI
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestConsoleTemporalBrowser$", "-test.count=1", "-test.v", "-test.timeout=5m")
		cmd.Env = append(os.Environ(), "TOOLSCOPE_CONSOLE_BROWSER_CHILD=1", "TOOLSCOPE_CONSOLE_BROWSER_TEMPORAL="+addr)
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestConsoleTemporalBrowser")) {
			t.Fatalf("the browser test (in a process of its own): %v\n%s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "screenshots in") {
				t.Log(strings.TrimSpace(l))
			}
		}
		return
	}
	if addr := os.Getenv("TOOLSCOPE_CONSOLE_BROWSER_TEMPORAL"); addr != "" {
		dev.once.Do(func() { dev.addr = addr })
	}
	ctx := browser(t)
	addr, model, dir, q := fixture(t)
	writeFile(t, dir, "notes.txt", "one\ntwo\nthree\n")
	if err := os.Mkdir(filepath.Join(dir, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	notes, notes2, secret := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "notes2.txt"), filepath.Join(dir, "secret.txt")
	model.script("Tidy the notes",
		step{text: "Reading the notes.", calls: [][3]string{{"c1", "Read", jsonArgs(t, map[string]string{"file_path": notes})}}},
		// Applied twice, this edit would add TWO twice.
		step{calls: [][3]string{{"c2", "Edit", jsonArgs(t, map[string]string{"file_path": notes, "old_string": "two\n", "new_string": "two\nTWO\n"})}}},
		step{text: "Edited the notes."})
	model.script("Clean up",
		step{calls: [][3]string{{"b1", "Bash", `{"command":"rm -rf build"}`}}},
		step{fn: func(req chatRequest) step { return step{text: "The model read: " + req.result("b1")} }})
	model.script("Write more",
		step{calls: [][3]string{{"w1", "Write", jsonArgs(t, map[string]string{"file_path": notes2, "content": "more\n"})}}},
		step{text: "Done writing."})
	w := startWorker(t, dir, q, model, nil)
	// workerLogs ends the worker and returns what it wrote (read while it
	// runs, the buffer races with its writer).
	workerLogs := func() string { w.kill(); return w.logs.String() }
	// start starts a run and returns when it waits for approval.
	start := func(id, prompt string) {
		t.Helper()
		out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model",
			"--no-claude-settings", "--deny", "Write(secret.txt)", "--id", id, prompt)
		if code != 3 {
			t.Fatalf("run %s: exit %d, want 3 (waiting)\n%s%s\nworker: %s", id, code, out, errOut, workerLogs())
		}
	}

	c := dial(t)
	srv, err := console.New(&console.Options{Sources: []console.Source{tconsole.New(c, "default")}, Tokens: map[string]string{"default": consoleToken}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	// The console ends its event streams first: the server waits for them.
	defer func() { srv.Close(); hs.Close() }()
	shots := t.TempDir()
	editID, bashID, writeID, otherID := q+"-edit", q+"-bash", q+"-write", q+"-other"
	row := fmt.Sprintf(`tr[data-run=%q]`, tconsole.ID(editID))

	// The list, open before the run starts: the run appears by itself,
	// waiting, in the same page (what the page held before is still there).
	if err := do(ctx, chromedp.Navigate(hs.URL+"/?token="+consoleToken), says("h1", "Runs")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("window.beforeTheRun = true")); err != nil {
		t.Fatal(err)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", row))); err != nil || n != 0 {
		t.Fatalf("the run is listed before it starts: %d %v", n, err)
	}
	start(editID, "Tidy the notes")
	if err := do(ctx, chromedp.WaitVisible(chromedp.CSS(row+".status-waiting"))); err != nil {
		t.Fatalf("the paused run did not appear live: %v", err)
	}
	if same, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("window.beforeTheRun === true")); err != nil || !same {
		t.Fatalf("the list was loaded again, not updated in place: %v", err)
	}
	shot(t, ctx, shots, "list")

	// The run page: the Edit as a diff against the file on disk; approved,
	// the run goes on to its end and the file changes once.
	c2 := `article[data-call="c2"]`
	if err := do(ctx, chromedp.Click(chromedp.CSS(row+" a")), says("dl.meta", dir), chromedp.WaitVisible(chromedp.CSS(c2+" pre.diff"))); err != nil {
		t.Fatal(err)
	}
	diff, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(c2+" pre.diff")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "@@ -1,3 +1,4 @@") || !strings.Contains(diff, " two\n+TWO\n three") {
		t.Errorf("the diff:\n%s", diff)
	}
	shot(t, ctx, shots, "run-diff")
	if err := do(ctx, chromedp.Click(chromedp.CSS(c2+" button.approve")),
		says("#run-status", "finished"), says(c2, "Successfully"), says("", "Edited the notes.")); err != nil {
		t.Fatalf("after approving: %v\nworker: %s", err, workerLogs())
	}
	if got := readFile(t, dir, "notes.txt"); got != "one\ntwo\nTWO\nthree\n" {
		t.Errorf("notes.txt = %q, want the edit made once", got)
	}
	shot(t, ctx, shots, "run-approved")

	// A Bash call denied with a message from the page: the transcript shows
	// what the model read, and the model says it read the message.
	start(bashID, "Clean up")
	b1 := `article[data-call="b1"]`
	if err := do(ctx, chromedp.Navigate(hs.URL+"/runs/temporal/"+tconsole.ID(bashID)), chromedp.WaitVisible(chromedp.CSS(b1+" table.parts")),
		chromedp.SendKeys(chromedp.CSS(b1+" input[name=message]"), "keep the build, it took an hour"),
		chromedp.Click(chromedp.CSS(b1+" button.deny")),
		says("#run-status", "finished"), says(b1+" .result", "keep the build, it took an hour"),
		says("article.role-assistant:last-of-type", "The model read: "), says("article.role-assistant:last-of-type", "keep the build, it took an hour")); err != nil {
		t.Fatalf("denying: %v\nworker: %s", err, workerLogs())
	}
	if got, _ := model.toolResult("Clean up", "b1"); !strings.Contains(got, "keep the build, it took an hour") {
		t.Errorf("the model read %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "build")); err != nil {
		t.Error("the denied command ran")
	}
	shot(t, ctx, shots, "run-denied")

	// An edited input that the run's deny rule matches: approved from the
	// page's edit form, refused; neither file is written.
	start(writeID, "Write more")
	w1 := `article[data-call="w1"]`
	textarea := w1 + " textarea[name=input]"
	edited := jsonArgs(t, map[string]string{"file_path": secret, "content": "edited\n"})
	if err := do(ctx, chromedp.Navigate(hs.URL+"/runs/temporal/"+tconsole.ID(writeID)),
		chromedp.Click(chromedp.CSS(w1+" details.edit summary")),
		chromedp.SetValue(chromedp.CSS(textarea), edited)); err != nil {
		t.Fatal(err)
	}
	// Another run pauses while the edit waits to be sent: the page updates
	// itself and keeps the edit (put back to the call's own input, the
	// form would approve that as the edit).
	updated := `document.body.getAttribute("data-updated") || ""`
	before, err := chromedp.Run(ctx, chromedp.Evaluate[string](updated))
	if err != nil {
		t.Fatal(err)
	}
	model.script("Wait here", step{calls: [][3]string{{"o1", "Bash", `{"command":"rm -rf build"}`}}})
	start(otherID, "Wait here")
	defer c.TerminateWorkflow(context.Background(), otherID, "", "the test is over")
	if err := do(ctx, holds(fmt.Sprintf("(%s) !== %q", updated, before))); err != nil {
		t.Fatalf("the page did not update itself when another run paused: %v", err)
	}
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf("document.querySelector(%q).value", textarea))); err != nil || got != edited {
		t.Fatalf("after the page updated itself, the edit form holds %q (%v), not the edit %q", got, err, edited)
	}
	if err := do(ctx, chromedp.Click(chromedp.CSS(w1+" button.edit")),
		says("#run-status", "finished"), says(w1, "rule: Write(secret.txt)"), says("", "Done writing.")); err != nil {
		t.Fatalf("approving an edited input: %v\nworker: %s", err, workerLogs())
	}
	for _, f := range []string{secret, notes2} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	if got, _ := model.toolResult("Write more", "w1"); !strings.Contains(got, "denied") {
		t.Errorf("the model read %q, not a denial", got)
	}
	shot(t, ctx, shots, "run-edited-refused")
	ents, _ := os.ReadDir(shots)
	t.Logf("%d screenshots in %s", len(ents), shots)
}
