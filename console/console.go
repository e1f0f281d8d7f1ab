// Package console is the web approval console of toolscope: a small
// server-rendered web app that shows the runs of an agent (their status,
// project, mode and model), each run's transcript (the model's text, the
// tool calls with the decision that let them run or stopped them, their
// results) and the calls waiting for a person, shown exactly as they will
// run: a shell command with each part's verdict, a Write or Edit as a
// unified diff against the file on disk, an MCP call with its server and
// what the server declares of the tool (its title and hints, recorded in
// the run's agent.Waiting and shown as the server's unchecked claims).
// A person answers there: approve, approve an edited input (judged again),
// deny with a word to the model, or approve "always" with the rules that
// adds shown first.
//
// Runs come from a [Source]; [Local] is the run files of `toolscope run
// --state`, answered through `toolscope run --resume` itself, so an answer
// is recorded once and the deny rules hold as on the command line.
//
// Security: every request needs the access token (given once in the URL,
// then kept in an HttpOnly, SameSite=Strict cookie), the Host header must
// name this console (no DNS rebinding), every answer needs the page's form
// token and must come from the console's own origin, the pages allow no
// inline script (Content-Security-Policy script-src 'self') and no
// framing, and a file is shown only inside its run's working directories.
// Every answer is appended to a decision log (JSONL): when, who (the
// token's name), the exact input.
//
// The pages work without JavaScript; with it, they update live (server-sent
// events tell the page that a run changed).
package console

import (
	"bytes"
	"context"
	"crypto/rand"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/internal/inputview"
	"github.com/toolscope/toolscope/internal/live"
	"github.com/toolscope/toolscope/tool"
)

//go:embed assets
var assets embed.FS

// pages are the page templates, parsed at the first page (not at
// program start: the toolscope binary holds the console, and most of its
// commands never serve a page).
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").ParseFS(assets, "assets/*.html"))
})

// Options configure a [Server].
type Options struct {
	// Sources are where runs come from; at least one.
	Sources []Source
	// Tokens are the access tokens by name (the name is who answered, in
	// the decision log); at least one, each at least 16 characters.
	Tokens map[string]string
	// LogFile is the decision log; "" keeps none.
	LogFile string
	// Poll is how often the live updates look for changes; 0 means 500ms.
	Poll time.Duration
	// Hosts are host names, besides loopback addresses and localhost,
	// that requests may be addressed to (the Host header): the address
	// the console listens on when it is not a loopback one.
	Hosts []string
}

type namedToken struct{ name, token string }

// Server is the console's HTTP handler.
type Server struct {
	sources []Source
	tokens  []namedToken
	key     []byte
	log     *decisionLog
	poll    time.Duration
	hosts   []string
	mux     *http.ServeMux

	done     chan struct{}
	doneOnce sync.Once
}

// New returns the console serving opts' sources.
func New(opts *Options) (*Server, error) {
	if opts == nil || len(opts.Sources) == 0 {
		return nil, errors.New("console: no source of runs")
	}
	if len(opts.Tokens) == 0 {
		return nil, errors.New("console: no access token; every request must carry one")
	}
	s := &Server{sources: opts.Sources, poll: opts.Poll, done: make(chan struct{}), log: &decisionLog{path: opts.LogFile}}
	if s.poll <= 0 {
		s.poll = 500 * time.Millisecond
	}
	kinds := map[string]bool{}
	for _, src := range opts.Sources {
		if k := src.Kind(); k == "" || strings.Contains(k, "/") || kinds[k] {
			return nil, fmt.Errorf("console: source kind %q is empty, has a slash or is given twice", k)
		}
		kinds[src.Kind()] = true
	}
	for name, t := range opts.Tokens {
		if name == "" || len(t) < 16 {
			return nil, fmt.Errorf("console: the access token %q is too short (%d characters; at least 16) or has no name", name, len(t))
		}
		s.tokens = append(s.tokens, namedToken{name, t})
	}
	slices.SortFunc(s.tokens, func(a, b namedToken) int { return strings.Compare(a.name, b.name) })
	for _, h := range opts.Hosts {
		s.hosts = append(s.hosts, strings.ToLower(strings.Trim(h, "[]")))
	}
	s.key = make([]byte, 32)
	rand.Read(s.key)
	static, _ := fs.Sub(assets, "assets")
	m := http.NewServeMux()
	m.Handle("GET /{$}", s.guard(s.versioned(s.list)))
	m.Handle("GET /runs/{src}/{id}", s.guard(s.versioned(s.run)))
	m.Handle("GET /runs/{src}/{id}/result/{call}", s.guard(s.versioned(s.result)))
	m.Handle("GET /runs/{src}/{id}/file", s.guard(s.versioned(s.file)))
	m.Handle("POST /runs/{src}/{id}/answer", s.guard(s.answer))
	m.Handle("GET /events", s.guard(s.events))
	files := http.FileServerFS(static)
	m.Handle("GET /static/{name}", s.guard(func(w http.ResponseWriter, r *http.Request, _ string) {
		name := r.PathValue("name")
		if !strings.HasSuffix(name, ".css") && !strings.HasSuffix(name, ".js") {
			http.NotFound(w, r)
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + name
		files.ServeHTTP(w, r2)
	}))
	m.Handle("/", s.guard(func(w http.ResponseWriter, r *http.Request, _ string) {
		s.fail(w, http.StatusNotFound, "There is no such page in the console.")
	}))
	s.mux = m
	return s, nil
}

// ServeHTTP serves the console.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Close ends the live update streams (an http.Server's Shutdown waits for
// them otherwise).
func (s *Server) Close() error {
	s.doneOnce.Do(func() { close(s.done) })
	return nil
}

type page struct {
	Title   string
	CSRF    string
	Who     string
	Version string
	Body    any
}

// versionKey holds in a page request's context the sources' version taken
// before the page reads them.
type versionKey struct{}

// versioned takes the sources' version before next reads them for the
// page: a change while the page is made then differs from the page's
// version, and the live updates load the page again. (Taken after, the
// version could name a change the page does not show, and the page
// would stay behind it: a run shown answering that had ended.)
func (s *Server) versioned(next func(w http.ResponseWriter, r *http.Request, who string)) func(w http.ResponseWriter, r *http.Request, who string) {
	return func(w http.ResponseWriter, r *http.Request, who string) {
		next(w, r.WithContext(context.WithValue(r.Context(), versionKey{}, s.version(r.Context()))), who)
	}
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, who, name, title string, body any) {
	v, ok := r.Context().Value(versionKey{}).(string)
	if !ok {
		v = s.version(r.Context())
	}
	p := page{Title: title, CSRF: s.csrf(who), Who: who, Version: v, Body: body}
	var b bytes.Buffer
	if err := pages().ExecuteTemplate(&b, name, p); err != nil {
		s.fail(w, http.StatusInternalServerError, "The page could not be made: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

func (s *Server) fail(w http.ResponseWriter, code int, msg string) {
	var b bytes.Buffer
	pages().ExecuteTemplate(&b, "error.html", page{Title: http.StatusText(code), Body: inputview.Escape(msg)})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

func (s *Server) version(ctx context.Context) string {
	var vs []string
	for _, src := range s.sources {
		v, err := src.Version(ctx)
		if err != nil {
			v = "error: " + err.Error()
		}
		vs = append(vs, v)
	}
	return strings.Join(vs, ".")
}

func (s *Server) source(kind string) Source {
	for _, src := range s.sources {
		if src.Kind() == kind {
			return src
		}
	}
	return nil
}

type listRow struct {
	Kind string
	RunInfo
	Updated string
}

type listBody struct {
	Rows   []listRow
	Errors []string
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, who string) {
	var body listBody
	for _, src := range s.sources {
		runs, err := src.List(r.Context())
		if err != nil {
			body.Errors = append(body.Errors, inputview.Escape(err.Error()))
		}
		for _, ri := range runs {
			ri.Project, ri.Model, ri.Err = inputview.Escape(ri.Project), inputview.Escape(ri.Model), inputview.Escape(ri.Err)
			body.Rows = append(body.Rows, listRow{Kind: src.Kind(), RunInfo: ri, Updated: ri.Updated.Format(time.DateTime)})
		}
	}
	s.render(w, r, who, "list.html", "Runs", body)
}

// load finds the run a request names, or answers 404 and returns nil.
func (s *Server) load(w http.ResponseWriter, r *http.Request) (Source, *Run) {
	src := s.source(r.PathValue("src"))
	if src == nil {
		s.fail(w, http.StatusNotFound, "There is no source of runs named "+r.PathValue("src")+".")
		return nil, nil
	}
	run, err := src.Load(r.Context(), r.PathValue("id"))
	if err != nil {
		code := http.StatusInternalServerError
		if errors.Is(err, ErrNoRun) {
			code = http.StatusNotFound
		}
		s.fail(w, code, fmt.Sprintf("The run %s cannot be shown: %v.", r.PathValue("id"), err))
		return nil, nil
	}
	return src, run
}

type runBody struct {
	Kind, ID     string
	Run          *Run
	Info         RunInfo
	WorkingDirs  []string
	Output       string
	Exit         *int
	Entries      []entryView
	WaitingCalls []*callView
}

// View builds the run page's content (exported for the benchmark's sake
// through renderRun).
func runView(kind string, run *Run) runBody {
	b := runBody{Kind: kind, ID: run.ID, Run: run, Info: run.RunInfo, Output: inputview.Escape(run.Output), Exit: run.Exit}
	b.Info.Project, b.Info.Model, b.Info.Err = inputview.Escape(run.Project), inputview.Escape(run.Model), inputview.Escape(run.Err)
	for _, d := range run.WorkingDirs {
		b.WorkingDirs = append(b.WorkingDirs, inputview.Escape(d))
	}
	if run.Agent != nil {
		b.Entries = transcript(run)
		for _, e := range b.Entries {
			if e.Call != nil && e.Call.Waiting != nil {
				b.WaitingCalls = append(b.WaitingCalls, e.Call)
			}
		}
	}
	return b
}

func (s *Server) run(w http.ResponseWriter, r *http.Request, who string) {
	src, run := s.load(w, r)
	if run == nil {
		return
	}
	s.render(w, r, who, "run.html", "Run "+run.ID, runView(src.Kind(), run))
}

type resultBody struct {
	Kind, ID, Call, Name, Status, Text string
}

func (s *Server) result(w http.ResponseWriter, r *http.Request, who string) {
	src, run := s.load(w, r)
	if run == nil {
		return
	}
	id := r.PathValue("call")
	if run.Agent != nil {
		for _, m := range run.Agent.Messages {
			if m.Role == agent.ToolRole && m.Result != nil && m.Result.ID == id {
				s.render(w, r, who, "result.html", "Result of "+id, resultBody{Kind: src.Kind(), ID: run.ID, Call: inputview.Escape(id),
					Name: inputview.Escape(m.Result.Name), Status: string(m.Result.Status), Text: inputview.Escape(m.Result.Text())})
				return
			}
		}
	}
	s.fail(w, http.StatusNotFound, "The run has no result for the call "+id+".")
}

type fileBody struct {
	Kind, ID, Path, Text string
}

// file shows a file of the run's working directories, as it is on disk.
func (s *Server) file(w http.ResponseWriter, r *http.Request, who string) {
	src, run := s.load(w, r)
	if run == nil {
		return
	}
	path := r.URL.Query().Get("path")
	b, err := readInside(run.WorkingDirs, path, maxDiffFile)
	switch {
	case errors.Is(err, errOutside):
		s.fail(w, http.StatusForbidden, "The console shows only the files inside the run's working directories ("+strings.Join(run.WorkingDirs, ", ")+"); "+path+" is not inside them.")
		return
	case errors.Is(err, fs.ErrNotExist):
		s.fail(w, http.StatusNotFound, "There is no file "+path+".")
		return
	case err != nil:
		s.fail(w, http.StatusUnprocessableEntity, "The file "+path+" cannot be shown: "+err.Error())
		return
	}
	s.render(w, r, who, "file.html", path, fileBody{Kind: src.Kind(), ID: run.ID, Path: inputview.Escape(path), Text: inputview.Escape(string(b))})
}

// answer carries out one answer from the run page's forms.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, who string) {
	src, run := s.load(w, r)
	if run == nil {
		return
	}
	if run.Agent == nil {
		s.fail(w, http.StatusConflict, "The run cannot be read, so it cannot be answered: "+run.Err)
		return
	}
	callID, action := r.PostForm.Get("call"), r.PostForm.Get("action")
	i := slices.IndexFunc(run.Agent.Waiting, func(wt agent.Waiting) bool { return wt.Call.ID == callID && wt.Status == tool.StatusAsking })
	if i < 0 {
		s.fail(w, http.StatusConflict, fmt.Sprintf("No call %q waits for approval in this run (it may have been answered already).", callID))
		return
	}
	wt := run.Agent.Waiting[i]
	e := Entry{Time: time.Now().UTC(), Who: who, Source: src.Kind(), Run: run.ID, Call: callID, Tool: wt.Call.Name, Action: action, Input: wt.Call.Input}
	a := Answer{CallID: callID, InputSHA256: live.InputSHA256(wt.Call.Input), By: who}
	if shown := r.PostForm.Get("input_sha256"); shown != "" && shown != a.InputSHA256 {
		s.fail(w, http.StatusConflict, fmt.Sprintf("Call %q now waits with another input than the one you answered; look at it again.", callID))
		return
	}
	switch action {
	case "approve", "always", "edit":
		a.Approve = true
		if why := unshowable(wt.Call.Input); why != "" && action != "edit" {
			s.fail(w, http.StatusBadRequest, "This call cannot be approved: "+why+". Deny it.")
			return
		}
	case "deny":
		a.Message = strings.TrimSpace(r.PostForm.Get("message"))
		if len(a.Message) > 8<<10 {
			s.fail(w, http.StatusBadRequest, "The message to the model is longer than 8 KiB; say it in fewer words.")
			return
		}
		e.Message = a.Message
	default:
		s.fail(w, http.StatusBadRequest, fmt.Sprintf("The answer %q is none of approve, always, edit or deny.", action))
		return
	}
	if action == "always" {
		d := wt.Decision
		if d == nil || d.BypassImmune || len(d.Suggestions) == 0 {
			s.fail(w, http.StatusBadRequest, "This call has no rule that would allow it always; approve it once instead.")
			return
		}
		a.Always = true
		for _, rl := range d.Suggestions {
			e.Rules = append(e.Rules, rl.String())
		}
	}
	if action == "edit" {
		in := strings.TrimSpace(r.PostForm.Get("input"))
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &obj); err != nil || obj == nil {
			s.fail(w, http.StatusBadRequest, fmt.Sprintf("The edited input is not a JSON object (%v); correct it and approve again.", err))
			return
		}
		if why := unshowable([]byte(in)); why != "" {
			s.fail(w, http.StatusBadRequest, "The edited input cannot be approved: "+why+".")
			return
		}
		a.Input = json.RawMessage(in)
		e.Action, e.Input, e.OriginalInput = "approve_edited", a.Input, wt.Call.Input
	}
	if d := wt.Decision; d != nil && !d.At.IsZero() {
		// The decision that asked, then the answer: the run's transcript
		// keeps only the decision the call runs (or is refused) with.
		if err := s.log.add(decisionEntry(src.Kind(), run.ID, callID, wt.Call.Name, wt.Call.Input, d)); err != nil {
			s.fail(w, http.StatusInternalServerError, "The answer was not given: it could not be written to the decision log ("+err.Error()+").")
			return
		}
	}
	if err := s.log.add(e); err != nil {
		s.fail(w, http.StatusInternalServerError, "The answer was not given: it could not be written to the decision log ("+err.Error()+").")
		return
	}
	done := func(o Outcome) {
		oe := Entry{Time: time.Now().UTC(), Who: who, Source: src.Kind(), Run: run.ID, Call: callID, Tool: wt.Call.Name, Action: "outcome", Exit: &o.Exit}
		if o.Err != nil {
			oe.Error = o.Err.Error()
		}
		s.log.add(oe)
	}
	if err := src.Answer(r.Context(), run.ID, a, done); err != nil {
		code := http.StatusConflict
		s.log.add(Entry{Time: time.Now().UTC(), Who: who, Source: src.Kind(), Run: run.ID, Call: callID, Tool: wt.Call.Name, Action: "outcome", Error: err.Error()})
		s.fail(w, code, "The answer was not carried out: "+err.Error())
		return
	}
	http.Redirect(w, r, "/runs/"+src.Kind()+"/"+run.ID+"#answer", http.StatusSeeOther)
}

// events streams "change" events whenever a source's version differs
// from the one the page was made with (?v=).
func (s *Server) events(w http.ResponseWriter, r *http.Request, _ string) {
	fl, ok := w.(http.Flusher)
	if !ok {
		s.fail(w, http.StatusInternalServerError, "This server cannot stream events.")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	seen := r.URL.Query().Get("v")
	tick := time.NewTicker(s.poll)
	defer tick.Stop()
	fmt.Fprint(w, "retry: 2000\n\n")
	fl.Flush()
	idle := time.Duration(0)
	for {
		if v := s.version(r.Context()); v != seen {
			seen = v
			fmt.Fprintf(w, "event: change\ndata: %s\n\n", v)
			fl.Flush()
			idle = 0
		} else if idle += s.poll; idle >= 15*time.Second {
			fmt.Fprint(w, ": still here\n\n")
			fl.Flush()
			idle = 0
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case <-tick.C:
		}
	}
}
