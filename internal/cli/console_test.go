package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/console"
	"github.com/toolscope/toolscope/host"
)

// consoleRig is a project, a runs directory, the scripted model server and
// a running `toolscope console`; the console resumes runs with this test
// binary as the CLI.
type consoleRig struct {
	work, proj, runs string
	base, token      string // the console's URL and access token
	csrf             string // the form token, once a page gave it
	stop             func()
}

// newConsoleRig writes answers (the scripted model's, one a line) and cfg
// (a config file, may be ""), and starts the console.
func newConsoleRig(t *testing.T, answers, cfg string) *consoleRig {
	t.Helper()
	r := &consoleRig{work: t.TempDir()}
	r.proj, r.runs = filepath.Join(r.work, "proj"), filepath.Join(r.work, "runs")
	os.MkdirAll(r.proj, 0o755)
	os.MkdirAll(r.runs, 0o755)
	os.WriteFile(filepath.Join(r.work, "answers.jsonl"), []byte(answers), 0o644)
	if cfg != "" {
		os.WriteFile(filepath.Join(r.work, "cfg.json"), []byte(cfg), 0o644)
	}
	srv := httptest.NewServer(&scriptedChat{dir: r.work})
	t.Cleanup(srv.Close)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("TOOLSCOPE_MODEL", "openai:scripted")
	// The console runs os.Executable(), this test binary: as the CLI.
	t.Setenv("TOOLSCOPE_TEST_AS_CLI", "1")

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runConsole(ctx, []string{"--runs", r.runs}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "open "); ok {
			base, tok, _ := strings.Cut(u, "?token=")
			r.base, r.token = strings.TrimSuffix(base, "/"), tok
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if r.base == "" {
		cancel()
		t.Fatalf("the console printed no URL: %v", <-done)
	}
	r.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("console: %v", err)
		}
	}
	t.Cleanup(r.stop)
	return r
}

// pause starts `toolscope run` with prompt; it must pause (exit 3) into
// runs/name.
func (r *consoleRig) pause(t *testing.T, name, prompt string) string {
	t.Helper()
	file := filepath.Join(r.runs, name)
	args := []string{"run", "--cwd", r.proj, "--state", file, prompt}
	if _, err := os.Stat(filepath.Join(r.work, "cfg.json")); err == nil {
		args = append(args, "--config", filepath.Join(r.work, "cfg.json"))
	}
	var out strings.Builder
	err := run(context.Background(), args, strings.NewReader(""), &out, &out)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 3 {
		t.Fatalf("toolscope run did not pause: %v\n%s", err, out.String())
	}
	return file
}

func (r *consoleRig) client(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(r.base + "/?token=" + r.token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return c
}

func (r *consoleRig) page(t *testing.T, c *http.Client, path string) string {
	t.Helper()
	resp, err := c.Get(r.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return html.UnescapeString(string(b))
}

var formToken = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// answer posts an answer from the run page's form, as the browser does.
func (r *consoleRig) answer(t *testing.T, c *http.Client, run string, form url.Values) int {
	t.Helper()
	if m := formToken.FindStringSubmatch(r.page(t, c, "/runs/local/"+run)); m != nil {
		r.csrf = m[1]
	}
	if r.csrf == "" {
		t.Fatal("the run page has no form")
	}
	form.Set("csrf", r.csrf)
	req, _ := http.NewRequest("POST", r.base+"/runs/local/"+run+"/answer", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", r.base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// settled waits until the run page says the last answer's continuation
// ended, and returns the page.
func (r *consoleRig) settled(t *testing.T, c *http.Client, run string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		p := r.page(t, c, "/runs/local/"+run)
		if strings.Contains(p, "stopped with exit code") {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("the answer's continuation did not end:\n%s", p)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func decisionLog(t *testing.T, runs string) []console.Entry {
	t.Helper()
	var out strings.Builder
	if err := runConsole(context.Background(), []string{"--runs", runs, "--export", "-"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var es []console.Entry
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e console.Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("export line %q: %v", l, err)
		}
		es = append(es, e)
	}
	return es
}

// A real paused run, approved in the console: the call runs once, the run
// goes on to its end, the run file records it, and a second answer to the
// same call is refused.
func TestConsoleApprovesPausedRun(t *testing.T) {
	r := newConsoleRig(t, `{"text":"","tool_calls":[{"id":"c1","name":"Write","arguments":{"file_path":"$WORK/proj/notes.txt","content":"from the console\n"}}]}
{"text":"Written."}
`, "")
	file := r.pause(t, "notes.json", "Write the notes")
	c := r.client(t)
	list := r.page(t, c, "/")
	if !strings.Contains(list, "notes.json") || !strings.Contains(list, "waiting") || !strings.Contains(list, "openai:scripted") {
		t.Fatalf("the run list:\n%s", list)
	}
	p := r.page(t, c, "/runs/local/notes.json")
	if !strings.Contains(p, "--- /dev/null") || !strings.Contains(p, "+from the console") {
		t.Fatalf("the run page shows no diff of the new file:\n%s", p)
	}
	if code := r.answer(t, c, "notes.json", url.Values{"call": {"c1"}, "action": {"approve"}}); code != 200 {
		t.Fatalf("approve: %d", code)
	}
	p = r.settled(t, c, "notes.json")
	if !strings.Contains(p, "Written.") || !strings.Contains(p, "exit code 0") {
		t.Errorf("the run did not go on to its end:\n%s", p)
	}
	if b, _ := os.ReadFile(filepath.Join(r.proj, "notes.txt")); string(b) != "from the console\n" {
		t.Errorf("notes.txt = %q", b)
	}
	ar, err := host.LoadRun(file)
	if err != nil || len(ar.Waiting) != 0 {
		t.Fatalf("the run file after the answer: %v, %d waiting", err, len(ar.Waiting))
	}
	// Exactly once: the same answer again is refused, nothing runs.
	os.Remove(filepath.Join(r.proj, "notes.txt"))
	if code := r.answer(t, c, "notes.json", url.Values{"call": {"c1"}, "action": {"approve"}}); code != http.StatusConflict {
		t.Errorf("a second approval: %d, want 409", code)
	}
	if _, err := os.Stat(filepath.Join(r.proj, "notes.txt")); err == nil {
		t.Error("the call ran twice")
	}
	// Every decision and answer, in time order: the engine's ask, the
	// console's approval, the decision the call ran with, the outcome.
	log := decisionLog(t, r.runs)
	var got []string
	for _, e := range log {
		got = append(got, e.Action+" "+e.Who+" "+e.Behavior)
	}
	t.Logf("the decision log: %q", got)
	if len(log) != 4 || log[0].Action != "decision" || log[0].Who != "engine" || log[0].Behavior != "ask" || log[0].Time.IsZero() ||
		log[1].Action != "approve" || log[1].Who != "default" || log[1].Call != "c1" || !strings.Contains(string(log[1].Input), "from the console") ||
		log[2].Action != "decision" || log[2].Behavior != "allow" || !strings.Contains(string(log[2].Input), "from the console") ||
		log[3].Action != "outcome" || log[3].Exit == nil || *log[3].Exit != 0 {
		t.Errorf("the decision log: %q\n%+v", got, log)
	}
	for i := 1; i < len(log); i++ {
		if log[i].Time.Before(log[i-1].Time) {
			t.Errorf("the log is not in time order at %d", i)
		}
	}
}

// A denial with a message: the model reads it, the command never runs.
func TestConsoleDeniesWithMessage(t *testing.T) {
	r := newConsoleRig(t, `{"text":"","tool_calls":[{"id":"b1","name":"Bash","arguments":{"command":"touch $WORK/proj/made && echo hi"}}]}
{"text":"Understood, I will not."}
`, "")
	r.pause(t, "bash.json", "Make it")
	c := r.client(t)
	p := r.page(t, c, "/runs/local/bash.json")
	if !strings.Contains(p, "touch "+r.work+"/proj/made && echo hi") || !strings.Contains(p, "read-only") {
		t.Fatalf("the run page does not show the command and its parts:\n%s", p)
	}
	if code := r.answer(t, c, "bash.json", url.Values{"call": {"b1"}, "action": {"deny"}, "message": {"do not create files"}}); code != 200 {
		t.Fatalf("deny: %d", code)
	}
	p = r.settled(t, c, "bash.json")
	if !strings.Contains(p, "denied") || !strings.Contains(p, "The user says: do not create files") || !strings.Contains(p, "Understood, I will not.") {
		t.Errorf("the run page after the denial:\n%s", p)
	}
	if b, _ := os.ReadFile(filepath.Join(r.work, ".requests")); !strings.Contains(string(b), "The user says: do not create files") {
		t.Error("the model did not read the message")
	}
	if _, err := os.Stat(filepath.Join(r.proj, "made")); err == nil {
		t.Error("the denied command ran")
	}
}

// An edited input is judged again: a deny rule refuses it.
func TestConsoleEditedInputMeetsDenyRules(t *testing.T) {
	r := newConsoleRig(t, `{"text":"","tool_calls":[{"id":"w1","name":"Write","arguments":{"file_path":"$WORK/proj/notes.txt","content":"x\n"}}]}
{"text":"Done."}
`, `{"permissions": {"deny": ["Write(secret.txt)"]}}`)
	r.pause(t, "edit.json", "Write")
	c := r.client(t)
	edited := `{"file_path":"` + r.proj + `/secret.txt","content":"edited\n"}`
	if code := r.answer(t, c, "edit.json", url.Values{"call": {"w1"}, "action": {"edit"}, "input": {edited}}); code != 200 {
		t.Fatalf("edit: %d", code)
	}
	p := r.settled(t, c, "edit.json")
	if !strings.Contains(p, "denied") || !strings.Contains(p, "Write(secret.txt)") {
		t.Errorf("the edited call was not refused by the deny rule:\n%s", p)
	}
	for _, f := range []string{"secret.txt", "notes.txt"} {
		if _, err := os.Stat(filepath.Join(r.proj, f)); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	// The log: the engine's ask, the edited approval (both inputs), the
	// deny rule's refusal of the edited input, the outcome.
	log := decisionLog(t, r.runs)
	var acts []string
	for _, e := range log {
		acts = append(acts, e.Action+" "+e.Behavior)
	}
	if len(log) != 4 || acts[0] != "decision ask" || acts[1] != "approve_edited " || acts[2] != "decision deny" || acts[3] != "outcome " ||
		string(log[1].Input) != edited || !strings.Contains(string(log[1].OriginalInput), "notes.txt") ||
		string(log[2].Input) != edited || len(log[2].Rules) != 1 || log[2].Rules[0] != "Write(secret.txt)" {
		t.Errorf("the decision log: %q\n%+v", acts, log)
	}
}

func TestConsoleFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--runs", dir, "--http", "0.0.0.0:0"}, "beyond this machine"},
		{[]string{"--runs", dir, "--auth-token", "short"}, "at least 16"},
		{[]string{"--runs", dir, "--auth-token", "a=0123456789abcdef", "--auth-token", "a=0123456789abcdefg"}, "named \"a\""},
		{[]string{"--runs", filepath.Join(dir, "none")}, "not a directory"},
		{[]string{"--runs", dir, "--http", "nope"}, "want host:port"},
		{[]string{"--runs", dir, "extra"}, "no arguments"},
	} {
		err := runConsole(context.Background(), tc.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("console %q: %v, want %q", tc.args, err, tc.want)
		}
		if exitCode(err, io.Discard) != 2 {
			t.Errorf("console %q: exit %d, want 2", tc.args, exitCode(err, io.Discard))
		}
	}
	// A log line that is not an entry stops the export.
	os.WriteFile(filepath.Join(dir, console.LogName), []byte("{\"action\":\"approve\"}\nnot json\n"), 0o600)
	if err := runConsole(context.Background(), []string{"--runs", dir, "--export", filepath.Join(dir, "out.jsonl")}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("export of a damaged log: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.jsonl")); err == nil {
		t.Error("a damaged log was exported in part")
	}
}

// The export holds the engine's own decisions too, from the runs'
// transcripts, with their times: a read it allowed, a write a deny rule
// refused, in a run nobody answered.
func TestConsoleExportsEngineDecisions(t *testing.T) {
	r := newConsoleRig(t, `{"text":"","tool_calls":[{"id":"r1","name":"Read","arguments":{"file_path":"$WORK/proj/a.txt"}}]}
{"text":"","tool_calls":[{"id":"w1","name":"Write","arguments":{"file_path":"$WORK/proj/secret.txt","content":"x"}}]}
{"text":"Done."}
`, `{"permissions": {"deny": ["Write(secret.txt)"]}}`)
	os.WriteFile(filepath.Join(r.proj, "a.txt"), []byte("alpha\n"), 0o644)
	var out strings.Builder
	err := run(context.Background(), []string{"run", "--cwd", r.proj, "--state", filepath.Join(r.runs, "auto.json"), "--config", filepath.Join(r.work, "cfg.json"), "Look"}, strings.NewReader(""), &out, &out)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	log := decisionLog(t, r.runs)
	if len(log) != 2 {
		t.Fatalf("the export: %+v", log)
	}
	read, write := log[0], log[1]
	if read.Action != "decision" || read.Who != "engine" || read.Run != "auto.json" || read.Call != "r1" || read.Tool != "Read" || read.Behavior != "allow" ||
		!strings.Contains(string(read.Input), "a.txt") || read.Time.IsZero() {
		t.Errorf("the Read's decision: %+v", read)
	}
	if write.Call != "w1" || write.Behavior != "deny" || len(write.Rules) != 1 || write.Rules[0] != "Write(secret.txt)" || write.Time.Before(read.Time) {
		t.Errorf("the Write's decision: %+v", write)
	}
}

// A chat's run file is shown, but not answered: the chat asks about its
// waiting calls at its terminal from the run it holds, and an answer here
// too would run a call twice.
func TestConsoleRefusesChatRuns(t *testing.T) {
	r := newConsoleRig(t, `{"text":"","tool_calls":[{"id":"c1","name":"Write","arguments":{"file_path":"$WORK/proj/notes.txt","content":"twice?\n"}}]}
{"text":"Written."}
`, "")
	file := r.pause(t, "chat.json", "Write the notes")
	ar, err := host.LoadRun(file)
	if err != nil {
		t.Fatal(err)
	}
	if ar.Meta["command"] != "run" {
		t.Fatalf("the run file does not say which command keeps it: %v", ar.Meta)
	}
	ar.Meta["command"] = "chat" // as toolscope chat --state saves it
	if err := host.SaveRun(file, ar); err != nil {
		t.Fatal(err)
	}
	c := r.client(t)
	if p := r.page(t, c, "/runs/local/chat.json"); !strings.Contains(p, "Write") {
		t.Fatalf("the chat's run is not shown:\n%s", p)
	}
	if code := r.answer(t, c, "chat.json", url.Values{"call": {"c1"}, "action": {"approve"}}); code != http.StatusConflict {
		t.Fatalf("approving a chat's call: %d, want 409", code)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(r.proj, "notes.txt")); err == nil {
		t.Error("the chat's call ran from the console")
	}
	if ar, err := host.LoadRun(file); err != nil || len(ar.Waiting) != 1 {
		t.Errorf("the chat's run file changed: %v", err)
	}
}

// A run paused on calls of a go-sdk MCP server's tools: the run file keeps
// what the server declares of each tool, and the console shows it as the
// server's claims, escaped; a tool with no annotations shows none.
func TestConsoleShowsMCPToolAnnotations(t *testing.T) {
	// The server is this test binary (testscript puts it on $PATH as
	// mcpserver), not the CLI it is for the console.
	r := newConsoleRig(t, `{"text":"","tool_calls":[{"id":"d1","name":"mcp__peer__drop_table","arguments":{"table":"users"}},{"id":"n1","name":"mcp__peer__count","arguments":{}}]}
{"text":"Dropped."}
`, `{"mcpServers": {"peer": {"command": "mcpserver", "args": ["annotated"], "env": {"TOOLSCOPE_TEST_AS_CLI": "0"}}}}`)
	file := r.pause(t, "mcp.json", "Drop the users table")
	ar, err := host.LoadRun(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(ar.Waiting) != 2 {
		t.Fatalf("waiting: %+v", ar.Waiting)
	}
	if w := ar.Waiting[0]; w.Title != "Drop <i>a</i> table\x1b[2J" || w.Annotations == nil || w.Annotations.DestructiveHint == nil || !*w.Annotations.DestructiveHint {
		t.Errorf("the run file's drop_table: title %q, annotations %+v", w.Title, w.Annotations)
	}
	resp, err := r.client(t).Get(r.base + "/runs/local/mcp.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(b)
	if strings.Contains(page, "\x1b") || strings.Contains(page, "<i>a</i>") {
		t.Error("the server's title reached the page unescaped")
	}
	call := func(id string) string {
		_, rest, ok := strings.Cut(page, ` id="call-`+id+`"`)
		if !ok {
			t.Fatalf("the run page has no call %s:\n%s", id, page)
		}
		a, _, _ := strings.Cut(rest, "</article>")
		return a
	}
	drop := call("d1")
	for _, want := range []string{
		`MCP server <b class="mono">peer</b>, tool <b class="mono">drop_table</b>, titled <b class="title">Drop &lt;i&gt;a&lt;/i&gt; table\u001b[2J</b> by its server.`,
		"Hints the server declares about its own tool. Nothing checks them",
		"<li><b>read-only</b>: no", "<li><b>destructive</b>: yes", "<li><b>idempotent</b>: no", "<li><b>open-world</b>: yes",
	} {
		if !strings.Contains(drop, want) {
			t.Errorf("drop_table's call lacks %q:\n%s", want, drop)
		}
	}
	count := call("n1")
	if !strings.Contains(count, `tool <b class="mono">count</b>.`) || !strings.Contains(count, "The run file records no annotations for this tool") ||
		strings.Contains(count, `class="hints"`) {
		t.Errorf("count's call:\n%s", count)
	}
}
