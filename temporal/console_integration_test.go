package temporal_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/console"
	"github.com/toolscope/toolscope/temporal"
	"github.com/toolscope/toolscope/temporal/tconsole"
)

const consoleToken = "0123456789abcdef0123456789abcdef"

var consoleCSRF = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// The web console shows a durable run that waits on the dev server, with
// the call that will run; an approval from it goes to the workflow as
// toolscope approve's does, and the run goes on; a denial's message
// reaches the model. A sub-agent's run (a workflow id with slashes) is
// listed and answered too.
func TestConsoleTemporalRuns(t *testing.T) {
	addr, model, dir, q := fixture(t)
	model.script("append a line",
		step{calls: [][3]string{{"c1", "Bash", `{"command":"echo ran >> ran.txt"}`}}},
		step{text: "Appended."})
	model.script("remove the file",
		step{calls: [][3]string{{"c1", "Bash", `{"command":"rm keep.txt"}`}}},
		step{fn: func(req chatRequest) step { return step{text: "Model read: " + req.result("c1")} }})
	writeFile(t, dir, "keep.txt", "keep\n")
	w := startWorker(t, dir, q, model, nil)
	start := func(prompt string) string {
		out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", prompt)
		if code != 3 {
			t.Fatalf("run: exit %d\n%s%s\nworker: %s", code, out, errOut, w.logs)
		}
		return firstLine(out)
	}
	approveID, denyID := start("append a line"), start("remove the file")

	c := dial(t)
	srv, err := console.New(&console.Options{Sources: []console.Source{tconsole.New(c, "default")}, Tokens: map[string]string{"default": consoleToken}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	get := func(path string) string {
		t.Helper()
		resp, err := hc.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d\n%s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	list := get("/?token=" + consoleToken)
	for _, id := range []string{approveID, denyID} {
		if !strings.Contains(list, id) {
			t.Fatalf("the run list lacks %s:\n%s", id, list)
		}
	}
	answer := func(id string, form url.Values) {
		t.Helper()
		page := get("/runs/temporal/" + tconsole.ID(id))
		if !strings.Contains(page, "c1") || !strings.Contains(page, "Bash") {
			t.Fatalf("the run page of %s does not show its waiting call:\n%s", id, page)
		}
		m := consoleCSRF.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no form token on the page of %s", id)
		}
		form.Set("csrf", m[1])
		form.Set("call", "c1")
		req, _ := http.NewRequest("POST", hs.URL+"/runs/temporal/"+tconsole.ID(id)+"/answer", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", hs.URL)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 400 {
			t.Fatalf("answering %s: %d\n%s", id, resp.StatusCode, b)
		}
	}
	page := get("/runs/temporal/" + tconsole.ID(approveID))
	if !strings.Contains(page, "echo ran &gt;&gt; ran.txt") {
		t.Fatalf("the waiting command is not shown whole:\n%s", page)
	}
	if !strings.Contains(page, "<dt>Project</dt><dd class=\"mono\">"+dir+"</dd>") {
		t.Fatalf("the run page does not name the worker's project %s (where the waiting calls' files are shown from):\n%s", dir, page)
	}
	answer(approveID, url.Values{"action": {"approve"}})
	answer(denyID, url.Values{"action": {"deny"}, "message": {"keep it, it is the only copy"}})
	ended := func(id string) *temporal.Status {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		st, err := temporal.Wait(ctx, c, id, 1)
		if err != nil || !st.Closed() || st.Output == nil {
			t.Fatalf("run %s after the console's answer: %+v %v\nworker: %s", id, st, err, w.logs)
		}
		return st
	}
	if st := ended(approveID); st.Output.Answer != "Appended." || readFile(t, dir, "ran.txt") != "ran\n" {
		t.Errorf("approved run: %q, ran.txt %q", st.Output.Answer, readFile(t, dir, "ran.txt"))
	}
	if st := ended(denyID); !strings.Contains(st.Output.Answer, "keep it, it is the only copy") || readFile(t, dir, "keep.txt") != "keep\n" {
		t.Errorf("denied run: %q", st.Output.Answer)
	}
}

func TestConsoleIDs(t *testing.T) {
	for _, wf := range []string{"plain", "a/agent/p1", "x~y/z", "~s", "/", "~~~"} {
		id := tconsole.ID(wf)
		if strings.Contains(id, "/") {
			t.Errorf("ID(%q) = %q has a slash", wf, id)
		}
		back, err := tconsole.WorkflowID(id)
		if err != nil || back != wf {
			t.Errorf("WorkflowID(ID(%q)) = %q, %v", wf, back, err)
		}
	}
	for _, bad := range []string{"~", "a~x", "~S"} {
		if _, err := tconsole.WorkflowID(bad); err == nil {
			t.Errorf("WorkflowID(%q) accepted", bad)
		}
	}
}
