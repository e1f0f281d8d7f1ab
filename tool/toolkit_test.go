package tool_test

import (
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// fnTool is a tool built from closures, for tests of the toolkit's plumbing.
type fnTool struct {
	info  tool.Info
	perm  permission.Decision
	call  func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error]
	calls atomic.Int32
}

func (f *fnTool) Info() tool.Info { return f.info }
func (f *fnTool) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	if f.perm.Behavior == "" {
		return permission.Decision{Behavior: permission.Allow, Message: "ok"}, nil
	}
	return f.perm, nil
}
func (f *fnTool) Call(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
	f.calls.Add(1)
	return f.call(ctx, c)
}

func echoTool(name string) *fnTool {
	return &fnTool{
		info: tool.Info{Name: name, Description: "echo", InputSchema: json.RawMessage(
			`{"type":"object","properties":{"text":{"type":"string","title":"Text"},"n":{"type":"integer","minimum":0}},"required":["text"],"additionalProperties":false}`),
			ConcurrencySafe: true},
		call: func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
			return func(yield func(*tool.Chunk, error) bool) {
				var in struct{ Text string }
				json.Unmarshal(c.Input, &in)
				yield(tool.Text(in.Text), nil)
			}
		},
	}
}

func newKit(t *testing.T, opts *tool.ToolkitOptions) *tool.Toolkit {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	tk, err := tool.NewToolkit(opts)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func call(t *testing.T, tk *tool.Toolkit, c *tool.Call) *tool.Result {
	t.Helper()
	r, err := tk.Call(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestToolkitBadInput(t *testing.T) {
	tk := newKit(t, &tool.ToolkitOptions{
		Tools:  []tool.Tool{echoTool("echo")},
		Groups: []tool.Group{{Name: "extra", Description: "extra tools", Tools: []tool.Tool{echoTool("hidden")}}},
	})
	for _, tt := range []struct {
		name, tool, input string
		want              string
	}{
		{"unknown tool", "nope", `{}`, "ToolNotFoundError: The tool named 'nope' doesn't exist."},
		{"inactive group", "hidden", `{"text":"x"}`, "ToolGroupInactiveError: The tool 'hidden' in group 'extra' is currently inactive. You should first activate the group by calling the 'reset_tools' tool."},
		{"malformed JSON", "echo", `{"text": "x",}`, `Invalid JSON input for tool 'echo': invalid character '}' looking for beginning of object key string at line 1, column 14 (near "{\"text\": \"x\",}"). Send the arguments as a single JSON object that matches the tool's input schema.`},
		{"truncated JSON", "echo", `{"text": "x`, `Invalid JSON input for tool 'echo': unexpected end of JSON input (the input stops after 11 bytes; is a closing brace or quote missing?). Send the arguments as a single JSON object that matches the tool's input schema.`},
		{"not an object", "echo", `["x"]`, "Invalid input for tool 'echo': the arguments must be a JSON object, not an array."},
		{"missing field", "echo", `{}`, `Input validation failed for tool 'echo': missing required field "text". Fix the arguments to match the tool's input schema.`},
		{"wrong type", "echo", `{"text":7}`, `Input validation failed for tool 'echo': field "text" must be a string, not an integer (7). Fix the arguments to match the tool's input schema.`},
		{"rule violated", "echo", `{"text":"x","n":-1}`, `Input validation failed for tool 'echo': field "n" must be at least 0; got -1. Fix the arguments to match the tool's input schema.`},
		{"extra field", "echo", `{"text":"x","bogus":1}`, `Input validation failed for tool 'echo': unknown field "bogus" (the fields are: n, text). Fix the arguments to match the tool's input schema.`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, tk, &tool.Call{ID: "1", Name: tt.tool, Input: json.RawMessage(tt.input), State: tool.NewState(&permission.Context{Mode: permission.Bypass})})
			if r.Status != tool.StatusError {
				t.Errorf("status %s", r.Status)
			}
			if got := r.Text(); got != tt.want {
				t.Errorf("text:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestToolkitDuplicateName(t *testing.T) {
	_, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{echoTool("a"), echoTool("a")}})
	if err == nil || err.Error() != `toolkit: a tool named "a" is already registered` {
		t.Fatalf("err = %v", err)
	}
	_, err = tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{echoTool("a")},
		Groups: []tool.Group{{Name: "g", Description: "d", Tools: []tool.Tool{echoTool("a")}}}})
	if err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Fatalf("across groups: err = %v", err)
	}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("a")}})
	if err := tk.Add(tool.BasicGroup, echoTool("b"), echoTool("a")); err == nil {
		t.Fatal("Add accepted a duplicate")
	}
	if len(tk.Tools(context.Background(), nil)) != 1 {
		t.Fatal("a failed Add registered some tools")
	}
	for _, g := range []tool.Group{{Name: "basic", Description: "x"}, {Name: "g"}} {
		if _, err := tool.NewToolkit(&tool.ToolkitOptions{Groups: []tool.Group{g}}); err == nil {
			t.Errorf("group %+v accepted", g)
		}
	}
	if _, err := tool.NewToolkit(&tool.ToolkitOptions{Groups: []tool.Group{{Name: "g", Description: "x"}, {Name: "g", Description: "y"}}}); err == nil {
		t.Error("duplicate group accepted")
	}
	bad := echoTool("x")
	bad.info.InputSchema = json.RawMessage(`{"type":"string"}`)
	if _, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{bad}}); err == nil || !strings.Contains(err.Error(), `must have type "object"`) {
		t.Errorf("non-object schema: %v", err)
	}
}

func TestToolkitPanickingTool(t *testing.T) {
	p := echoTool("boom")
	p.call = func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
		return func(yield func(*tool.Chunk, error) bool) {
			yield(tool.Text("partial "), nil)
			var m map[string]int
			m["x"] = 1
		}
	}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{p}})
	r := call(t, tk, &tool.Call{Name: "boom", Input: json.RawMessage(`{"text":"x"}`), Approved: true})
	want := "partial Tool 'boom' failed with an internal error (panic: assignment to entry in nil map). This is a bug in the tool, not in your input; try another approach."
	if r.Status != tool.StatusError || r.Text() != want {
		t.Fatalf("got %s %q", r.Status, r.Text())
	}
}

func TestToolkitConsumerPanicPropagates(t *testing.T) {
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("echo")}})
	defer func() {
		if v := recover(); v != "consumer" {
			t.Fatalf("recovered %v", v)
		}
	}()
	for c := range tk.Stream(context.Background(), &tool.Call{Name: "echo", Input: json.RawMessage(`{"text":"x"}`), Approved: true}) {
		if len(c.Content) > 0 {
			panic("consumer")
		}
	}
}

func TestToolkitCancelledContext(t *testing.T) {
	started := make(chan struct{})
	slow := echoTool("slow")
	slow.call = func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
		return func(yield func(*tool.Chunk, error) bool) {
			if !yield(tool.Text("working..."), nil) {
				return
			}
			close(started)
			<-ctx.Done()
		}
	}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{slow}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	r, err := tk.Call(ctx, &tool.Call{Name: "slow", Input: json.RawMessage(`{"text":"x"}`), Approved: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != tool.StatusInterrupted || r.Text() != "working..."+tool.InterruptedText {
		t.Fatalf("got %s %q", r.Status, r.Text())
	}
	// Already cancelled: the tool never starts.
	before := slow.calls.Load()
	r, _ = tk.Call(ctx, &tool.Call{Name: "slow", Input: json.RawMessage(`{"text":"x"}`), Approved: true})
	if r.Status != tool.StatusInterrupted || r.Text() != tool.InterruptedText || slow.calls.Load() != before {
		t.Fatalf("pre-cancelled: %s %q calls=%d", r.Status, r.Text(), slow.calls.Load()-before)
	}
}

func TestToolkitPermissionOutcomes(t *testing.T) {
	danger := echoTool("danger")
	danger.perm = permission.Decision{Behavior: permission.Ask, Message: "Dangerous!", BypassImmune: true}
	plain := echoTool("plain")
	plain.perm = permission.Decision{Behavior: permission.Passthrough}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{danger, plain}})
	in := json.RawMessage(`{"text":"hi"}`)

	st := tool.NewState(nil)
	r := call(t, tk, &tool.Call{Name: "plain", Input: in, State: st})
	if r.Status != tool.StatusAsking || r.Decision == nil || r.Decision.Message != "Permission required for plain" || len(r.Decision.Suggestions) != 1 || plain.calls.Load() != 0 {
		t.Fatalf("ask: %+v %+v", r, r.Decision)
	}
	st.AddRule(r.Decision.Suggestions[0]) // the user says "always"
	if r = call(t, tk, &tool.Call{Name: "plain", Input: in, State: st}); r.Status != tool.StatusSuccess || r.Text() != "hi" {
		t.Fatalf("after rule: %s %q", r.Status, r.Text())
	}
	st.AddRule(permission.Rule{Tool: "danger", Behavior: permission.Allow})
	if r = call(t, tk, &tool.Call{Name: "danger", Input: in, State: st}); r.Status != tool.StatusAsking || !r.Decision.BypassImmune {
		t.Fatalf("immune ask overridden by allow rule: %+v", r)
	}
	if r = call(t, tk, &tool.Call{Name: "danger", Input: in, State: st, Approved: true}); r.Status != tool.StatusSuccess {
		t.Fatalf("approved: %+v", r)
	}
	st.AddRule(permission.Rule{Tool: "plain", Behavior: permission.Deny})
	r = call(t, tk, &tool.Call{Name: "plain", Input: in, State: st})
	if r.Status != tool.StatusDenied || r.Text() != "Permission to use plain has been denied" || r.Decision.Reason != "Rule: plain" {
		t.Fatalf("deny: %+v", r)
	}
}

func TestToolkitExternal(t *testing.T) {
	ext := echoTool("browser")
	ext.info.External = true
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{ext}})
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	r := call(t, tk, &tool.Call{ID: "c1", Name: "browser", Input: json.RawMessage(`{"text":"open"}`), State: st})
	if r.Status != tool.StatusSubmitted || ext.calls.Load() != 0 || r.ID != "c1" || string(r.Input) != `{"text":"open"}` {
		t.Fatalf("external: %+v, calls %d", r, ext.calls.Load())
	}
	if err := r.Complete(&tool.Result{Content: []tool.Block{tool.TextBlock("page loaded")}}); err != nil {
		t.Fatal(err)
	}
	if r.Status != tool.StatusSuccess || r.Text() != "page loaded" {
		t.Fatalf("completed: %+v", r)
	}
	if err := r.Complete(&tool.Result{}); err == nil {
		t.Fatal("completed twice")
	}
	// External calls still go through validation and permissions.
	st2 := tool.NewState(nil)
	if r := call(t, tk, &tool.Call{Name: "browser", Input: json.RawMessage(`{"text":"x"}`), State: st2}); r.Status != tool.StatusSubmitted {
		t.Fatalf("tool allows in default mode: %+v", r)
	}
	ext.perm = permission.Decision{Behavior: permission.Deny, Message: "no browsing"}
	if r := call(t, tk, &tool.Call{Name: "browser", Input: json.RawMessage(`{"text":"x"}`), State: st2}); r.Status != tool.StatusDenied {
		t.Fatalf("denied external: %+v", r)
	}
}

func TestCallBatchOrderAndParallelism(t *testing.T) {
	// Safe calls wait for each other at a barrier: they can only finish if
	// they run at the same time.
	var barrier sync.WaitGroup
	barrier.Add(3)
	safe := echoTool("safe")
	safe.call = func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
		return func(yield func(*tool.Chunk, error) bool) {
			barrier.Done()
			done := make(chan struct{})
			go func() { barrier.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second): // hang guard, not a timing assertion
				yield(tool.Errorf("safe calls did not overlap"), nil)
				return
			}
			var in struct{ Text string }
			json.Unmarshal(c.Input, &in)
			yield(tool.Text(in.Text), nil)
		}
	}
	var running, maxRunning atomic.Int32
	var order []string
	var mu sync.Mutex
	unsafe := echoTool("unsafe")
	unsafe.info.ConcurrencySafe = false
	unsafe.call = func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
		return func(yield func(*tool.Chunk, error) bool) {
			n := running.Add(1)
			for m := maxRunning.Load(); n > m && !maxRunning.CompareAndSwap(m, n); m = maxRunning.Load() {
			}
			var in struct{ Text string }
			json.Unmarshal(c.Input, &in)
			mu.Lock()
			order = append(order, in.Text)
			mu.Unlock()
			time.Sleep(time.Millisecond) // widen the window in which an overlap would show
			running.Add(-1)
			yield(tool.Text(in.Text), nil)
		}
	}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{safe, unsafe}})
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	mk := func(name, text string) *tool.Call {
		return &tool.Call{ID: text, Name: name, Input: json.RawMessage(`{"text":"` + text + `"}`), State: st}
	}
	calls := []*tool.Call{mk("unsafe", "u1"), mk("unsafe", "u2"), mk("safe", "s1"), mk("safe", "s2"), mk("safe", "s3"), mk("unsafe", "u3"), mk("nope", "x")}
	results, err := tk.CallBatch(context.Background(), calls)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range results {
		got = append(got, r.ID+"="+string(r.Status)+":"+r.Text())
	}
	want := []string{"u1=success:u1", "u2=success:u2", "s1=success:s1", "s2=success:s2", "s3=success:s3", "u3=success:u3",
		"x=error:ToolNotFoundError: The tool named 'nope' doesn't exist."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("results (-want +got):\n%s", diff)
	}
	if maxRunning.Load() != 1 {
		t.Errorf("unsafe calls overlapped: max %d at once", maxRunning.Load())
	}
	if diff := cmp.Diff([]string{"u1", "u2", "u3"}, order); diff != "" {
		t.Errorf("unsafe order: %s", diff)
	}
}

func TestCallBatchStopsAtApproval(t *testing.T) {
	asker := echoTool("asker")
	asker.info.ConcurrencySafe = false
	asker.perm = permission.Decision{Behavior: permission.Passthrough}
	after := echoTool("after")
	after.info.ConcurrencySafe = false
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{asker, after, echoTool("safe")}})
	st := tool.NewState(nil)
	in := json.RawMessage(`{"text":"x"}`)
	results, err := tk.CallBatch(context.Background(), []*tool.Call{
		{ID: "1", Name: "after", Input: in, State: st},
		{ID: "2", Name: "asker", Input: in, State: st},
		{ID: "3", Name: "after", Input: in, State: st},
		{ID: "4", Name: "safe", Input: in, State: st},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []tool.Status
	for _, r := range results {
		got = append(got, r.Status)
	}
	want := []tool.Status{tool.StatusSuccess, tool.StatusAsking, tool.StatusPending, tool.StatusPending}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got)\n%s", diff)
	}
	if after.calls.Load() != 1 {
		t.Fatalf("after ran %d times", after.calls.Load())
	}
}

func TestSchemas(t *testing.T) {
	ro := echoTool("ro")
	ro.info.ReadOnly = true
	ro.info.Title = "Echo, read-only"
	tk := newKit(t, &tool.ToolkitOptions{
		Tools:  []tool.Tool{ro},
		Groups: []tool.Group{{Name: "web", Description: "Web browsing", Tools: []tool.Tool{echoTool("fetch")}}},
	})
	ctx := context.Background()
	names := func(ss []tool.Schema) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return strings.Join(out, " ")
	}
	ss := tk.Schemas(ctx, nil)
	if got := names(ss); got != "reset_tools ro" {
		t.Fatalf("tools with no group active: %s", got)
	}
	if got := names(tk.Schemas(ctx, []string{"web"})); got != "reset_tools ro fetch" {
		t.Fatalf("tools with web active: %s", got)
	}
	r := ss[1]
	if r.Title != "Echo, read-only" || r.Description != "echo" || r.Annotations.ReadOnlyHint == nil || !*r.Annotations.ReadOnlyHint {
		t.Errorf("ro schema: %+v", r)
	}
	if string(r.InputSchema) != `{"additionalProperties":false,"properties":{"n":{"minimum":0,"type":"integer"},"text":{"type":"string"}},"required":["text"],"type":"object"}` {
		t.Errorf("ro input schema: %s", r.InputSchema)
	}
	if !strings.Contains(string(ss[0].InputSchema), `"web":{"default":false,"description":"Web browsing","type":"boolean"}`) || ss[0].Annotations != (tool.Annotations{}) {
		t.Errorf("reset_tools schema: %+v %s", ss[0], ss[0].InputSchema)
	}
}

// An output schema must be an object schema, as MCP wants it: a tool with
// another is refused when it is added, not when a host lists it.
func TestOutputSchemaChecked(t *testing.T) {
	for _, bad := range []string{`{"type":"string"}`, `[1]`, `{`, `null`} {
		x := echoTool("x")
		x.info.OutputSchema = json.RawMessage(bad)
		if _, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{x}}); err == nil || !strings.Contains(err.Error(), "output schema") {
			t.Errorf("output schema %s: %v", bad, err)
		}
	}
}

// An input schema that is not an object schema is refused with an error
// when the tool is added (an MCP server may send any of these): never a
// panic. A null one panicked.
func TestInputSchemaChecked(t *testing.T) {
	for _, bad := range []string{`null`, ` null `, `[1]`, `"x"`, `{`, `{"type":"string"}`} {
		x := echoTool("x")
		x.info.InputSchema = json.RawMessage(bad)
		if _, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{x}}); err == nil || !strings.Contains(err.Error(), "schema") {
			t.Errorf("input schema %s: %v", bad, err)
		}
	}
}

func TestTitlesStrippedButPropertyNamedTitleKept(t *testing.T) {
	x := echoTool("x")
	x.info.InputSchema = json.RawMessage(`{"title":"In","type":"object","properties":{"title":{"title":"Title","type":"string"},"list":{"type":"array","items":{"title":"Item","type":"object","properties":{}}}},"$defs":{"D":{"title":"D","type":"string"}}}`)
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{x}})
	ss := tk.Schemas(context.Background(), nil)
	want := `{"$defs":{"D":{"type":"string"}},"properties":{"list":{"items":{"properties":{},"type":"object"},"type":"array"},"title":{"type":"string"}},"type":"object"}`
	if got := string(ss[len(ss)-1].InputSchema); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestResetTools(t *testing.T) {
	tk := newKit(t, &tool.ToolkitOptions{Groups: []tool.Group{
		{Name: "web", Description: "Web", Instructions: "Cite sources.", Tools: []tool.Tool{echoTool("fetch")}},
		{Name: "db", Description: "Database", Tools: []tool.Tool{echoTool("query")}},
	}})
	st := tool.NewState(nil)
	r := call(t, tk, &tool.Call{Name: "reset_tools", Input: json.RawMessage(`{"web":true,"db":false}`), State: st})
	want := "The currently activated tool group(s): web.\n<tool-instructions>\nThe tool instructions are a collection of suggestions, rules and notifications about how to use the tools in the activated groups.\n<group name=\"web\">Cite sources.</group>\n</tool-instructions>"
	if r.Status != tool.StatusSuccess || r.Text() != want {
		t.Fatalf("got %s %q", r.Status, r.Text())
	}
	st.AddRule(permission.Rule{Tool: "fetch", Behavior: permission.Allow})
	if r := call(t, tk, &tool.Call{Name: "fetch", Input: json.RawMessage(`{"text":"ok"}`), State: st}); r.Text() != "ok" {
		t.Fatalf("fetch after activation: %+v", r)
	}
	r = call(t, tk, &tool.Call{Name: "reset_tools", Input: json.RawMessage(`{"web":true,"cache":true}`), State: st})
	if r.Text() != "Invalid group name(s): cache. The current available groups are: web, db" {
		t.Fatalf("unknown group: %q", r.Text())
	}
	// Through the toolkit the schema catches a value that is not a boolean;
	// the tool's own check (AgentScope's text) guards direct calls.
	r = call(t, tk, &tool.Call{Name: "reset_tools", Input: json.RawMessage(`{"web":"yes"}`), State: st})
	if r.Status != tool.StatusError || !strings.Contains(r.Text(), `field "web" must be a boolean`) {
		t.Fatalf("non-boolean through the toolkit: %s %q", r.Status, r.Text())
	}
	meta := tk.Tools(context.Background(), nil)[0]
	for in, want := range map[string]string{
		`{"web":"yes"}`: "Invalid arguments: the argument 'web' should be a bool value, but got <class 'str'>.",
		`{"db":1}`:      "Invalid arguments: the argument 'db' should be a bool value, but got <class 'int'>.",
		`{"db":1.5}`:    "Invalid arguments: the argument 'db' should be a bool value, but got <class 'float'>.",
		`{"db":null}`:   "Invalid arguments: the argument 'db' should be a bool value, but got <class 'NoneType'>.",
		`{"db":[true]}`: "Invalid arguments: the argument 'db' should be a bool value, but got <class 'list'>.",
	} {
		var got tool.Result
		for c, err := range meta.Call(context.Background(), &tool.Call{Name: "reset_tools", Input: json.RawMessage(in), State: st}) {
			if err != nil {
				t.Fatal(err)
			}
			got.Append(c)
		}
		got.Finish()
		if got.Status != tool.StatusError || got.Text() != want {
			t.Errorf("reset_tools %s called directly: %s %q, want %q", in, got.Status, got.Text(), want)
		}
	}
	if i := meta.Info(); !strings.Contains(i.Description, "final state of their corresponding tool groups, not incremental changes") || !i.ConcurrencySafe || !i.StateInjected {
		t.Errorf("reset_tools info: %+v", i)
	}
	// Two groups with instructions: back to back in one block.
	tk2 := newKit(t, &tool.ToolkitOptions{Groups: []tool.Group{
		{Name: "a", Description: "A", Instructions: "Do a.", Tools: []tool.Tool{echoTool("ta")}},
		{Name: "b", Description: "B", Instructions: "Do b.", Tools: []tool.Tool{echoTool("tb")}},
	}})
	r = call(t, tk2, &tool.Call{Name: "reset_tools", Input: json.RawMessage(`{"b":true,"a":true}`), State: tool.NewState(nil)})
	if want := "The currently activated tool group(s): a, b.\n<tool-instructions>\nThe tool instructions are a collection of suggestions, rules and notifications about how to use the tools in the activated groups.\n<group name=\"a\">Do a.</group><group name=\"b\">Do b.</group>\n</tool-instructions>"; r.Text() != want {
		t.Errorf("two groups:\n got %q\nwant %q", r.Text(), want)
	}
	r = call(t, tk, &tool.Call{Name: "reset_tools", Input: json.RawMessage(`{}`), State: st})
	if r.Text() != "All tool groups are currently deactivated." || len(st.ActiveGroups()) != 0 {
		t.Fatalf("all off: %q %v", r.Text(), st.ActiveGroups())
	}
}

type source struct {
	tools []tool.Tool
	err   error
}

func (s *source) Name() string                               { return "src" }
func (s *source) Tools(context.Context) ([]tool.Tool, error) { return s.tools, s.err }

func TestSources(t *testing.T) {
	good := &source{tools: []tool.Tool{echoTool("dyn"), echoTool("echo")}}
	broken := &source{err: context.DeadlineExceeded}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("echo")}, Sources: []tool.Source{broken, good}})
	var names []string
	for _, x := range tk.Tools(context.Background(), nil) {
		names = append(names, x.Info().Name)
	}
	if diff := cmp.Diff([]string{"echo", "dyn"}, names); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	r := call(t, tk, &tool.Call{Name: "dyn", Input: json.RawMessage(`{"text":1}`), Approved: true})
	if !strings.Contains(r.Text(), `field "text"`) {
		t.Fatalf("dynamic tool not validated: %q", r.Text())
	}
}

func TestToolkitCheck(t *testing.T) {
	ro := echoTool("ro")
	ro.info.ReadOnly = true
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{ro, echoTool("rw")}})
	v, err := tk.Check(context.Background(), &tool.Call{Name: "ro", Input: json.RawMessage(`{"text":"x"}`)})
	if err != nil || v.Decision.Behavior != permission.Allow || !v.ReadOnly || ro.calls.Load() != 0 {
		t.Fatalf("read-only: %+v %v", v, err)
	}
	st := tool.NewState(&permission.Context{Mode: permission.Explore})
	v, err = tk.Check(context.Background(), &tool.Call{Name: "rw", Input: json.RawMessage(`{"text":"x"}`), State: st})
	if err != nil || v.Decision.Behavior != permission.Deny || v.ReadOnly {
		t.Fatalf("explore: %+v %v", v, err)
	}
	if _, err := tk.Check(context.Background(), &tool.Call{Name: "rw", Input: json.RawMessage(`{}`)}); err == nil || !strings.Contains(err.Error(), `missing required field "text"`) {
		t.Fatalf("invalid input: %v", err)
	}
}

func TestApprovalDoesNotBeatDenyRules(t *testing.T) {
	x := echoTool("x")
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{x}})
	st := tool.NewState(nil)
	st.AddRule(permission.Rule{Tool: "x", Content: "", Behavior: permission.Deny})
	r := call(t, tk, &tool.Call{Name: "x", Input: json.RawMessage(`{"text":"hi"}`), State: st, Approved: true})
	if r.Status != tool.StatusDenied || x.calls.Load() != 0 || r.Decision.Reason != "Rule: x" {
		t.Fatalf("approved call ran despite a deny rule: %+v", r)
	}
	v, err := tk.Check(context.Background(), &tool.Call{Name: "x", Input: json.RawMessage(`{"text":"hi"}`), State: st, Approved: true})
	if err != nil || v.Decision.Behavior != permission.Deny {
		t.Fatalf("Check: %+v %v", v, err)
	}
}
