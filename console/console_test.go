package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/internal/live"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

const testToken = "0123456789abcdef0123456789abcdef"

// fixture is a runs directory with one paused run (run.json) of a
// project with a file, and a console serving it.
type fixture struct {
	dir, project, outside string
	srv                   *httptest.Server
	console               *Server
	local                 *Local
}

func rule(t testing.TB, s string) permission.Rule {
	r, err := permission.ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	r.Behavior = permission.Allow
	return r
}

func call(id, name string, input any) agent.ToolCall {
	b, _ := json.Marshal(input)
	return agent.ToolCall{ID: id, Name: name, Input: b}
}

// pausedRun is a run that read a file (a long result), and waits on an
// Edit of notes.txt, a compound Bash command, a Write outside the project
// and two MCP calls: one of a tool whose server gave it a title (with
// markup and control characters) and hints, one of a tool with neither.
func pausedRun(t testing.TB, project, outside string) *agent.Run {
	st := tool.NewState(&permission.Context{WorkingDirs: []string{project}})
	r := agent.NewRun(st)
	r.Meta = map[string]string{"model": "openai:scripted", "cwd": project}
	read := call("c0", "Read", map[string]any{"file_path": filepath.Join(project, "notes.txt")})
	edit := call("c1", "Edit", map[string]any{"file_path": filepath.Join(project, "notes.txt"), "old_string": "two", "new_string": "TWO\x1b[2J"})
	bash := call("c2", "Bash", map[string]any{"command": "ls && rm -rf build", "description": "clean"})
	write := call("c3", "Write", map[string]any{"file_path": filepath.Join(outside, "secret.txt"), "content": "x"})
	mcp := call("c4", "mcp__fs__read_file", map[string]any{"path": "/x"})
	plain := call("c5", "mcp__fs__stat", map[string]any{"path": "/x"})
	r.Messages = []agent.Message{
		{Role: agent.User, Text: "tidy the notes"},
		{Role: agent.Assistant, Text: "Reading first.", ToolCalls: []agent.ToolCall{read}},
		{Role: agent.ToolRole, Result: &tool.Result{ID: "c0", Name: "Read", Status: tool.StatusSuccess,
			Content:  []tool.Block{tool.TextBlock(strings.Repeat("line of the file\n", 500) + "THE END")},
			Decision: &permission.Decision{Behavior: permission.Allow, Message: "read-only", Reason: "read-only tool"}}},
		{Role: agent.Assistant, Text: "Now the changes.", ToolCalls: []agent.ToolCall{edit, bash, write, mcp, plain}},
	}
	ask := func(sugg ...string) *permission.Decision {
		d := &permission.Decision{Behavior: permission.Ask, Message: "Permission required", Reason: "mode default"}
		for _, s := range sugg {
			d.Suggestions = append(d.Suggestions, rule(t, s))
		}
		return d
	}
	yes, no := true, false
	r.Waiting = []agent.Waiting{
		{Call: edit, Status: tool.StatusAsking, Decision: ask("Edit(notes.txt)")},
		{Call: bash, Status: tool.StatusAsking, Decision: ask("Bash(rm -rf build)")},
		{Call: write, Status: tool.StatusAsking, Decision: ask()},
		{Call: mcp, Status: tool.StatusAsking, Decision: ask("mcp__fs__read_file"),
			Title: "Read <b>a</b> file\x1b]0;pwned\x07", Annotations: &tool.Annotations{ReadOnlyHint: &yes, IdempotentHint: &yes, OpenWorldHint: &no}},
		{Call: plain, Status: tool.StatusAsking, Decision: ask("mcp__fs__stat")},
	}
	return r
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	f := &fixture{dir: t.TempDir(), project: t.TempDir(), outside: t.TempDir()}
	os.WriteFile(filepath.Join(f.project, "notes.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	os.WriteFile(filepath.Join(f.outside, "secret.txt"), []byte("the secret\n"), 0o644)
	if err := host.SaveRun(filepath.Join(f.dir, "run.json"), pausedRun(t, f.project, f.outside)); err != nil {
		t.Fatal(err)
	}
	// Not run files: left out of the list.
	os.WriteFile(filepath.Join(f.dir, "package.json"), []byte(`{"name":"x"}`), 0o644)
	os.WriteFile(filepath.Join(f.dir, "broken.json"), []byte(`{"messages":[`), 0o644)
	var err error
	// The command is never started by these tests (answers are tested
	// with the real command line in internal/cli).
	f.local, err = NewLocal(f.dir, &LocalOptions{Command: []string{"/nonexistent/toolscope"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.local.Close() })
	f.console, err = New(&Options{Sources: []Source{f.local}, Tokens: map[string]string{"alice": testToken}, LogFile: filepath.Join(f.dir, LogName)})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = httptest.NewServer(f.console)
	t.Cleanup(func() { f.console.Close(); f.srv.Close() })
	return f
}

// client is a browser-like client signed in through the token URL.
func (f *fixture) client(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(f.srv.URL + "/?token=" + testToken)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Query().Get("token") != "" {
		t.Fatalf("signing in: %d, landed on %s", resp.StatusCode, resp.Request.URL)
	}
	return c
}

func get(t *testing.T, c *http.Client, u string) (int, string, http.Header) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

func (f *fixture) csrf(t *testing.T, c *http.Client) string {
	_, body, _ := get(t, c, f.srv.URL+"/runs/local/run.json")
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the run page has no form token")
	}
	return m[1]
}

func TestListShowsRunFilesOnly(t *testing.T) {
	f := newFixture(t)
	code, body, h := get(t, f.client(t), f.srv.URL+"/")
	if code != 200 {
		t.Fatalf("list: %d %s", code, body)
	}
	for _, want := range []string{`href="/runs/local/run.json"`, "waiting", "openai:scripted", f.project, "default"} {
		if !strings.Contains(body, want) {
			t.Errorf("the run list lacks %q", want)
		}
	}
	for _, not := range []string{"package.json", "broken.json"} {
		if strings.Contains(body, not) {
			t.Errorf("the run list shows %s, which is not a run file", not)
		}
	}
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}
	if h.Get("X-Frame-Options") != "DENY" {
		t.Errorf("X-Frame-Options = %q", h.Get("X-Frame-Options"))
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, " on") && regexp.MustCompile(`\son[a-z]+=`).MatchString(body) {
		t.Error("the page has an inline script or event handler")
	}
}

func TestRunPageShowsExactlyWhatWillRun(t *testing.T) {
	f := newFixture(t)
	code, body, _ := get(t, f.client(t), f.srv.URL+"/runs/local/run.json")
	if code != 200 {
		t.Fatalf("run page: %d %s", code, body)
	}
	if strings.Contains(body, "\x1b") {
		t.Error("a raw escape character reached the page")
	}
	body = html.UnescapeString(body)
	for _, want := range []string{
		"tidy the notes", "Reading first.",
		// The long result is cut, and says so, with the link to all of it.
		"more bytes", `/runs/local/run.json/result/c0`,
		// The Edit as a diff against the disk, the escape spelled out.
		"-two", `+TWO\u001b[2J`, "+++ " + filepath.Join(f.project, "notes.txt"),
		// The Bash command and each part's verdict.
		"ls && rm -rf build", "read-only", "rm -rf build",
		// The input as JSON, without Go's \u0026 for &.
		`"command": "ls && rm -rf build"`,
		// The Write outside the working directories: not read.
		"outside the run's working directories",
		// The MCP call's server and tool.
		"MCP server <b class=\"mono\">fs</b>", "read_file",
		// "always" shows its rules before they are added.
		"Edit(notes.txt)", "Bash(rm -rf build)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the run page lacks %q", want)
		}
	}
	if strings.Contains(body, "the secret") {
		t.Error("the run page shows a file outside the run's working directories")
	}
	if strings.Contains(body, "THE END") {
		t.Error("the long result is not cut")
	}
	_, all, _ := get(t, f.client(t), f.srv.URL+"/runs/local/run.json/result/c0")
	if !strings.Contains(all, "THE END") || strings.Count(all, "line of the file") != 500 {
		t.Error("show all does not show the whole result")
	}
}

// article is the part of a run page that shows the call id.
func article(t *testing.T, page, id string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, ` id="call-`+id+`"`)
	if !ok {
		t.Fatalf("the run page has no call %s", id)
	}
	a, _, _ := strings.Cut(rest, "</article>")
	return a
}

// An MCP call shows its server and tool, and what the run file recorded
// of the tool: its title and each hint its server declares, said to be
// the server's unchecked claims, escaped; a tool with none says so.
func TestRunPageShowsMCPToolHints(t *testing.T) {
	f := newFixture(t)
	_, body, _ := get(t, f.client(t), f.srv.URL+"/runs/local/run.json")
	if strings.ContainsAny(body, "\x1b\x07") || strings.Contains(body, "<b>a</b>") {
		t.Error("the tool's title reached the page unescaped")
	}
	hinted := article(t, body, "c4")
	for _, want := range []string{
		`MCP server <b class="mono">fs</b>, tool <b class="mono">read_file</b>, titled <b class="title">Read &lt;b&gt;a&lt;/b&gt; file\u001b]0;pwned\u0007</b> by its server.`,
		"Hints the server declares about its own tool. Nothing checks them",
		`"trustHints": true`,
		"<li><b>read-only</b>: yes", "<li><b>idempotent</b>: yes", "<li><b>open-world</b>: no",
	} {
		if !strings.Contains(hinted, want) {
			t.Errorf("the MCP call with hints lacks %q:\n%s", want, hinted)
		}
	}
	if strings.Contains(hinted, "destructive") || strings.Contains(hinted, "records no annotations") {
		t.Errorf("the MCP call shows a hint its server did not declare:\n%s", hinted)
	}
	plain := article(t, body, "c5")
	if !strings.Contains(plain, `tool <b class="mono">stat</b>.`) || !strings.Contains(plain, "The run file records no annotations for this tool") ||
		strings.Contains(plain, "titled") || strings.Contains(plain, `class="hints"`) {
		t.Errorf("the MCP call without annotations:\n%s", plain)
	}
}

func TestFileOnlyInsideWorkingDirs(t *testing.T) {
	f := newFixture(t)
	c := f.client(t)
	code, body, _ := get(t, c, f.srv.URL+"/runs/local/run.json/file?path="+url.QueryEscape(filepath.Join(f.project, "notes.txt")))
	if code != 200 || !strings.Contains(body, "three") {
		t.Fatalf("a file of the project: %d", code)
	}
	// A symbolic link in the project to a file outside it, a path with
	// .., and a path outside: all refused.
	os.Symlink(filepath.Join(f.outside, "secret.txt"), filepath.Join(f.project, "link.txt"))
	os.Symlink(f.outside, filepath.Join(f.project, "linkdir"))
	for _, p := range []string{
		filepath.Join(f.outside, "secret.txt"),
		filepath.Join(f.project, "link.txt"),
		filepath.Join(f.project, "linkdir", "secret.txt"),
		f.project + "/../" + filepath.Base(f.outside) + "/secret.txt",
		"secret.txt", "/etc/passwd",
	} {
		code, body, _ := get(t, c, f.srv.URL+"/runs/local/run.json/file?path="+url.QueryEscape(p))
		if code != http.StatusForbidden || strings.Contains(body, "the secret") {
			t.Errorf("%s: %d, want 403 and nothing of the file", p, code)
		}
	}
}

func TestNoTokenRefused(t *testing.T) {
	f := newFixture(t)
	for _, u := range []string{"/", "/runs/local/run.json", "/runs/local/run.json/file?path=/etc/passwd", "/events", "/static/console.js", "/?token=wrong" + testToken} {
		code, body, h := get(t, http.DefaultClient, f.srv.URL+u)
		if code != http.StatusUnauthorized || strings.Contains(body, "tidy the notes") {
			t.Errorf("GET %s without the token: %d", u, code)
		}
		if h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: no X-Frame-Options on the refusal", u)
		}
	}
	resp, err := http.PostForm(f.srv.URL+"/runs/local/run.json/answer", url.Values{"call": {"c1"}, "action": {"approve"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST without the token: %d", resp.StatusCode)
	}
	// A bearer token works for clients that are not browsers.
	req, _ := http.NewRequest("GET", f.srv.URL+"/", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with the bearer token: %d", resp.StatusCode)
	}
}

func TestCookieIsHttpOnlyStrict(t *testing.T) {
	f := newFixture(t)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(f.srv.URL + "/runs/local/run.json?token=" + testToken)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/runs/local/run.json" {
		t.Errorf("the token URL answers %d to %q; want a redirect without the token", resp.StatusCode, resp.Header.Get("Location"))
	}
	ck := resp.Cookies()
	if len(ck) != 1 || !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie: %+v", ck)
	}
}

func TestForeignHostRefused(t *testing.T) {
	f := newFixture(t)
	req, _ := http.NewRequest("GET", f.srv.URL+"/?token="+testToken, nil)
	req.Host = "attacker.example:80"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("a rebound host name: %d", resp.StatusCode)
	}
}

// post answers with the form token and the headers a browser sends.
func (f *fixture) post(t *testing.T, c *http.Client, form url.Values, hdr map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", f.srv.URL+"/runs/local/run.json/answer", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestAnswerChecks(t *testing.T) {
	f := newFixture(t)
	c := f.client(t)
	tok := f.csrf(t, c)
	before, _ := os.ReadFile(filepath.Join(f.dir, "run.json"))
	for _, tc := range []struct {
		name string
		form url.Values
		hdr  map[string]string
		code int
	}{
		{"cross-origin", url.Values{"csrf": {tok}, "call": {"c1"}, "action": {"approve"}}, map[string]string{"Origin": "http://evil.example"}, 403},
		{"null origin", url.Values{"csrf": {tok}, "call": {"c1"}, "action": {"approve"}}, map[string]string{"Origin": "null"}, 403},
		{"cross-site fetch", url.Values{"csrf": {tok}, "call": {"c1"}, "action": {"approve"}}, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site other port", url.Values{"csrf": {tok}, "call": {"c1"}, "action": {"approve"}}, map[string]string{"Origin": "http://127.0.0.1:1", "Sec-Fetch-Site": "same-site"}, 403},
		{"no form token", url.Values{"call": {"c1"}, "action": {"approve"}}, map[string]string{"Origin": f.srv.URL}, 403},
		{"wrong form token", url.Values{"csrf": {strings.Repeat("0", 64)}, "call": {"c1"}, "action": {"approve"}}, nil, 403},
		{"the access token as form token", url.Values{"csrf": {testToken}, "call": {"c1"}, "action": {"approve"}}, nil, 403},
		{"no such call", url.Values{"csrf": {tok}, "call": {"c9"}, "action": {"approve"}}, map[string]string{"Origin": f.srv.URL}, 409},
		{"unknown action", url.Values{"csrf": {tok}, "call": {"c1"}, "action": {"maybe"}}, nil, 400},
		{"edited input not an object", url.Values{"csrf": {tok}, "call": {"c1"}, "action": {"edit"}, "input": {`["x"]`}}, nil, 400},
		{"edited input with a duplicate key", url.Values{"csrf": {tok}, "call": {"c1"}, "action": {"edit"}, "input": {`{"file_path":"a","file_path":"b"}`}}, nil, 400},
		{"always without rules", url.Values{"csrf": {tok}, "call": {"c3"}, "action": {"always"}}, nil, 400},
		{"an input other than the one waiting", url.Values{"csrf": {tok}, "call": {"c1"}, "action": {"approve"}, "input_sha256": {live.InputSHA256([]byte(`{"command":"ls"}`))}}, nil, 409},
	} {
		code, body := f.post(t, c, tc.form, tc.hdr)
		if code != tc.code {
			t.Errorf("%s: %d, want %d (%s)", tc.name, code, tc.code, body)
		}
	}
	after, _ := os.ReadFile(filepath.Join(f.dir, "run.json"))
	if string(before) != string(after) {
		t.Error("a refused answer changed the run file")
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, LogName)); len(b) != 0 {
		t.Errorf("a refused answer was logged: %s", b)
	}
}

func TestEvents(t *testing.T) {
	f := newFixture(t)
	c := f.client(t)
	resp, err := c.Get(f.srv.URL + "/events?v=old")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	buf := make([]byte, 4096)
	var got strings.Builder
	for !strings.Contains(got.String(), "event: change") {
		n, err := resp.Body.Read(buf)
		if err != nil {
			t.Fatalf("the stream ended before a change: %v (%q)", err, got.String())
		}
		got.Write(buf[:n])
	}
	// A run file that changes is another change.
	v, _ := f.local.Version(t.Context())
	os.WriteFile(filepath.Join(f.dir, "run2.json"), []byte("{}"), 0o644)
	if v2, _ := f.local.Version(t.Context()); v2 == v {
		t.Error("a new run file left the version as it was")
	}
}

// changingSource is the run files, one of which changes while a run's
// page reads them (another run file appears).
type changingSource struct {
	*Local
	dir string
}

func (c changingSource) Load(ctx context.Context, id string) (*Run, error) {
	r, err := c.Local.Load(ctx, id)
	os.WriteFile(filepath.Join(c.dir, "run2.json"), []byte("{}"), 0o644)
	return r, err
}

// A change while a page is made is not lost: the page's version is the
// one before it, so the page's event stream says "change" at once and the
// page is loaded again.
func TestEventsAfterAChangeDuringThePage(t *testing.T) {
	f := newFixture(t)
	srv, err := New(&Options{Sources: []Source{changingSource{f.local, f.dir}}, Tokens: map[string]string{"alice": testToken}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer func() { srv.Close(); hs.Close() }()
	f.srv = hs
	c := f.client(t)
	_, body, _ := get(t, c, hs.URL+"/runs/local/run.json")
	m := regexp.MustCompile(`data-events="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the run page names no event stream:\n%s", body)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", hs.URL+html.UnescapeString(m[1]), nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 4096)
	var got strings.Builder
	for !strings.Contains(got.String(), "event: change") {
		n, err := resp.Body.Read(buf)
		if err != nil {
			t.Fatalf("the page's stream said no change (%v): the page stays behind the run file that changed while it was made (%q)", err, got.String())
		}
		got.Write(buf[:n])
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	f := newFixture(t)
	for _, o := range []*Options{nil, {}, {Sources: []Source{f.local}}, {Sources: []Source{f.local}, Tokens: map[string]string{"a": "short"}},
		{Sources: []Source{f.local, f.local}, Tokens: map[string]string{"a": testToken}}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) took it", o)
		}
	}
	if _, err := NewLocal(filepath.Join(f.dir, "none"), nil); err == nil || !strings.Contains(err.Error(), "--runs") {
		t.Errorf("NewLocal of a missing directory: %v", err)
	}
}

func TestEditable(t *testing.T) {
	in := json.RawMessage("{\"command\": \"echo \u202ehi\u0085 \U0001F600 é\\u0007\"}")
	got := editable(in)
	if strings.ContainsAny(got, "\u202e\u0085") {
		t.Errorf("editable(%q) = %q keeps a hidden character", in, got)
	}
	var a, b any
	if json.Unmarshal(in, &a) != nil || json.Unmarshal([]byte(got), &b) != nil {
		t.Fatalf("editable(%q) = %q is not JSON", in, got)
	}
	if ja, _ := json.Marshal(a); string(ja) != func() string { jb, _ := json.Marshal(b); return string(jb) }() {
		t.Errorf("editable changed the value: %q", got)
	}
}

func FuzzEditable(f *testing.F) {
	f.Add([]byte(`{"a":"b\u0000"}`))
	f.Add([]byte("{\"a\":\"\u202e\U0001F600\"}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var a any
		if json.Unmarshal(in, &a) != nil {
			return
		}
		got := editable(in)
		var b any
		if err := json.Unmarshal([]byte(got), &b); err != nil {
			t.Fatalf("editable(%q) = %q: %v", in, got, err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("editable(%q) = %q changes the value", in, got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
				t.Fatalf("editable(%q) = %q keeps %U", in, got, r)
			}
		}
	})
}

func TestPlainHTMLChars(t *testing.T) {
	for in, want := range map[string]string{
		`{"command":"a \u003e\u003e b \u0026\u0026 c \u003C"}`: `{"command":"a >> b && c <"}`,
		`{"command":"\\u0026 stays"}`:                          `{"command":"\\u0026 stays"}`,
		`{"a":"\u0007\u2028"}`:                                 `{"a":"\u0007\u2028"}`,
		`{"a":"\\"}`:                                           `{"a":"\\"}`,
	} {
		if got := string(plainHTMLChars([]byte(in))); got != want {
			t.Errorf("plainHTMLChars(%s) = %s, want %s", in, got, want)
		}
	}
}

func FuzzPlainHTMLChars(f *testing.F) {
	f.Add([]byte(`{"c":"a \u003e\u003e b \\u0026"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var a any
		if json.Unmarshal(in, &a) != nil {
			return
		}
		got := plainHTMLChars(in)
		var b any
		if err := json.Unmarshal(got, &b); err != nil {
			t.Fatalf("plainHTMLChars(%q) = %q: %v", in, got, err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("plainHTMLChars(%q) = %q changes the value", in, got)
		}
	})
}

// Close interrupts a continuation still running (its whole process
// group) and waits for it: nothing is left behind.
func TestCloseEndsContinuations(t *testing.T) {
	f := newFixture(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	l, err := NewLocal(f.dir, &LocalOptions{Command: []string{"/bin/sh", "-c", `sleep 300 & echo $! > "$PIDFILE"; wait`, "sh"}, Env: []string{"PIDFILE=" + pidFile}, Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan Outcome, 1)
	if err := l.Answer(t.Context(), "run.json", Answer{CallID: "c1", Approve: true}, func(o Outcome) { ended <- o }); err != nil {
		t.Fatal(err)
	}
	if err := l.Answer(t.Context(), "run.json", Answer{CallID: "c2", Approve: true}, nil); !errors.Is(err, ErrBusy) {
		t.Errorf("a second answer while the first runs: %v, want ErrBusy", err)
	}
	var pid int
	for pid == 0 {
		b, _ := os.ReadFile(pidFile)
		fmt.Sscan(string(b), &pid)
		time.Sleep(10 * time.Millisecond)
	}
	l.Close()
	select {
	case o := <-ended:
		if o.Exit == 0 {
			t.Errorf("the interrupted continuation exited 0")
		}
	default:
		t.Fatal("Close returned before the continuation ended")
	}
	// Killed, it is gone once its new parent reaps it (a zombie until then).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the continuation's child %d outlived Close: %s", pid, b)
		}
	}
}
