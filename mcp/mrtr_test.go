package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

type actIn struct {
	X string `json:"x"`
}

// mrtrServer serves a tool that needs approval (it writes) and records
// what it ran; the client speaks what the go-sdk client speaks by default
// (2026-07-28) and does the retries itself (MultiRoundTrip disabled), so
// that the test can send what a careless or hostile client would.
func mrtrServer(t *testing.T, canAsk bool) (*mcp.Server, *sdk.ClientSession, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var ran []string
	act, err := tool.NewFunction("Act on x.", func(_ context.Context, in actIn) (string, error) {
		mu.Lock()
		ran = append(ran, in.X)
		mu.Unlock()
		return "done " + in.X, nil
	}, &tool.FunctionOptions{Name: "act"})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{act}, Asker: mcp.ElicitAsker{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	reqR, reqW := io.Pipe()
	respR, respW := io.Pipe()
	srv := mcp.NewServer(tk, nil)
	done := make(chan struct{})
	go func() { srv.Serve(ctx, reqR, respW); respW.Close(); close(done) }()
	opts := &sdk.ClientOptions{MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true}}
	if canAsk {
		opts.ElicitationHandler = func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			t.Error("the server sent an elicitation request under 2026-07-28")
			return &sdk.ElicitResult{Action: "decline"}, nil
		}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts)
	s, err := c.Connect(ctx, &sdk.IOTransport{Reader: respR, Writer: reqW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := s.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("protocol %s, want 2026-07-28", v)
	}
	t.Cleanup(func() { s.Close(); reqW.Close(); cancel(); <-done })
	return srv, s, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), ran...) }
}

func text(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func accept(content map[string]any) sdk.InputResponseMap {
	return sdk.InputResponseMap{"approval": &sdk.ElicitResult{Action: "accept", Content: content}}
}

// Under MCP 2026-07-28 an approval is asked by an input_required result
// and answered by a retry, and the answer approves only the call the user
// was shown: the same tool and input, with the state the server sealed.
func TestApprovalRoundTrip2026(t *testing.T) {
	srv, s, ran := mrtrServer(t, true)
	ctx := context.Background()
	first, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "act", Arguments: map[string]any{"x": "one"}})
	if err != nil {
		t.Fatal(err)
	}
	form, ok := first.InputRequests["approval"].(*sdk.ElicitParams)
	if !first.NeedsInput() || !ok || first.RequestState == "" || !strings.Contains(form.Message, `"one"`) {
		t.Fatalf("first round: needs input %v, %+v, state %q", first.NeedsInput(), first.InputRequests, first.RequestState)
	}
	state := first.RequestState
	if got := ran(); len(got) != 0 {
		t.Fatalf("ran before the answer: %q", got)
	}
	retry := func(x string, responses sdk.InputResponseMap, st string) (*sdk.CallToolResult, error) {
		return s.CallTool(ctx, &sdk.CallToolParams{Name: "act", Arguments: map[string]any{"x": x}, InputResponses: responses, RequestState: st})
	}
	// The state of "one" with other arguments approves nothing: the user
	// is asked about "two".
	r, err := retry("two", accept(map[string]any{"allow": true}), state)
	if err != nil || !r.NeedsInput() || !strings.Contains(r.InputRequests["approval"].(*sdk.ElicitParams).Message, `"two"`) {
		t.Fatalf("another call with one's state: %v %+v", err, r)
	}
	// An answer without a state approves nothing.
	if r, err := retry("one", accept(map[string]any{"allow": true}), ""); err != nil || !r.NeedsInput() {
		t.Fatalf("an answer without a state: %v %+v", err, r)
	}
	// An altered or foreign state is refused.
	for _, bad := range []string{state[:len(state)-2] + "AA", "x." + state, "e30.e30", strings.Replace(state, ".", "", 1)} {
		if r, err := retry("one", accept(map[string]any{"allow": true}), bad); err == nil {
			t.Errorf("state %q: %+v, want an error", bad, r)
		}
	}
	// A value that is not the boolean true is no approval.
	if r, err := retry("one", accept(map[string]any{"allow": "true"}), state); err != nil || r.NeedsInput() || !r.IsError {
		t.Fatalf("allow as a string: %v %+v", err, r)
	}
	// Declined: not run.
	if r, err := retry("one", sdk.InputResponseMap{"approval": &sdk.ElicitResult{Action: "decline"}}, state); err != nil || !r.IsError {
		t.Fatalf("declined: %v %+v", err, r)
	}
	if got := ran(); len(got) != 0 {
		t.Fatalf("ran without an approval: %q", got)
	}
	// Accepted: runs once, the call that was asked about.
	r, err = retry("one", accept(map[string]any{"allow": true}), state)
	if err != nil || r.IsError || r.NeedsInput() || text(r) != "done one" {
		t.Fatalf("approved: %v %+v %q", err, r, text(r))
	}
	if got := ran(); len(got) != 1 || got[0] != "one" {
		t.Fatalf("ran %q, want [one]", got)
	}
	// A state outlives its time by nothing.
	if err := mcp.OpenStateAt(srv, state, time.Now().Add(11*time.Minute)); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("an expired state: %v", err)
	}
	if err := mcp.OpenStateAt(srv, state, time.Now()); err != nil {
		t.Errorf("a fresh state: %v", err)
	}
}

// A 2026-07-28 client that cannot show a form is told so, as an older
// one is, and nothing runs.
func TestApprovalWithoutElicitation2026(t *testing.T) {
	_, s, ran := mrtrServer(t, false)
	r, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "act", Arguments: map[string]any{"x": "one"}})
	if err != nil || r.NeedsInput() || !r.IsError || !strings.Contains(text(r), "does not support elicitation") {
		t.Fatalf("%v %+v %q", err, r, text(r))
	}
	if got := ran(); len(got) != 0 {
		t.Fatalf("ran %q", got)
	}
}

// toolscope on both sides of MCP 2026-07-28: a Client with Protocol "auto"
// agrees on 2026-07-28 with a Server that offers it, and the Server's
// approval, asked by an input_required result, reaches the client's Elicit
// and is answered in the SDK's retry; with the default it agrees on
// 2025-11-25 and is asked by an elicitation request. A protocol the
// client does not know is refused.
func TestClientProtocolAuto(t *testing.T) {
	for _, c := range []struct{ protocol, want string }{{"auto", "2026-07-28"}, {"", "2026-07-28"}, {mcp.ProtocolVersion, "2025-11-25"}} {
		t.Run("protocol="+c.protocol, func(t *testing.T) {
			var mu sync.Mutex
			var ran []string
			act, _ := tool.NewFunction("Act on x.", func(_ context.Context, in actIn) (string, error) {
				mu.Lock()
				ran = append(ran, in.X)
				mu.Unlock()
				return "done " + in.X, nil
			}, &tool.FunctionOptions{Name: "act"})
			served, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{act}, Asker: mcp.ElicitAsker{}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			reqR, reqW := io.Pipe()
			respR, respW := io.Pipe()
			go mcp.NewServer(served, nil).Serve(ctx, reqR, respW)
			var asked []string
			cl, err := mcp.NewClient("s", mcp.ServerConfig{Conn: pipeConn{respR, reqW}}, &mcp.ClientOptions{
				Protocol: c.protocol,
				Elicit: func(_ context.Context, r mcp.ElicitRequest) (mcp.ElicitResponse, error) {
					asked = append(asked, r.Message)
					if strings.Contains(r.Message, `"no"`) {
						return mcp.ElicitResponse{Action: "decline"}, nil
					}
					return mcp.ElicitResponse{Action: "accept", Content: map[string]any{"allow": true}}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := cl.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			if got := cl.NegotiatedProtocol(); got != c.want {
				t.Fatalf("protocol %q, want %q", got, c.want)
			}
			tk := newKit(t, cl)
			st := tool.NewState(&permission.Context{Mode: permission.Default, Allow: []permission.Rule{{Tool: "mcp__s"}}})
			if r := call(t, tk, st, "mcp__s__act", `{"x":"yes"}`); r.Status != tool.StatusSuccess || r.Text() != "done yes" {
				t.Fatalf("approved: %s %q", r.Status, r.Text())
			}
			if r := call(t, tk, st, "mcp__s__act", `{"x":"no"}`); r.Status == tool.StatusSuccess {
				t.Fatalf("declined: %s %q", r.Status, r.Text())
			}
			if len(asked) != 2 || len(ran) != 1 || ran[0] != "yes" {
				t.Fatalf("asked %d times, ran %q", len(asked), ran)
			}
		})
	}
	if _, err := mcp.NewClient("s", mcp.ServerConfig{Command: "x"}, &mcp.ClientOptions{Protocol: "2099-01-01"}); err == nil || !strings.Contains(err.Error(), "unknown protocol") {
		t.Errorf("an unknown protocol: %v", err)
	}
}

// authAs sends every request with the Authorization header h.
type authAs struct{ h string }

func (a authAs) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", a.h)
	return http.DefaultTransport.RoundTrip(r)
}

// An approval over HTTP holds for the principal it was asked of: another
// one (another Authorization header) that sends the same call with the
// state and an "accept" is asked afresh, and nothing runs until the
// first answers.
func TestApprovalBoundToPrincipal(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	act, err := tool.NewFunction("Act on x.", func(_ context.Context, in actIn) (string, error) {
		mu.Lock()
		ran = append(ran, in.X)
		mu.Unlock()
		return "done " + in.X, nil
	}, &tool.FunctionOptions{Name: "act"})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{act}, Asker: mcp.ElicitAsker{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := mcp.NewServer(tk, nil).Handler(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	session := func(auth string) *sdk.ClientSession {
		c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true},
			ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) { return nil, nil }})
		s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: authAs{auth}}, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	alice, mallory := session("Bearer alice"), session("Bearer mallory")
	first, err := alice.CallTool(ctx, &sdk.CallToolParams{Name: "act", Arguments: map[string]any{"x": "one"}})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first round: %v %+v", err, first)
	}
	retry := func(s *sdk.ClientSession) *sdk.CallToolResult {
		r, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "act", Arguments: map[string]any{"x": "one"}, InputResponses: accept(map[string]any{"allow": true}), RequestState: first.RequestState})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := retry(mallory); !r.NeedsInput() {
		t.Fatalf("another principal's retry: %+v %q", r, text(r))
	}
	if len(ran) != 0 {
		t.Fatalf("ran %q on another principal's answer", ran)
	}
	if r := retry(alice); r.NeedsInput() || text(r) != "done one" {
		t.Fatalf("the principal's retry: %+v %q", r, text(r))
	}
}
