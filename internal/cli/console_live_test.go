package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/tool"
)

// answerAt posts an answer to run of the console's source kind, from the
// run page's form, as the browser does.
func (r *consoleRig) answerAt(t *testing.T, c *http.Client, kind, run string, form url.Values) (int, string) {
	t.Helper()
	page := r.page(t, c, "/runs/"+kind+"/"+run)
	if m := formToken.FindStringSubmatch(page); m != nil {
		r.csrf = m[1]
	}
	// As the browser sends it: the input shown, by its hash.
	if m := regexp.MustCompile(`name="call" value="` + regexp.QuoteMeta(form.Get("call")) + `"><input type="hidden" name="input_sha256" value="([0-9a-f]{64})"`).FindStringSubmatch(page); m != nil {
		form.Set("input_sha256", m[1])
	} else if strings.Contains(page, `name="call" value="`+form.Get("call")+`"`) {
		t.Fatalf("the form of call %s carries no input_sha256", form.Get("call"))
	}
	form.Set("csrf", r.csrf)
	req, _ := http.NewRequest("POST", r.base+"/runs/"+kind+"/"+run+"/answer", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", r.base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitFor polls until ok holds, failing with what last says after 30 s.
func waitFor(t *testing.T, what string, ok func() bool, last func() string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen:\n%s", what, last())
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// liveChat runs `toolscope chat --state runs/name` in this process, its
// terminal a pipe the test types into.
type liveChat struct {
	in     *io.PipeWriter
	stderr *syncBuffer
	done   chan error
	file   string
}

func (r *consoleRig) chat(t *testing.T, name string) *liveChat {
	t.Helper()
	pr, pw := io.Pipe()
	lc := &liveChat{in: pw, stderr: &syncBuffer{}, done: make(chan error, 1), file: filepath.Join(r.runs, name)}
	go func() {
		lc.done <- run(context.Background(), []string{"chat", "--cwd", r.proj, "--state", lc.file}, pr, io.Discard, lc.stderr)
	}()
	t.Cleanup(func() {
		pw.Close()
		select {
		case <-lc.done:
		case <-time.After(20 * time.Second):
			t.Error("the chat did not end")
		}
	})
	return lc
}

func (lc *liveChat) say(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(lc.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// A running chat's waiting call is answered from the console: the chat
// takes the console's answer (its terminal question is withdrawn), runs
// the call once, goes on; a second answer is refused; the user's next line
// goes to the conversation. A denial's message reaches the model. An
// answer typed at the terminal first closes the call to the console.
func TestConsoleAnswersRunningChat(t *testing.T) {
	r := newConsoleRig(t, `{"text":"","tool_calls":[{"id":"c1","name":"Write","arguments":{"file_path":"$WORK/proj/notes.txt","content":"from the console\n"}}]}
{"text":"Written."}
{"text":"","tool_calls":[{"id":"c2","name":"Bash","arguments":{"command":"touch $WORK/proj/PWNED"}}]}
{"text":"Not touched."}
{"text":"","tool_calls":[{"id":"c3","name":"Write","arguments":{"file_path":"$WORK/proj/typed.txt","content":"typed\n"}}]}
{"text":"Typed."}
`, "")
	lc := r.chat(t, "chat.json")
	c := r.client(t)
	lc.say(t, "Write the notes")
	waitFor(t, "the chat's question", func() bool { return strings.Contains(lc.stderr.String(), "Allow?") }, lc.stderr.String)
	p := r.page(t, c, "/runs/local/chat.json")
	if !strings.Contains(p, "from the console") || !strings.Contains(p, "Approve") {
		t.Fatalf("the chat's waiting call is not shown to answer:\n%s", p)
	}
	if code, body := r.answerAt(t, c, "local", "chat.json", url.Values{"call": {"c1"}, "action": {"approve"}}); code != http.StatusSeeOther && code != http.StatusOK {
		t.Fatalf("approving from the console: %d %s", code, body)
	}
	waitFor(t, "the chat going on", func() bool {
		return strings.Contains(lc.stderr.String(), "Write approved in toolscope console by default.")
	}, lc.stderr.String)
	waitFor(t, "the file written", func() bool {
		b, _ := os.ReadFile(filepath.Join(r.proj, "notes.txt"))
		return string(b) == "from the console\n"
	}, lc.stderr.String)
	if code, _ := r.answerAt(t, c, "local", "chat.json", url.Values{"call": {"c1"}, "action": {"approve"}}); code != http.StatusConflict {
		t.Errorf("a second answer: %d, want 409", code)
	}

	// Denied with a message: the model reads it, nothing runs.
	lc.say(t, "Touch it")
	waitFor(t, "the second question", func() bool { return strings.Count(lc.stderr.String(), "Allow?") == 2 }, lc.stderr.String)
	if code, body := r.answerAt(t, c, "local", "chat.json", url.Values{"call": {"c2"}, "action": {"deny"}, "message": {"not in my project"}}); code != http.StatusSeeOther && code != http.StatusOK {
		t.Fatalf("denying from the console: %d %s", code, body)
	}
	waitFor(t, "the denial saved", func() bool {
		ar, err := host.LoadRun(lc.file)
		if err != nil {
			return false
		}
		for _, m := range ar.Messages {
			if m.Result != nil && m.Result.ID == "c2" {
				return m.Result.Status == tool.StatusDenied && strings.Contains(m.Result.Text(), "The user says: not in my project")
			}
		}
		return false
	}, lc.stderr.String)
	if _, err := os.Stat(filepath.Join(r.proj, "PWNED")); err == nil {
		t.Error("the denied command ran")
	}

	// Answered at the terminal: the console's answer then counts for
	// nothing.
	lc.say(t, "Type it")
	waitFor(t, "the third question", func() bool { return strings.Count(lc.stderr.String(), "Allow?") == 3 }, lc.stderr.String)
	lc.say(t, "y")
	waitFor(t, "the typed answer", func() bool {
		_, err := os.Stat(filepath.Join(r.proj, "typed.txt"))
		return err == nil
	}, lc.stderr.String)
	if code, _ := r.answerAt(t, c, "local", "chat.json", url.Values{"call": {"c3"}, "action": {"deny"}}); code != http.StatusConflict {
		t.Errorf("answering a call answered at the terminal: %d, want 409", code)
	}
	lc.in.Close()
	if err := <-lc.done; err != nil {
		t.Errorf("chat: %v\n%s", err, lc.stderr.String())
	}
	lc.done <- nil // for the cleanup
	if m, _ := filepath.Glob(filepath.Join(r.runs, ".toolscope-live", "*.json")); len(m) != 0 {
		t.Errorf("the chat left its registration: %v", m)
	}
	// The decision log names who answered, and what: one answer carried
	// out for each call (a refused second answer logs its error).
	var acts []string
	for _, e := range decisionLog(t, r.runs) {
		if e.Source != "local" || e.Run != "chat.json" || e.Action == "decision" {
			continue
		}
		switch {
		case e.Who != "default":
			t.Errorf("answered by %q", e.Who)
		case e.Action == "outcome" && e.Error != "":
			if !strings.Contains(e.Error, "no call") && !strings.Contains(e.Error, "answered already") {
				t.Errorf("an outcome's error: %q", e.Error)
			}
			if n := len(acts); n > 0 && acts[n-1] == e.Call+":approve" {
				acts = acts[:n-1] // the refused answer
			}
		case e.Action == "outcome":
			acts = append(acts, e.Call+":done")
		default:
			acts = append(acts, e.Call+":"+e.Action)
		}
	}
	if want := "c1:approve c1:done c2:deny c2:done"; strings.Join(acts, " ") != want {
		t.Errorf("the decision log's answers: %q, want %q", acts, want)
	}
}

var liveRunID = regexp.MustCompile(`/runs/live/([0-9]+-[0-9a-f]+\.s[0-9]+)`)

// A `toolscope serve --console DIR` session is a run of the console: its
// calls are shown as they happen; a call that needs approval waits for the
// console (the client, though it supports elicitation, is not asked); an
// approval runs it; an edited input that a deny rule refuses is refused;
// a denial's message reaches the client; a session's run goes with it.
func TestConsoleServeSessions(t *testing.T) {
	r := newConsoleRig(t, "", `{"permissions":{"deny":["Write(secret.txt)"]}}`)
	elicited := false
	copts := &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		elicited = true
		return &sdk.ElicitResult{Action: "decline"}, nil
	}}
	for _, version := range protocols {
		t.Run("protocol="+version, func(t *testing.T) {
			s := serveStdioAt(t, version, copts, "--cwd", r.proj, "--config", filepath.Join(r.work, "cfg.json"), "--console", r.runs)
			c := r.client(t)
			if text, isErr := callTool(t, s, "Glob", map[string]any{"pattern": "*"}); isErr {
				t.Fatalf("Glob: %s", text)
			}
			var id string
			waitFor(t, "the session listed", func() bool {
				if m := liveRunID.FindStringSubmatch(r.page(t, c, "/")); m != nil {
					id = m[1]
				}
				return id != ""
			}, func() string { return r.page(t, c, "/") })
			if p := r.page(t, c, "/runs/live/"+id); !strings.Contains(p, "Glob") {
				t.Fatalf("the session's calls:\n%s", p)
			}
			type res struct {
				text  string
				isErr bool
			}
			call := func(name string, args any) <-chan res {
				ch := make(chan res, 1)
				go func() {
					rr, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
					if err != nil {
						ch <- res{err.Error(), true}
						return
					}
					var b strings.Builder
					for _, cc := range rr.Content {
						if tc, ok := cc.(*sdk.TextContent); ok {
							b.WriteString(tc.Text)
						}
					}
					ch <- res{b.String(), rr.IsError}
				}()
				return ch
			}
			waiting := func(call string) {
				waitFor(t, "the call waiting", func() bool {
					return strings.Contains(r.page(t, c, "/runs/live/"+id), `name="call" value="`+call+`"`)
				}, func() string { return r.page(t, c, "/runs/live/"+id) })
			}
			target := filepath.Join(r.proj, "served-"+strings.ReplaceAll(version, "-", "")+".txt")
			done := call("Write", map[string]any{"file_path": target, "content": "approved\n"})
			waiting("c2")
			if p := r.page(t, c, "/runs/live/"+id); !strings.Contains(p, "+approved") {
				t.Errorf("the Write's diff is not shown:\n%s", p)
			}
			if code, body := r.answerAt(t, c, "live", id, url.Values{"call": {"c2"}, "action": {"approve"}}); code != http.StatusSeeOther && code != http.StatusOK {
				t.Fatalf("approve: %d %s", code, body)
			}
			if got := <-done; got.isErr {
				t.Fatalf("the approved Write: %s", got.text)
			}
			if b, _ := os.ReadFile(target); string(b) != "approved\n" {
				t.Errorf("the file: %q", b)
			}
			if code, _ := r.answerAt(t, c, "live", id, url.Values{"call": {"c2"}, "action": {"approve"}}); code != http.StatusConflict {
				t.Errorf("a second answer: %d, want 409", code)
			}
			// An edited input that a deny rule refuses.
			done = call("Write", map[string]any{"file_path": filepath.Join(r.proj, "harmless.txt"), "content": "x\n"})
			waiting("c3")
			edited, _ := json.Marshal(map[string]any{"file_path": filepath.Join(r.proj, "secret.txt"), "content": "x\n"})
			if code, body := r.answerAt(t, c, "live", id, url.Values{"call": {"c3"}, "action": {"edit"}, "input": {string(edited)}}); code != http.StatusSeeOther && code != http.StatusOK {
				t.Fatalf("edit: %d %s", code, body)
			}
			if got := <-done; !got.isErr || !strings.Contains(got.text, "denied") {
				t.Errorf("the edited Write under a deny rule: %v %q", got.isErr, got.text)
			}
			for _, f := range []string{"secret.txt", "harmless.txt"} {
				if _, err := os.Stat(filepath.Join(r.proj, f)); err == nil {
					t.Errorf("%s was written", f)
				}
			}
			// Denied with a message.
			done = call("Bash", map[string]any{"command": "touch " + filepath.Join(r.proj, "PWNED")})
			waiting("c4")
			if code, body := r.answerAt(t, c, "live", id, url.Values{"call": {"c4"}, "action": {"deny"}, "message": {"use the Write tool"}}); code != http.StatusSeeOther && code != http.StatusOK {
				t.Fatalf("deny: %d %s", code, body)
			}
			if got := <-done; !got.isErr || !strings.Contains(got.text, "The user says: use the Write tool") {
				t.Errorf("the denied Bash: %v %q", got.isErr, got.text)
			}
			if _, err := os.Stat(filepath.Join(r.proj, "PWNED")); err == nil {
				t.Error("the denied command ran")
			}
			if elicited {
				t.Error("the client was asked by elicitation")
			}
			s.Close()
			waitFor(t, "the session's run gone", func() bool {
				return !strings.Contains(r.page(t, c, "/"), id)
			}, func() string { return r.page(t, c, "/") })
		})
	}
	var mu sync.Mutex
	mu.Lock()
	defer mu.Unlock()
}

// A prompt that stopped waiting (the console answered) leaves the line
// the user was typing to the next reader, unless it only answers that
// prompt: a "y" then is dropped, not sent to the model.
func TestAsyncLinesDropsStaleAnswer(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	var notes strings.Builder
	lines := newAsyncLines(bufio.NewReader(pr), &notes)
	stop := make(chan struct{})
	close(stop)
	if _, _, ok := lines.next(stop); ok {
		t.Fatal("a stopped prompt got a line")
	}
	go io.WriteString(pw, "y\nhello\nn\n")
	if s, err := lines.ReadString('\n'); err != nil || s != "hello\n" {
		t.Errorf("after a stale answer: %q %v", s, err)
	}
	if !strings.Contains(notes.String(), `"y" is not sent`) {
		t.Errorf("notes: %q", notes.String())
	}
	// Not stale: an answer is an answer.
	if s, err := lines.ReadString('\n'); err != nil || s != "n\n" {
		t.Errorf("a fresh line: %q %v", s, err)
	}
	lines.close()
}

// Over HTTP, each MCP session of serve --console is a run of its own; an
// answer to one session's call reaches that session only.
func TestConsoleServeHTTPSessions(t *testing.T) {
	r := newConsoleRig(t, "", "")
	url := serveHTTP(t, "--cwd", r.proj, "--console", r.runs)
	a, b := httpSession(t, url), httpSession(t, url)
	c := r.client(t)
	callTool(t, a, "Glob", map[string]any{"pattern": "*"})
	callTool(t, b, "Glob", map[string]any{"pattern": "*"})
	var ids []string
	waitFor(t, "two sessions listed", func() bool {
		ids = nil
		for _, m := range liveRunID.FindAllStringSubmatch(r.page(t, c, "/"), -1) {
			if !slices.Contains(ids, m[1]) {
				ids = append(ids, m[1])
			}
		}
		return len(ids) == 2
	}, func() string { return r.page(t, c, "/") })
	done := make(chan bool, 1)
	go func() {
		res, err := a.CallTool(context.Background(), &sdk.CallToolParams{Name: "Write", Arguments: map[string]any{"file_path": filepath.Join(r.proj, "a.txt"), "content": "a\n"}})
		done <- err == nil && !res.IsError
	}()
	var waiting string
	waitFor(t, "a's Write waiting", func() bool {
		for _, id := range ids {
			if strings.Contains(r.page(t, c, "/runs/live/"+id), `name="call" value="c2"`) {
				waiting = id
			}
		}
		return waiting != ""
	}, func() string { return r.page(t, c, "/") })
	other := ids[0]
	if other == waiting {
		other = ids[1]
	}
	if m := formToken.FindStringSubmatch(r.page(t, c, "/runs/live/"+waiting)); m != nil {
		r.csrf = m[1] // the other session's page has no form
	}
	if code, _ := r.answerAt(t, c, "live", other, url2("c2", "approve")); code != http.StatusConflict {
		t.Errorf("the other session's answer: %d, want 409", code)
	}
	if code, body := r.answerAt(t, c, "live", waiting, url2("c2", "approve")); code != http.StatusOK && code != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", code, body)
	}
	if !<-done {
		t.Fatal("the approved Write failed")
	}
	if got, _ := os.ReadFile(filepath.Join(r.proj, "a.txt")); string(got) != "a\n" {
		t.Errorf("a.txt = %q", got)
	}
	a.Close()
	waitFor(t, "a's run gone", func() bool { return !strings.Contains(r.page(t, c, "/"), waiting) }, func() string { return r.page(t, c, "/") })
}

func url2(call, action string) url.Values { return url.Values{"call": {call}, "action": {action}} }
