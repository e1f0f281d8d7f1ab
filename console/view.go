package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/internal/inputview"
	"github.com/toolscope/toolscope/internal/live"
	"github.com/toolscope/toolscope/internal/udiff"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/shell"
	"github.com/toolscope/toolscope/tool"
)

// resultShown is how much of a result the transcript shows; the rest is
// one "show all" link away, and the cut says how much is left.
const resultShown = 4000

// maxShown is the largest input a person is asked to approve (as the
// command line: an input no one reads whole is not put to a person).
const maxShown = 64 << 10

// maxDiffFile bounds the file read for a diff.
const maxDiffFile = 4 << 20

type entryView struct {
	Role string // user, assistant, hook
	Text string
	Call *callView
}

type decisionView struct {
	Behavior, Message, Reason string
	Rules                     []string
}

type callView struct {
	RawID           string // the ID as the answer form sends it back
	ID, Name, Input string
	Status          string
	Decision        *decisionView
	HasResult       bool
	Result          string
	More            int // bytes of the result not shown
	Waiting         *waitingView
}

type partView struct{ Verdict, Text, Reason string }

type waitingView struct {
	Asking       bool
	Status       string
	Suggestions  []string
	BypassImmune bool
	Unshowable   string
	// EditInput is the input for the edit box: the same JSON, with every
	// character a display would obey written as a \u escape.
	EditInput string
	// InputSHA is the SHA-256 of the input shown: an answer counts only
	// for it (the call may wait with another by the time it comes).
	InputSHA    string
	Command     string
	Parts       []partView
	Diff        string
	DiffNote    string
	Path        string
	MCPServer   string
	MCPTool     string
	Description string
	// MCPTitle and MCPHints are what the run file recorded of the MCP
	// tool (agent.Waiting's Title and Annotations): its server's words.
	MCPTitle string
	MCPHints []hintView
}

// hintView is one hint an MCP server declares about its tool.
type hintView struct{ Name, Value, Meaning string }

// hintsOf lists the hints a declares, in MCP's order, each with what its
// value claims.
func hintsOf(a *tool.Annotations) []hintView {
	if a == nil {
		return nil
	}
	var out []hintView
	add := func(h *bool, name, yes, no string) {
		switch {
		case h == nil:
		case *h:
			out = append(out, hintView{name, "yes", yes})
		default:
			out = append(out, hintView{name, "no", no})
		}
	}
	add(a.ReadOnlyHint, "read-only", "it does not change its environment", "it may change its environment")
	add(a.DestructiveHint, "destructive", "it may delete or overwrite", "it only adds")
	add(a.IdempotentHint, "idempotent", "calling it again with the same input has no further effect", "calling it again may have a further effect")
	add(a.OpenWorldHint, "open-world", "it reaches things outside the server (the web, other services)", "it works within a closed domain")
	return out
}

func decisionOf(d *permission.Decision) *decisionView {
	if d == nil {
		return nil
	}
	v := &decisionView{Behavior: string(d.Behavior), Message: inputview.Escape(d.Message), Reason: inputview.Escape(d.Reason)}
	for _, r := range d.Rules {
		v.Rules = append(v.Rules, inputview.Escape(r.String()))
	}
	return v
}

// prettyInput is the input indented, escaped; an input that is not JSON
// is shown as it is, escaped.
func prettyInput(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return inputview.Escape(string(raw))
	}
	return inputview.Escape(string(plainHTMLChars(b.Bytes())))
}

// plainHTMLChars writes the \u0026, \u003c and \u003e escapes that Go's
// JSON encoder puts in strings as the characters they stand for (&, <, >:
// a person judging "a \u003e\u003e b" must read "a >> b"); every other
// byte is kept. The value is the same JSON value.
func plainHTMLChars(js []byte) []byte {
	if !bytes.Contains(js, []byte(`\u00`)) {
		return js
	}
	out := make([]byte, 0, len(js))
	for i := 0; i < len(js); i++ {
		if js[i] != '\\' || i+1 >= len(js) {
			out = append(out, js[i])
			continue
		}
		if js[i+1] == 'u' && i+6 <= len(js) {
			switch strings.ToLower(string(js[i+2 : i+6])) {
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			}
		}
		out = append(out, js[i], js[i+1]) // an escape, kept whole
		i++
	}
	return out
}

// editable is raw, compacted, with every rune that is not plainly
// printable written as a JSON \u escape: the same value, nothing hidden.
func editable(raw json.RawMessage) string {
	var c bytes.Buffer
	if json.Compact(&c, raw) != nil {
		return inputview.Escape(string(raw))
	}
	var b strings.Builder
	s := string(plainHTMLChars(c.Bytes()))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\ufffd`)
		case r < 0x80 && r >= 0x20 && r != 0x7f:
			b.WriteByte(byte(r))
		case unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r):
			b.WriteString(s[i : i+n])
		case r > 0xffff:
			r1, r2 := utf16Pair(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// unshowable says why an input cannot be put to a person (as the command
// line says it), or "".
func unshowable(input []byte) string {
	if path, dup := inputview.DuplicateKey(input); dup {
		return fmt.Sprintf("its input has the key %s twice: the tool reads the last value, a person may read the first, so there is no one call to approve", inputview.Escape(path))
	}
	if len(input) > maxShown {
		return fmt.Sprintf("its input is %d bytes, more than the %d KiB an approval shows whole; allow it with a rule if it is meant to run", len(input), maxShown>>10)
	}
	return ""
}

func truncated(s string, n int) (string, int) {
	if len(s) <= n {
		return s, 0
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], len(s) - cut
}

// transcript is the run's conversation as the run page shows it.
func transcript(r *Run) []entryView {
	ar := r.Agent
	results := map[string]*tool.Result{}
	for _, m := range ar.Messages {
		if m.Role == agent.ToolRole && m.Result != nil {
			results[m.Result.ID] = m.Result
		}
	}
	waiting := map[string]agent.Waiting{}
	for _, w := range ar.Waiting {
		waiting[w.Call.ID] = w
	}
	shown := map[string]bool{}
	var out []entryView
	for _, m := range ar.Messages {
		switch m.Role {
		case agent.User:
			role := "user"
			if m.Hook != "" {
				role = "hook " + m.Hook
			}
			out = append(out, entryView{Role: role, Text: inputview.Escape(m.Text)})
		case agent.Assistant:
			if m.Text != "" {
				out = append(out, entryView{Role: "assistant", Text: inputview.Escape(m.Text)})
			}
			for _, c := range m.ToolCalls {
				cv := &callView{RawID: c.ID, ID: inputview.Escape(c.ID), Name: inputview.Escape(c.Name), Input: prettyInput(c.Input)}
				if res := results[c.ID]; res != nil {
					shown[c.ID] = true
					fillResult(cv, res)
				} else if w, ok := waiting[c.ID]; ok {
					cv.Status = string(w.Status)
					cv.Decision = decisionOf(w.Decision)
					cv.Waiting = waitingOf(r, w)
				}
				out = append(out, entryView{Role: "call", Call: cv})
			}
		case agent.ToolRole:
			if m.Result != nil && !shown[m.Result.ID] {
				cv := &callView{RawID: m.Result.ID, ID: inputview.Escape(m.Result.ID), Name: inputview.Escape(m.Result.Name), Input: prettyInput(m.Result.Input)}
				fillResult(cv, m.Result)
				out = append(out, entryView{Role: "call", Call: cv})
			}
		}
	}
	return out
}

func fillResult(cv *callView, res *tool.Result) {
	cv.HasResult = true
	cv.Status = string(res.Status)
	cv.Decision = decisionOf(res.Decision)
	text, more := truncated(res.Text(), resultShown)
	cv.Result, cv.More = inputview.Escape(text), more
}

// waitingOf shows exactly what an answer to w would run.
func waitingOf(r *Run, w agent.Waiting) *waitingView {
	v := &waitingView{Asking: w.Status == tool.StatusAsking, Status: string(w.Status), EditInput: editable(w.Call.Input), InputSHA: live.InputSHA256(w.Call.Input)}
	v.Unshowable = unshowable(w.Call.Input)
	if d := w.Decision; d != nil {
		v.BypassImmune = d.BypassImmune
		for _, s := range d.Suggestions {
			v.Suggestions = append(v.Suggestions, inputview.Escape(s.String()))
		}
	}
	var in map[string]any
	json.Unmarshal(w.Call.Input, &in)
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch name := w.Call.Name; {
	case name == "Bash":
		cmd := str("command")
		v.Command = inputview.Escape(cmd)
		if d := str("description"); d != "" {
			v.Description = inputview.Escape(d)
		}
		a := shell.Analyze(cmd, &shell.Options{Cwd: r.Project, WorkingDirs: r.WorkingDirs, HardenedEnv: true})
		for _, p := range a.Commands {
			verdict := "needs a rule or the user"
			switch {
			case p.ReadOnly:
				verdict = "read-only"
			case p.Verdict == shell.Ask:
				verdict = "asks"
			}
			pv := partView{Verdict: verdict, Text: inputview.Escape(p.Text)}
			if !p.ReadOnly {
				pv.Reason = inputview.Escape(p.Reason)
			}
			v.Parts = append(v.Parts, pv)
		}
	case name == "Write" || name == "Edit":
		path := str("file_path")
		v.Path = inputview.Escape(path)
		v.Diff, v.DiffNote = diffOf(r, name, path, in)
	case strings.HasPrefix(name, "mcp__"):
		server, tl, _ := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__")
		v.MCPServer, v.MCPTool = inputview.Escape(server), inputview.Escape(tl)
		v.MCPTitle, v.MCPHints = inputview.Escape(w.Title), hintsOf(w.Annotations)
	}
	return v
}

// diffOf is the unified diff a Write or Edit would make to the file on
// disk, or a note saying why there is none.
func diffOf(r *Run, name, path string, in map[string]any) (string, string) {
	if !filepath.IsAbs(path) && r.Project != "" {
		path = filepath.Join(r.Project, path)
	}
	old := ""
	exists := false
	b, err := readInside(r.WorkingDirs, path, maxDiffFile)
	switch {
	case errors.Is(err, errOutside):
		return "", "The file is outside the run's working directories: its current content is not shown. The whole input is above."
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return "", "The file on disk cannot be shown (" + inputview.Escape(err.Error()) + "). The whole input is above."
	default:
		old, exists = string(b), true
	}
	oldName := path
	if !exists {
		oldName = "/dev/null"
	}
	var new string
	switch name {
	case "Write":
		c, _ := in["content"].(string)
		new = c
	case "Edit":
		from, _ := in["old_string"].(string)
		to, _ := in["new_string"].(string)
		all, _ := in["replace_all"].(bool)
		n := strings.Count(old, from)
		switch {
		case !exists:
			return "", "The file does not exist: the Edit will fail."
		case from == "" || n == 0:
			return "", "old_string is not in the file on disk: the Edit will fail."
		case n > 1 && !all:
			return "", fmt.Sprintf("old_string is %d times in the file on disk and replace_all is not set: the Edit will fail.", n)
		}
		if all {
			new = strings.ReplaceAll(old, from, to)
		} else {
			new = strings.Replace(old, from, to, 1)
		}
	}
	d := udiff.Unified(oldName, path, old, new, 3)
	if d == "" {
		return "", "The file on disk already has this content: nothing changes."
	}
	return inputview.Escape(d), ""
}

var errOutside = errors.New("outside the run's working directories")

// readInside reads path (at most limit bytes) if it resolves, symbolic
// links and all, inside one of dirs (themselves resolved); otherwise
// errOutside, or os.ErrNotExist for a file that is not there in a
// directory that is inside.
func readInside(dirs []string, path string, limit int64) ([]byte, error) {
	if !filepath.IsAbs(path) {
		return nil, errOutside
	}
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, os.ErrNotExist) {
		// A new file: its directory must be inside.
		parent, perr := filepath.EvalSymlinks(filepath.Dir(path))
		if perr != nil || !inside(dirs, parent) {
			return nil, errOutside
		}
		return nil, os.ErrNotExist
	}
	if err != nil || !inside(dirs, real) {
		return nil, errOutside
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A directory swapped for a symbolic link between the check and the
	// open: what was opened is checked again, where the system says.
	if opened, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd())); err == nil && !inside(dirs, opened) {
		return nil, errOutside
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("the file is %d bytes, more than the %d MiB the console shows", fi.Size(), limit>>20)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("the file grew past the %d MiB the console shows", limit>>20)
	}
	return b, nil
}

func inside(dirs []string, real string) bool {
	for _, d := range dirs {
		rd, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(rd, real)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}
