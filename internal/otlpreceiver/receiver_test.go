package otlpreceiver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/internal/cli"
	"github.com/toolscope/toolscope/internal/testchat"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/tracing"
)

// tap is a proxy in front of the receiver that keeps every byte sent to
// it, to check that no secret is among them.
type tap struct {
	mu     sync.Mutex
	bodies [][]byte
	to     string
}

func (p *tap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	p.bodies = append(p.bodies, b)
	p.mu.Unlock()
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, p.to+r.URL.Path, bytes.NewReader(b))
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// startReceiver starts the OpenTelemetry Collector's OTLP receiver, HTTP
// only, on a free loopback port, and returns its endpoint (behind a tap)
// and the sink of what it decoded.
func startReceiver(t *testing.T) (endpoint string, sink *consumertest.TracesSink, p *tap) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = addr
	sink = new(consumertest.TracesSink)
	ctx := context.Background()
	r, err := f.CreateTraces(ctx, receivertest.NewNopSettings(f.Type()), cfg, sink)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx, componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Shutdown(context.Background()) })
	p = &tap{to: "http://" + addr}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL, sink, p
}

// span is a span the collector decoded, with its attributes as Go values.
type span struct {
	name, traceID, spanID, parent string
	kind                          ptrace.SpanKind
	status                        ptrace.StatusCode
	message                       string
	attrs                         map[string]any
	resource                      map[string]any
	scope                         string
	durationOK                    bool
}

func decoded(sink *consumertest.TracesSink) []span {
	var out []span
	for _, td := range sink.AllTraces() {
		for _, rs := range td.ResourceSpans().All() {
			res := rs.Resource().Attributes().AsRaw()
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					out = append(out, span{name: s.Name(), traceID: s.TraceID().String(), spanID: s.SpanID().String(), parent: s.ParentSpanID().String(),
						kind: s.Kind(), status: s.Status().Code(), message: s.Status().Message(), attrs: s.Attributes().AsRaw(), resource: res,
						scope: ss.Scope().Name(), durationOK: s.EndTimestamp() >= s.StartTimestamp() && s.StartTimestamp() > 0})
				}
			}
		}
	}
	return out
}

func find(t *testing.T, spans []span, name string, attr string, v any) span {
	t.Helper()
	for _, s := range spans {
		if s.name == name && (attr == "" || s.attrs[attr] == v) {
			return s
		}
	}
	t.Fatalf("no span %q with %s=%v among %d", name, attr, v, len(spans))
	return span{}
}

// scripted is a model that answers from a script.
type scripted struct {
	answers [][]agent.ModelEvent
	n       int
}

func (s *scripted) Stream(context.Context, *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		a := s.answers[s.n]
		s.n++
		for _, ev := range a {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func call(id, name string, in any) agent.ModelEvent {
	b, _ := json.Marshal(in)
	return agent.ModelEvent{ToolCall: &agent.ToolCall{ID: id, Name: name, Input: b}}
}

// What toolscope's exporter sends, the collector's own receiver decodes
// into the spans sent, over protobuf and JSON alike: the tree, kinds,
// attributes of every type, statuses and the resource; and no secret of
// a captured call is among the bytes it got.
func TestCollectorReceivesSpans(t *testing.T) {
	for _, proto := range []string{"http/protobuf", "http/json"} {
		t.Run(strings.ReplaceAll(proto, "/", "-"), func(t *testing.T) {
			endpoint, sink, p := startReceiver(t)
			env := map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT":                        endpoint,
				"OTEL_EXPORTER_OTLP_PROTOCOL":                        proto,
				"OTEL_SERVICE_NAME":                                  "agent-under-test",
				"OTEL_RESOURCE_ATTRIBUTES":                           "deployment.environment=ci",
				"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true",
			}
			tr, err := tracing.FromEnv(&tracing.EnvOptions{Getenv: func(k string) string { return env[k] }})
			if err != nil || tr == nil {
				t.Fatalf("FromEnv: %v %v", tr, err)
			}
			root := t.TempDir()
			os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\n"), 0o644)
			tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: root}), Middleware: []tool.Middleware{tr.Middleware()}})
			if err != nil {
				t.Fatal(err)
			}
			st := tool.NewState(&permission.Context{WorkingDirs: []string{root}, Deny: []permission.Rule{{Tool: "Write", Behavior: permission.Deny, Source: "cli"}}})
			defer st.Close()
			m := &scripted{answers: [][]agent.ModelEvent{
				{call("r1", "Read", map[string]any{"file_path": filepath.Join(root, "a.txt")}),
					call("r2", "Read", map[string]any{"file_path": filepath.Join(root, "nope.txt")}),
					call("w1", "Write", map[string]any{"file_path": filepath.Join(root, "b.txt"), "content": "password=hunter2hunter2 AKIAIOSFODNN7EXAMPLE"})},
				{{Text: "done"}},
			}}
			a := &agent.Agent{Model: tr.Model(m, "openai", "gpt-x"), Toolkit: tk}
			run := agent.NewRun(st)
			for _, err := range tr.InvokeAgent(context.Background(), "toolscope", func(ctx context.Context) iter.Seq2[agent.Event, error] { return a.Run(ctx, run, "read") }) {
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := tr.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			spans := decoded(sink)
			if len(spans) != 6 {
				t.Fatalf("the collector decoded %d spans, want 6", len(spans))
			}
			runSpan := find(t, spans, "invoke_agent toolscope", "", nil)
			if runSpan.parent != "" || runSpan.kind != ptrace.SpanKindInternal || runSpan.attrs["gen_ai.operation.name"] != "invoke_agent" ||
				runSpan.attrs["toolscope.run.tool_calls"] != int64(3) || runSpan.scope != "github.com/toolscope/toolscope/tracing" {
				t.Errorf("run span: %+v", runSpan)
			}
			if r := runSpan.resource; r["service.name"] != "agent-under-test" || r["deployment.environment"] != "ci" {
				t.Errorf("resource: %v", r)
			}
			for _, s := range spans {
				if s.traceID != runSpan.traceID || (s.spanID != runSpan.spanID && s.parent != runSpan.spanID) || !s.durationOK {
					t.Errorf("%s: trace %s parent %s (run %s/%s), times ok %v", s.name, s.traceID, s.parent, runSpan.traceID, runSpan.spanID, s.durationOK)
				}
			}
			chat := find(t, spans, "chat gpt-x", "toolscope.chat.tool_calls", int64(3))
			if chat.kind != ptrace.SpanKindClient || chat.attrs["gen_ai.provider.name"] != "openai" || chat.attrs["gen_ai.request.model"] != "gpt-x" {
				t.Errorf("chat span: %+v", chat)
			}
			ok := find(t, spans, "execute_tool Read", "gen_ai.tool.call.id", "r1")
			if ok.kind != ptrace.SpanKindInternal || ok.status != ptrace.StatusCodeUnset || ok.attrs["toolscope.permission.behavior"] != "allow" ||
				ok.attrs["toolscope.tool.status"] != "success" || ok.attrs["gen_ai.tool.type"] != "function" || !strings.Contains(ok.attrs["gen_ai.tool.call.result"].(string), "alpha") {
				t.Errorf("Read span: %+v", ok)
			}
			bad := find(t, spans, "execute_tool Read", "gen_ai.tool.call.id", "r2")
			if bad.status != ptrace.StatusCodeError || bad.attrs["error.type"] != "tool_error" {
				t.Errorf("failed Read span: %+v", bad)
			}
			denied := find(t, spans, "execute_tool Write", "", nil)
			if denied.attrs["toolscope.permission.behavior"] != "deny" || !slices.Equal(denied.attrs["toolscope.permission.rules"].([]any), []any{"Write"}) ||
				denied.attrs["toolscope.permission.rule_sources"].([]any)[0] != "cli" {
				t.Errorf("denied Write span: %+v", denied)
			}
			all := bytes.Join(p.bodies, nil)
			for _, s := range []string{"hunter2hunter2", "AKIAIOSFODNN7EXAMPLE"} {
				if bytes.Contains(all, []byte(s)) {
					t.Errorf("the secret %q was sent to the collector", s)
				}
			}
			if args, _ := denied.attrs["gen_ai.tool.call.arguments"].(string); !strings.Contains(args, tracing.Redacted) {
				t.Errorf("captured arguments: %q", args)
			}
		})
	}
}

// toolscope run, in process as the binary runs it, with its model a
// scripted Chat Completions server and OTEL_EXPORTER_OTLP_ENDPOINT the
// collector's receiver: the run's spans reach the collector, flushed
// before the command returns.
func TestToolscopeRunExportsSpans(t *testing.T) {
	endpoint, sink, _ := startReceiver(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	var mu sync.Mutex
	n := 0
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 1 {
			testchat.Stream(w, "", []testchat.Call{{ID: "call_1", Name: "Read", Arguments: `{"file_path":` + jsonString(filepath.Join(dir, "a.txt")) + `}`}})
			return
		}
		testchat.Stream(w, "It says alpha.", nil)
	}))
	defer model.Close()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("OPENAI_BASE_URL", model.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "3600000") // only the flush at exit sends
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := cli.Run(ctx, []string{"run", "--model", "openai:scripted-model", "--cwd", dir, "--no-claude-settings", "What is in a.txt?"}, strings.NewReader(""), &stdout, &stderr, nil)
	if err != nil {
		t.Fatalf("toolscope run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "It says alpha.") {
		t.Fatalf("stdout: %q", stdout.String())
	}
	spans := decoded(sink)
	if len(spans) != 4 {
		var names []string
		for _, s := range spans {
			names = append(names, s.name)
		}
		t.Fatalf("the collector got %q, want a run, two chats and a Read\nstderr: %s", names, stderr.String())
	}
	runSpan := find(t, spans, "invoke_agent toolscope", "toolscope.run.outcome", "reply_end")
	read := find(t, spans, "execute_tool Read", "gen_ai.tool.call.id", "call_1")
	chat := find(t, spans, "chat scripted-model", "gen_ai.provider.name", "openai")
	if read.parent != runSpan.spanID || chat.parent != runSpan.spanID || read.attrs["toolscope.tool.status"] != "success" {
		t.Errorf("run %+v\nread %+v\nchat %+v", runSpan, read, chat)
	}
	if _, ok := read.attrs["gen_ai.tool.call.arguments"]; ok {
		t.Error("the input was recorded without content capture")
	}
	if runSpan.resource["service.name"] != "toolscope" || runSpan.resource["service.version"] == nil {
		t.Errorf("resource: %v", runSpan.resource)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// toolscope serve (stdio) with OTEL_EXPORTER_OTLP_ENDPOINT set: each
// tools/call is an execute_tool span at the collector, exported when the
// server ends.
func TestToolscopeServeExportsSpans(t *testing.T) {
	endpoint, sink, _ := startReceiver(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	var stderr bytes.Buffer
	go func() {
		done <- cli.Run(ctx, []string{"serve", "--cwd", dir, "--no-claude-settings"}, inR, outW, &stderr, nil)
		outW.Close()
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	dec := json.NewDecoder(outR)
	await := func(id int) map[string]any {
		for {
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				t.Fatalf("reading the server: %v\n%s", err, stderr.String())
			}
			if m["id"] == float64(id) {
				return m
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	await(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Read","arguments":{"file_path":` + jsonString(filepath.Join(dir, "a.txt")) + `}}}`)
	if res := await(2); res["error"] != nil {
		t.Fatalf("tools/call: %v", res)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	spans := decoded(sink)
	s := find(t, spans, "execute_tool Read", "toolscope.tool.status", "success")
	if s.parent != "" || s.attrs["toolscope.permission.behavior"] != "allow" {
		t.Errorf("the call's span: %+v", s)
	}
}
