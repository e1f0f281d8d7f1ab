// Package live is the channel between toolscope console and the runs that
// live in another process's memory: a chat's conversation, a serve's MCP
// sessions. Such a process starts a [Hub]: a loopback HTTP endpoint that
// shows its runs and takes the console's answers to their waiting calls,
// registered by a file in the console's runs directory
// (DIR/.toolscope-live/PID-RANDOM.json). The console reads the registrations with
// a [Client].
//
// Every request and every response is authenticated with an HMAC under
// the user's console key (host.ConsoleKey, derived from the key that seals
// toolscope's state files, which the analyser and the sandbox keep from
// the agent's commands): a command the agent runs can reach the port but
// cannot answer its own approvals, cannot pose as the process to the
// console, and cannot replay an answer (each request carries its time and
// a nonce the hub remembers). An answer names the exact input it approves
// (its SHA-256), so it counts only for the call the person was shown.
//
// The registrations need no protection of their own: one without the
// key's MAC is ignored, and one removed only hides its process from the
// console (the chat still asks at its terminal; a serve's call waits
// until its client gives up).
package live

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/internal/textfile"
	"github.com/toolscope/toolscope/tool"
)

// DirName is the directory of the registrations, in the console's runs
// directory.
const DirName = ".toolscope-live"

// Header names of the authentication.
const (
	hdrTime  = "X-Toolscope-Time"
	hdrNonce = "X-Toolscope-Nonce"
	hdrMAC   = "X-Toolscope-Mac"
)

// skew bounds how far a request's time may be from the hub's clock.
const skew = time.Minute

// maxBody bounds a request body (an answer with an edited input).
const maxBody = 8 << 20

// Info is a run as the run list shows it.
type Info struct {
	ID      string `json:"id"`
	Command string `json:"command"` // "chat" or "serve"
	// File is the run file (its name, in the hub's directory) of a chat
	// started with --state: the console shows that file, answered through
	// the hub.
	File    string    `json:"file,omitempty"`
	Project string    `json:"project,omitempty"`
	Mode    string    `json:"mode,omitempty"`
	Model   string    `json:"model,omitempty"`
	Waiting int       `json:"waiting"` // calls that wait for an answer from the console now
	Updated time.Time `json:"updated"`
}

// Snapshot is a run, whole: its info, its conversation (its calls, for a
// serve session) and the directories whose files the console may show.
type Snapshot struct {
	Info
	Run         json.RawMessage `json:"run"` // an agent.Run
	WorkingDirs []string        `json:"working_dirs,omitempty"`
	// Answerable are the ids of the waiting calls the console may answer
	// now.
	Answerable []string `json:"answerable,omitempty"`
}

// Answer is the console's answer to one waiting call.
type Answer struct {
	Run  string `json:"run"`
	Call string `json:"call"`
	// InputSHA256 is the hex SHA-256 of the call's input as the console
	// showed it: the answer counts only for that input.
	InputSHA256 string          `json:"input_sha256"`
	Approve     bool            `json:"approve"`
	Input       json.RawMessage `json:"input,omitempty"` // an edited input
	Always      bool            `json:"always,omitempty"`
	Message     string          `json:"message,omitempty"`
	// By names who answered (the console's token name).
	By string `json:"by,omitempty"`
}

// registration is the file a hub leaves in the runs directory.
type registration struct {
	Addr    string    `json:"addr"`
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Started time.Time `json:"started"`
	MAC     string    `json:"mac"` // of the fields above
}

func (r registration) mac(key []byte) string {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "toolscope live registration v1\n%s\n%d\n%s\n%d\n", r.Addr, r.PID, r.Command, r.Started.UnixNano())
	return hex.EncodeToString(m.Sum(nil))
}

// requestMAC is what a request's MAC covers.
func requestMAC(key []byte, method, path, ts, nonce string, body []byte) string {
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "toolscope live request v1\n%s\n%s\n%s\n%s\n%x\n", method, path, ts, nonce, sum)
	return hex.EncodeToString(m.Sum(nil))
}

// responseMAC binds a response to the request it answers (its nonce).
func responseMAC(key []byte, nonce string, status int, body []byte) string {
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "toolscope live response v1\n%s\n%d\n%x\n", nonce, status, sum)
	return hex.EncodeToString(m.Sum(nil))
}

// InputSHA256 is the hex SHA-256 of a call's input, as an Answer names
// it: of the input compacted (a run file keeps it indented, the process
// that holds the run compact; a value is the same value either way).
func InputSHA256(input []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, input) == nil {
		input = b.Bytes()
	}
	s := sha256.Sum256(input)
	return hex.EncodeToString(s[:])
}

// A Hub is one process's live runs, served to the console.
type Hub struct {
	key     []byte
	command string
	ln      net.Listener
	srv     *http.Server
	regPath string

	mu     sync.Mutex
	runs   map[string]*Run
	order  []string
	ver    uint64
	nonces map[string]time.Time
	closed bool
	done   chan struct{}
}

// Run is one run of a hub.
type Run struct {
	hub  *Hub
	id   string
	info Info
	dirs []string
	snap json.RawMessage
	// source, when set, makes the run's JSON when the console asks for it
	// (SetSource): a run that changes at every call is not encoded at
	// every call.
	source func() ([]byte, error)
	// waits are the calls waiting for the console, by call id.
	waits map[string]*wait
	// answered are the channels of the calls the console answered.
	answered map[string]chan Answer
}

type wait struct {
	sha string
	ch  chan Answer // buffered 1; filled once
}

// Start starts a hub for command ("chat", "serve") with the console key
// key, listening on loopback, and registers it in dir (the console's runs
// directory). Close it to unregister.
func Start(dir, command string, key []byte) (*Hub, error) {
	if len(key) < 32 {
		return nil, errors.New("live: the console key is too short")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--console %s is not a directory (%v): give the directory toolscope console watches (its --runs)", dir, err)
	}
	regDir := filepath.Join(abs, DirName)
	if err := os.Mkdir(regDir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("live: making %s: %w", regDir, err)
	}
	if st, err := os.Lstat(regDir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("live: %s is not a directory", regDir)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("live: listening on loopback: %w", err)
	}
	h := &Hub{key: key, command: command, ln: ln, runs: map[string]*Run{}, nonces: map[string]time.Time{}, done: make(chan struct{})}
	reg := registration{Addr: ln.Addr().String(), PID: os.Getpid(), Command: command, Started: time.Now().UTC()}
	reg.MAC = reg.mac(key)
	b, _ := json.Marshal(reg)
	// PID-RANDOM: one process may hold several hubs (a test's chat and
	// serve), and a PID is reused.
	rb := make([]byte, 4)
	rand.Read(rb)
	h.regPath = filepath.Join(regDir, strconv.Itoa(reg.PID)+"-"+hex.EncodeToString(rb)+".json")
	if err := textfile.WriteAtomic(h.regPath, b, &textfile.WriteOptions{Perm: 0o600}); err != nil {
		ln.Close()
		return nil, fmt.Errorf("live: registering in %s: %w", regDir, err)
	}
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go h.srv.Serve(ln)
	return h, nil
}

// Addr is the hub's address.
func (h *Hub) Addr() string { return h.ln.Addr().String() }

// Done is closed when the hub is: no answer comes from then on.
func (h *Hub) Done() <-chan struct{} { return h.done }

// Close unregisters the hub and stops serving; Done is closed.
func (h *Hub) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	close(h.done)
	h.mu.Unlock()
	os.Remove(h.regPath)
	return h.srv.Close()
}

// Add adds a run (its id must be unique in the hub) with its info and the
// working directories whose files the console may show.
func (h *Hub) Add(id string, info Info, dirs []string) *Run {
	if !validID(id) {
		panic("live: a run id must be 1 to 128 of letters, digits and . _ -, got " + strconv.Quote(id))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	info.ID, info.Command = id, h.command
	info.Updated = time.Now()
	r := &Run{hub: h, id: id, info: info, dirs: slices.Clone(dirs), waits: map[string]*wait{}, answered: map[string]chan Answer{}, snap: json.RawMessage(`{"messages":[]}`)}
	h.runs[id] = r
	h.order = append(h.order, id)
	h.ver++
	return r
}

// ID is the run's id in its hub.
func (r *Run) ID() string { return r.id }

// Withdraw closes the waiting call id to the console's answers (it was
// answered elsewhere); false when the console's answer came first (it is
// in the call's channel).
func (r *Run) Withdraw(id string) bool {
	h := r.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	w := r.waits[id]
	if w == nil {
		return len(r.answered[id]) == 0
	}
	delete(r.waits, id)
	r.info.Waiting = len(r.waits)
	h.ver++
	return true
}

// Remove removes the run.
func (r *Run) Remove() {
	h := r.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.runs[r.id] == r {
		delete(h.runs, r.id)
		h.order = slices.DeleteFunc(h.order, func(s string) bool { return s == r.id })
		h.ver++
	}
}

// Publish shows ar as the run now (it is marshalled at once: the caller
// may change ar afterwards); mode and model update the info when not "".
func (r *Run) Publish(ar *agent.Run) {
	b, err := json.Marshal(ar)
	if err != nil {
		return
	}
	h := r.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	r.snap = b
	if ar.State != nil {
		if m := ar.State.Permissions().Mode; m != "" {
			r.info.Mode = string(m)
		}
	}
	r.info.Updated = time.Now()
	h.ver++
}

// SetSource has the run's JSON made by src, called (without the hub's
// lock) each time the console reads the run; Changed says when it
// changed.
func (r *Run) SetSource(src func() ([]byte, error)) {
	h := r.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	r.source = src
	h.ver++
}

// Changed says that the run (its source's JSON) changed.
func (r *Run) Changed() {
	h := r.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	r.info.Updated = time.Now()
	h.ver++
}

// Expect opens the waiting calls of the published run to the console's
// answers, each for its exact input. The returned channels (by call id)
// each receive at most one answer; done closes them to answers (those not
// answered yet stay unanswered) and must be called.
func (r *Run) Expect(calls []agent.ToolCall) (answers map[string]<-chan Answer, done func()) {
	h := r.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	answers = map[string]<-chan Answer{}
	var mine []string
	for _, c := range calls {
		w := &wait{sha: InputSHA256(c.Input), ch: make(chan Answer, 1)}
		r.waits[c.ID] = w
		answers[c.ID] = w.ch
		mine = append(mine, c.ID)
	}
	r.info.Waiting = len(r.waits)
	h.ver++
	return answers, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, id := range mine {
			delete(r.waits, id)
			delete(r.answered, id)
		}
		r.info.Waiting = len(r.waits)
		h.ver++
	}
}

// ServeHTTP serves the console: GET /v1/version, GET /v1/runs, GET
// /v1/runs/ID, POST /v1/answer; every request authenticated.
func (h *Hub) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if len(req.Header.Get(hdrMAC)) != 64 || req.Header.Get(hdrTime) == "" {
		// Not even shaped like the console's: not read any further.
		http.Error(w, "not authenticated: requests to a live toolscope endpoint carry an HMAC under the user's console key", http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	nonce := req.Header.Get(hdrNonce)
	if !h.authentic(req, body, nonce) {
		// Unauthenticated: no MAC'd answer (the caller has no key to check one).
		http.Error(w, "not authenticated: requests to a live toolscope endpoint carry an HMAC under the user's console key", http.StatusUnauthorized)
		return
	}
	status, out := h.route(req, body)
	b, _ := json.Marshal(out)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(hdrMAC, responseMAC(h.key, nonce, status, b))
	w.WriteHeader(status)
	w.Write(b)
}

// authentic checks a request's MAC, time and nonce (and remembers the
// nonce).
func (h *Hub) authentic(req *http.Request, body []byte, nonce string) bool {
	ts := req.Header.Get(hdrTime)
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(nonce) < 16 || len(nonce) > 64 {
		return false
	}
	at := time.Unix(sec, 0)
	if d := time.Since(at); d > skew || d < -skew {
		return false
	}
	want := requestMAC(h.key, req.Method, req.URL.EscapedPath(), ts, nonce, body)
	if !hmac.Equal([]byte(want), []byte(req.Header.Get(hdrMAC))) {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	for n, t := range h.nonces {
		if now.Sub(t) > 3*skew {
			delete(h.nonces, n)
		}
	}
	if _, seen := h.nonces[nonce]; seen {
		return false
	}
	h.nonces[nonce] = now
	return true
}

type errorBody struct {
	Error string `json:"error"`
}

func (h *Hub) route(req *http.Request, body []byte) (int, any) {
	path := req.URL.EscapedPath()
	switch {
	case req.Method == http.MethodGet && path == "/v1/version":
		h.mu.Lock()
		defer h.mu.Unlock()
		return http.StatusOK, map[string]string{"version": strconv.FormatUint(h.ver, 10)}
	case req.Method == http.MethodGet && path == "/v1/runs":
		h.mu.Lock()
		defer h.mu.Unlock()
		out := []Info{}
		for _, id := range h.order {
			out = append(out, h.runs[id].info)
		}
		return http.StatusOK, out
	case req.Method == http.MethodGet && strings.HasPrefix(path, "/v1/runs/"):
		id := strings.TrimPrefix(path, "/v1/runs/")
		h.mu.Lock()
		r := h.runs[id]
		if r == nil {
			h.mu.Unlock()
			return http.StatusNotFound, errorBody{"no such run"}
		}
		s := Snapshot{Info: r.info, Run: r.snap, WorkingDirs: r.dirs}
		for cid := range r.waits {
			s.Answerable = append(s.Answerable, cid)
		}
		src := r.source
		h.mu.Unlock()
		slices.Sort(s.Answerable)
		if src != nil {
			b, err := src()
			if err != nil {
				return http.StatusInternalServerError, errorBody{"the run cannot be encoded: " + err.Error()}
			}
			s.Run = b
		}
		return http.StatusOK, s
	case req.Method == http.MethodPost && path == "/v1/answer":
		var a Answer
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return http.StatusBadRequest, errorBody{"the answer is not valid: " + err.Error()}
		}
		return h.answer(a)
	}
	return http.StatusNotFound, errorBody{"no such endpoint"}
}

func (h *Hub) answer(a Answer) (int, any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.runs[a.Run]
	if r == nil {
		return http.StatusNotFound, errorBody{"no such run (it has ended)"}
	}
	w := r.waits[a.Call]
	if w == nil {
		return http.StatusConflict, errorBody{fmt.Sprintf("no call %q waits for the console's answer in this run (it may have been answered already)", a.Call)}
	}
	if !hmac.Equal([]byte(w.sha), []byte(a.InputSHA256)) {
		return http.StatusConflict, errorBody{fmt.Sprintf("call %q waits with another input than the one answered; reload and answer what is shown now", a.Call)}
	}
	if len(a.Input) > 0 && !json.Valid(a.Input) {
		return http.StatusBadRequest, errorBody{"the edited input is not valid JSON"}
	}
	delete(r.waits, a.Call) // once
	r.answered[a.Call] = w.ch
	r.info.Waiting = len(r.waits)
	h.ver++
	w.ch <- a
	return http.StatusOK, map[string]bool{"ok": true}
}

// Waiting reports the calls of r that wait with the status asking in ar,
// as Expect takes them.
func Waiting(ar *agent.Run) []agent.ToolCall {
	var out []agent.ToolCall
	for _, w := range ar.Waiting {
		if w.Status == tool.StatusAsking {
			out = append(out, w.Call)
		}
	}
	return out
}

// validID reports a run id that is safe in a URL path and a file name.
func validID(s string) bool {
	if len(s) == 0 || len(s) > 128 || s[0] == '.' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
