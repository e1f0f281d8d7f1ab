package cli

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/internal/inputview"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/subagent"
	"github.com/toolscope/toolscope/tool"
)

const defaultSystemPrompt = `You are a careful software engineer working in the user's project through tools. Read before you change; keep changes small; say what you did.`

// agentFlags are the flags of run and chat.
type agentFlags struct {
	*common
	model  *string
	system *string
	// events: one JSON object a line on standard output (--json).
	events *bool
}

func newAgentFlags(name string, stdout io.Writer) agentFlags {
	c := newFlags(name, stdout, true)
	return agentFlags{c,
		c.fs.String("model", "", "model: openai:NAME or anthropic:NAME (default $TOOLSCOPE_MODEL)"),
		c.fs.String("system", defaultSystemPrompt, "system prompt"),
		c.fs.Bool("json", false, "print the run's events as JSON, one object a line (text, tool_call, tool_progress, tool_result, need_approval, paused, reply_end)")}
}

// agentSetup builds the agent of run and chat, with the permission
// context of the run file, the config and the flags.
func agentSetup(ctx context.Context, f agentFlags, r *agent.Run, stderr io.Writer) (*agent.Agent, *setup, error) {
	m, err := newModel(*f.model)
	if err != nil {
		return nil, nil, err
	}
	// Prompt hooks ask the same model, or the model a hook names from the
	// same provider.
	spec := cmp.Or(*f.model, os.Getenv("TOOLSCOPE_MODEL"))
	f.hookModel = func(name string) (agent.Model, error) {
		if name == "" {
			return m, nil
		}
		provider, _, _ := strings.Cut(spec, ":")
		return newModel(provider + ":" + name)
	}
	s, err := f.setup(ctx, stderr, false)
	if err != nil {
		return nil, nil, err
	}
	pc, err := f.common.permissions(s.Permissions(r.State.Permissions()), s.ToolNames(), stderr)
	if err != nil {
		s.close()
		return nil, nil, err
	}
	r.State.SetPermissions(pc)
	a := &agent.Agent{Model: f.traceModel(m), Toolkit: s.Toolkit, SystemPrompt: *f.system}
	a.PromptHook, a.StopHook = s.PromptHook(), s.StopHook()
	// The model may start sub-agents (the Agent tool) of the kinds the
	// agent files define, with the run's model unless they name another.
	sub, err := subagent.New(&subagent.Options{Definitions: s.Subagents(), Model: f.traceModel(m), Toolkit: s.Toolkit,
		StopHook: s.SubagentStop(),
		Models: func(name string) (agent.Model, error) {
			if !strings.Contains(name, ":") {
				return nil, fmt.Errorf("%q is not provider:NAME", name)
			}
			return newModel(name)
		}})
	if err == nil {
		err = s.Toolkit.Add(tool.BasicGroup, sub)
	}
	if err != nil {
		s.close()
		return nil, nil, err
	}
	return a, s, nil
}

// show prints a run's events: the model's text on stdout, the tool calls
// and their outcomes on stderr (what is meant for the model, its system
// reminders, left out); with asJSON, every event as one JSON object a
// line on stdout, for scripts. It returns the last event.
func show(seq func(yield func(agent.Event, error) bool), stdout, stderr io.Writer, asJSON bool) (agent.Event, error) {
	var last agent.Event
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	// On a terminal, a spinner while the model thinks and a call runs.
	spin := newSpinner(stderr, !asJSON && isTerminalOut(stderr))
	defer spin.end()
	spin.start("thinking")
	for ev, err := range seq {
		spin.end()
		if err != nil {
			return last, err
		}
		last = ev
		if asJSON {
			if line := eventJSON(ev); line != nil {
				if err := enc.Encode(line); err != nil {
					return last, err
				}
			}
			continue
		}
		switch ev.Kind {
		case agent.EventText:
			fmt.Fprint(stdout, withoutReminders(ev.Text))
		case agent.EventToolCall:
			fmt.Fprintf(stderr, "\n[%s %s] %s\n", inputview.Escape(ev.Call.Name), inputview.Escape(ev.Call.ID), inputview.Escape(string(ev.Call.Input)))
		case agent.EventToolResult:
			fmt.Fprintf(stderr, "[%s %s] %s\n", inputview.Escape(ev.Call.Name), ev.Result.Status, inputview.Escape(firstLine(withoutReminders(ev.Result.Text()))))
		case agent.EventToolChunk:
			// A sub-agent's steps, and other tools' progress reports.
			if p := ev.Chunk.Progress; p != nil && p.Message != "" {
				fmt.Fprintf(stderr, "  [%s %s] %s\n", inputview.Escape(ev.Call.Name), inputview.Escape(ev.Call.ID), inputview.Escape(p.Message))
			}
		case agent.EventReplyEnd:
			fmt.Fprintln(stdout)
		}
		// What goes on until the next event.
		switch ev.Kind {
		case agent.EventToolCall:
			spin.start("running " + inputview.Escape(ev.Call.Name))
		case agent.EventToolResult:
			spin.start("thinking")
		case agent.EventToolChunk:
			spin.start("running " + inputview.Escape(ev.Call.Name))
		}
	}
	return last, nil
}

// eventJSON is an event as --json prints it, or nil for one it leaves
// out (a call's streaming output: its result follows).
func eventJSON(ev agent.Event) map[string]any {
	m := map[string]any{"type": string(ev.Kind)}
	if ev.Call != nil {
		m["call"] = map[string]any{"id": ev.Call.ID, "name": ev.Call.Name, "input": ev.Call.Input}
	}
	switch ev.Kind {
	case agent.EventToolChunk:
		// A call's output streams, its result follows; a progress report
		// (a sub-agent's steps) is an event of its own.
		if p := ev.Chunk.Progress; p != nil && p.Message != "" {
			m["type"] = "tool_progress"
			m["message"] = p.Message
			return m
		}
		return nil
	case agent.EventText, agent.EventReplyEnd:
		m["text"] = ev.Text
		if ev.Interrupted {
			m["interrupted"] = true
		}
	case agent.EventToolResult:
		m["status"] = ev.Result.Status
		m["text"] = ev.Result.Text()
		if d := ev.Result.Decision; d != nil {
			m["decision"] = decisionJSON(d)
		}
	case agent.EventNeedApproval:
		if ev.Decision != nil {
			m["decision"] = decisionJSON(ev.Decision)
		}
	case agent.EventPaused:
		var waiting []map[string]any
		if ev.Run != nil {
			for _, w := range ev.Run.Waiting {
				x := map[string]any{"id": w.Call.ID, "name": w.Call.Name, "input": w.Call.Input, "status": w.Status}
				if w.Decision != nil {
					x["decision"] = decisionJSON(w.Decision)
				}
				waiting = append(waiting, x)
			}
		}
		m["waiting"] = waiting
	}
	return m
}

func decisionJSON(d *permission.Decision) map[string]any {
	var sugg []string
	for _, r := range d.Suggestions {
		sugg = append(sugg, r.String())
	}
	return map[string]any{"behavior": d.Behavior, "message": d.Message, "reason": d.Reason, "suggestions": sugg}
}

var reminder = regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>\s*`)

// withoutReminders is s without the system reminders meant for the model.
func withoutReminders(s string) string {
	if !strings.Contains(s, "<system-reminder>") {
		return s
	}
	return reminder.ReplaceAllString(s, "")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// describeWaiting tells the user what a paused run waits for.
func describeWaiting(r *agent.Run, w io.Writer) {
	for _, x := range r.Waiting {
		switch x.Status {
		case tool.StatusAsking:
			msg, sugg := "", []string{}
			if x.Decision != nil {
				msg = x.Decision.Message
				for _, s := range x.Decision.Suggestions {
					sugg = append(sugg, s.String())
				}
			}
			fmt.Fprintf(w, "waiting for approval: call %s: %s %s: %s", inputview.Escape(x.Call.ID), inputview.Escape(x.Call.Name),
				inputview.Escape(string(x.Call.Input)), inputview.Escape(msg))
			if len(sugg) > 0 {
				fmt.Fprintf(w, " (--always adds %s)", inputview.Escape(strings.Join(sugg, ", ")))
			}
			if why := unshowable(string(x.Call.Input)); why != "" {
				fmt.Fprintf(w, " [cannot be approved: %s]", why)
			}
			fmt.Fprintln(w)
		case tool.StatusSubmitted:
			fmt.Fprintf(w, "waiting for the external result of call %s: %s %s\n", inputview.Escape(x.Call.ID), inputview.Escape(x.Call.Name),
				inputview.Escape(string(x.Call.Input)))
		}
	}
}

// runRun is `toolscope run`: one prompt, or the resumption of a paused run,
// without a terminal. A pause saves the run to --state and exits 3.
func runRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f := newAgentFlags("run", stdout)
	resume := f.fs.String("resume", "", "continue the paused run saved in this file")
	var approve listFlag
	f.fs.Var(&approve, "approve", "with --resume: approve the waiting call with this id (repeatable)")
	always := f.fs.Bool("always", false, "with --approve: also add the call's suggested rules, for the calls after")
	edited := f.fs.String("input", "", "with one --approve: run the call with this input (JSON) instead; it is judged again (deny rules win)")
	message := f.fs.String("message", "", "with --deny: what the model reads after the denied notice")
	if err := f.parse(args); err != nil {
		return err
	}
	// With --resume, --deny names waiting calls to refuse (not deny rules).
	var deny listFlag
	if *resume != "" {
		deny, f.deny = f.deny, nil
	}
	for _, id := range approve {
		if slices.Contains(deny, id) {
			return usageErr("run --resume: call %q is both approved and denied; give it once, with --approve or --deny", id)
		}
	}
	file := f.statePath
	f.statePath = "" // the run file holds the agent state: setup must not read it as one
	f.runFile = file
	switch {
	case *resume != "" && file != "" && file != *resume:
		return usageErr("run: --resume names the run file; --state is not needed with it")
	case *resume != "":
		file = *resume
		if len(f.args) > 0 {
			return usageErr("run --resume takes no prompt (got %q); answer the waiting calls with --approve and --deny", f.args[0])
		}
	case len(f.args) != 1:
		return usageErr("run needs one prompt: toolscope run [--state FILE] 'PROMPT'")
	case len(approve) > 0:
		return usageErr("run: --approve goes with --resume FILE")
	}
	switch {
	case *edited != "" && len(approve) != 1:
		return usageErr("run --resume: --input is the edited input of one approved call; give exactly one --approve ID with it")
	case *edited != "" && *always:
		return usageErr("run --resume: --always adds the rules suggested for the call's original input; approve an edited input without --always")
	case *message != "" && len(deny) == 0:
		return usageErr("run --resume: --message is said to the model about a denied call; give it with --deny ID")
	}
	if *edited != "" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(*edited), &obj); err != nil || obj == nil {
			return usageErr("run --resume: --input must be the call's input as a JSON object, e.g. '{\"command\":\"ls\"}' (%v)", err)
		}
	}
	if file != "" {
		abs, err := filepath.Abs(file)
		if err != nil {
			return usageErr("--state %s: %v", file, err)
		}
		file = abs
	}
	var r *agent.Run
	if *resume != "" {
		if _, err := os.Stat(file); err != nil {
			return usageErr("run --resume %s: there is no run file there (%v); a paused run's file is the --state FILE it was started with", *resume, pathErrText(err))
		}
	}
	if file != "" {
		var err error
		if r, err = host.LoadRun(file); err != nil {
			return usage(err)
		}
	} else {
		r = agent.NewRun(nil)
	}
	if err := f.remember(r); err != nil {
		return err
	}
	// Background shells live as long as this run does (a pause ends them).
	f.background = true
	f.tracer = startTracing(stderr)
	defer stopTracing(f.tracer)
	a, s, err := agentSetup(ctx, f, r, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	defer r.State.Close()
	var seq func(yield func(agent.Event, error) bool)
	if *resume != "" {
		var answers []agent.Answer
		for _, id := range approve {
			ans := agent.Answer{CallID: id, Approve: true}
			if *edited != "" {
				ans.Input = json.RawMessage(*edited)
			}
			if *always {
				if i := slices.IndexFunc(r.Waiting, func(w agent.Waiting) bool { return w.Call.ID == id }); i >= 0 && r.Waiting[i].Decision != nil && !r.Waiting[i].Decision.BypassImmune {
					ans.Rules = r.Waiting[i].Decision.Suggestions
				}
			}
			answers = append(answers, ans)
		}
		for _, id := range deny {
			answers = append(answers, agent.Answer{CallID: id, Message: *message})
		}
		if len(answers) == 0 {
			describeWaiting(r, stderr)
			return usageErr("run --resume: answer the waiting calls with --approve ID or --deny ID")
		}
		for _, ans := range answers {
			i := slices.IndexFunc(r.Waiting, func(w agent.Waiting) bool { return w.Call.ID == ans.CallID && w.Status == tool.StatusAsking })
			if i < 0 {
				return usageErr("run --resume: no call %q waits for approval in %s (it may have been answered already)", inputview.Escape(ans.CallID), file)
			}
			if !ans.Approve {
				continue
			}
			// What is approved is shown again, whole: the call that runs
			// is this one (the run file is sealed), and the engine judges
			// it again (deny rules win over the approval).
			w := r.Waiting[i]
			input := string(w.Call.Input)
			if len(ans.Input) > 0 {
				input = string(ans.Input)
			}
			if why := unshowable(input); why != "" {
				return usageErr("run --resume: call %s (%s) cannot be approved: %s; deny it with --deny %s", inputview.Escape(w.Call.ID), inputview.Escape(w.Call.Name), why, inputview.Escape(w.Call.ID))
			}
			if len(ans.Input) > 0 {
				fmt.Fprintf(stderr, "approving call %s with an edited input: %s %s\n", inputview.Escape(w.Call.ID), inputview.Escape(w.Call.Name), inputview.Escape(input))
			} else {
				fmt.Fprintf(stderr, "approving call %s: %s %s\n", inputview.Escape(w.Call.ID), inputview.Escape(w.Call.Name), inputview.Escape(input))
			}
		}
		// Save first that these calls are answered: resuming the same
		// pause twice (even after a crash) cannot run a call twice.
		taken := *r
		taken.Waiting = slices.DeleteFunc(slices.Clone(r.Waiting), func(w agent.Waiting) bool {
			return slices.ContainsFunc(answers, func(a agent.Answer) bool { return a.CallID == w.Call.ID })
		})
		if err := host.SaveRun(file, &taken); err != nil {
			return err
		}
		seq = f.invoke(ctx, func(ctx context.Context) iter.Seq2[agent.Event, error] { return a.Resume(ctx, r, answers...) })
	} else {
		prompt := f.args[0]
		source := "startup"
		if len(r.Messages) > 0 {
			source = "resume"
		}
		if added := s.SessionStart(ctx, source); added != "" {
			prompt = sessionContext(added) + prompt
		}
		seq = f.invoke(ctx, func(ctx context.Context) iter.Seq2[agent.Event, error] { return a.Run(ctx, r, prompt) })
	}
	defer s.SessionEnd(context.WithoutCancel(ctx), "other")
	last, err := show(seq, stdout, stderr, *f.events)
	if file != "" {
		if serr := host.SaveRun(file, r); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return err
	}
	if last.Kind == agent.EventPaused {
		describeWaiting(r, stderr)
		if file == "" {
			return &exitError{code: 3, msg: "the run waits for approval; run again with --state FILE to be able to resume it"}
		}
		return &exitError{code: 3, msg: fmt.Sprintf("the run is paused; continue with: toolscope run --resume %s --approve ID (or --deny ID)", file)}
	}
	return nil
}

// runChat is `toolscope chat`: a conversation on the terminal (or standard
// input); approvals are asked there: y, n or always.
func runChat(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f := newAgentFlags("chat", stdout)
	if err := f.parse(args); err != nil {
		return err
	}
	file := f.statePath
	f.statePath = ""
	f.runFile = file
	r := agent.NewRun(nil)
	if file != "" {
		var err error
		if r, err = host.LoadRun(file); err != nil {
			return usage(err)
		}
	}
	if err := f.remember(r); err != nil {
		return err
	}
	// The conversation, the approvals and the MCP servers' questions are
	// all answered on standard input.
	br := bufio.NewReader(stdin)
	var in lineReader = br
	// A chat with a run file can be answered from toolscope console too
	// (one watching the file's directory): the first answer counts.
	var cl *chatLive
	var lines *asyncLines
	if file != "" {
		if cl = startChatLive(file, r, stderr); cl != nil {
			defer cl.close()
			lines = newAsyncLines(in, stderr)
			defer lines.close()
			in = lines
		}
	}
	f.elicitor = termElicitor{in: in, out: stderr}
	// Background shells live as long as the conversation does.
	f.background = true
	f.tracer = startTracing(stderr)
	defer stopTracing(f.tracer)
	a, s, err := agentSetup(ctx, f, r, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	defer r.State.Close()
	// SessionStart hooks: what they print goes with the first message.
	source := "startup"
	if len(r.Messages) > 0 {
		source = "resume"
	}
	added := s.SessionStart(ctx, source)
	endReason := "other"
	defer func() { s.SessionEnd(context.WithoutCancel(ctx), endReason) }()
	for {
		if len(r.Waiting) == 0 {
			fmt.Fprint(stderr, "> ")
			raw, err := in.ReadString('\n')
			line := strings.TrimSpace(raw)
			if line == "" && err != nil {
				endReason = "prompt_input_exit"
				return nil // end of input
			}
			if line == "" {
				continue
			}
			if strings.HasPrefix(raw, "/") { // " /etc is full" goes to the model
				text, quit, ok := chatCommand(ctx, s.Workspace, r.State, line, stderr)
				if quit {
					endReason = "prompt_input_exit"
					return nil
				}
				if ok {
					if text == "" {
						continue
					}
					line = text
				}
			}
			if added != "" {
				line, added = sessionContext(added)+line, ""
			}
			if _, err := show(f.invoke(ctx, func(ctx context.Context) iter.Seq2[agent.Event, error] { return a.Run(ctx, r, line) }), stdout, stderr, *f.events); err != nil {
				return err
			}
		} else {
			var answers []agent.Answer
			notify := func(w agent.Waiting) {
				s.Notify(ctx, "permission_prompt", "toolscope needs your permission to use "+w.Call.Name)
			}
			if cl != nil {
				answers = cl.askChat(ctx, r, lines, stderr, notify)
			}
			for _, w := range r.Waiting {
				if cl != nil || w.Status != tool.StatusAsking {
					continue
				}
				d := w.Decision
				if d == nil {
					d = &permission.Decision{Message: "Permission required"}
				}
				notify(w)
				approve, alwaysAns := prompt(br, stderr, w.Call.Name, string(w.Call.Input), d)
				ans := agent.Answer{CallID: w.Call.ID, Approve: approve}
				if alwaysAns && !d.BypassImmune {
					ans.Rules = d.Suggestions
				}
				answers = append(answers, ans)
			}
			if len(answers) == 0 {
				describeWaiting(r, stderr)
				return &exitError{code: 3, msg: "the run waits for an external tool's result, which chat cannot give"}
			}
			if _, err := show(f.invoke(ctx, func(ctx context.Context) iter.Seq2[agent.Event, error] { return a.Resume(ctx, r, answers...) }), stdout, stderr, *f.events); err != nil {
				return err
			}
		}
		if file != "" {
			if err := host.SaveRun(file, r); err != nil {
				return err
			}
		}
	}
}

// remember keeps in a new run what it was started with, and gives a
// resumed run (or a chat continued from its file) what it was started
// with, where this invocation's flags do not say otherwise: the model,
// the system prompt, the project, the config file and the switches of the
// workspace. The run file is sealed, so what it says is what was given.
func (f agentFlags) remember(r *agent.Run) error {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if r.Meta != nil {
		for name, v := range r.Meta {
			if set[name] || f.fs.Lookup(name) == nil {
				continue
			}
			if err := f.fs.Set(name, v); err != nil {
				return usageErr("the run file's %s %q: %v", name, v, err)
			}
		}
	}
	// Which command keeps the file: a chat's waiting calls are answered at
	// its terminal, by the chat that holds them (not a flag: a resumed
	// run does not set it).
	meta := map[string]string{"command": f.fs.Name()}
	model := *f.model
	if model == "" {
		model = os.Getenv("TOOLSCOPE_MODEL")
	}
	if model != "" {
		meta["model"] = model
	}
	if *f.system != defaultSystemPrompt {
		meta["system"] = *f.system
	}
	for name, v := range map[string]string{"config": f.configPath, "cwd": f.cwd} {
		if v == "" {
			continue
		}
		abs, err := filepath.Abs(v)
		if err != nil {
			return usageErr("--%s %s: %v", name, v, err)
		}
		meta[name] = abs
	}
	for name, on := range map[string]bool{"sandbox": f.sandbox, "no-claude-settings": f.noClaude, "trust-project": f.trustProject} {
		if on {
			meta[name] = "true"
		}
	}
	r.Meta = meta
	return nil
}

// pathErrText is the reason of a file system error, without the path.
func pathErrText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// sessionContext is what SessionStart hooks added, as the model reads it
// before the first message (a system reminder: not shown to people).
func sessionContext(added string) string {
	return "<system-reminder>\nSessionStart hook additional context: " + added + "\n</system-reminder>\n"
}
