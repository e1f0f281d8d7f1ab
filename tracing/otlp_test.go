package tracing_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/tracing"
)

// collector is an OTLP/HTTP endpoint that keeps every request's raw
// body (decompressed) and headers.
type collector struct {
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
	status  int
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var rd io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		rd = zr
	}
	b, _ := io.ReadAll(rd)
	c.mu.Lock()
	c.bodies = append(c.bodies, b)
	c.headers = append(c.headers, r.Header.Clone())
	status := c.status
	c.mu.Unlock()
	if r.URL.Path != "/v1/traces" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if status != 0 {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", r.Header.Get("Content-Type"))
	w.WriteHeader(200)
}

func (c *collector) all() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Join(c.bodies, nil)
}

func startCollector(t *testing.T) (*collector, *httptest.Server) {
	c := &collector{}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return c, srv
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The secrets a user's tool calls may carry, each in its own shape.
var secrets = []string{
	"AKIAIOSFODNN7EXAMPLE",                     // an AWS access key id
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", // its secret key
	"hunter2-the-password",                     // password=...
	"s3cr3tB34rerT0ken",                        // Authorization: Bearer ...
	"ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234", // a GitHub token
	"zz-api-token-value",                       // {"api_token": ...}
	"MIIEowIBAAKCAQEAsecretkeymaterial",        // a PEM private key's body
	"dbpass-in-url",                            // postgres://user:dbpass-in-url@host
	"SECRET_FROM_DOTENV_9f8e7d",                // the content of .env, read back
}

// With content capture on, the inputs and results of tool calls go out
// redacted: none of the secrets is in any byte the collector gets, over
// protobuf, JSON and gzip alike, while what is not secret still is.
func TestCaptureNeverExportsSecrets(t *testing.T) {
	for _, proto := range []string{"http/protobuf", "http/json"} {
		t.Run(strings.ReplaceAll(proto, "/", "-"), func(t *testing.T) {
			c, srv := startCollector(t)
			tr, err := tracing.FromEnv(&tracing.EnvOptions{Getenv: envOf(map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT":                        srv.URL,
				"OTEL_EXPORTER_OTLP_PROTOCOL":                        proto,
				"OTEL_EXPORTER_OTLP_COMPRESSION":                     "gzip",
				"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true",
			})})
			if err != nil || tr == nil {
				t.Fatalf("FromEnv: %v, %v", tr, err)
			}
			root, tk, st := world(t, tr, echo(t))
			os.WriteFile(filepath.Join(root, ".env"), []byte("TOKEN=SECRET_FROM_DOTENV_9f8e7d\n"), 0o600)
			text := "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY; " +
				"curl -H 'Authorization: Bearer s3cr3tB34rerT0ken' -d password=hunter2-the-password https://example.test/visible-path; " +
				"git push https://ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234@github.com/x/y; psql postgres://admin:dbpass-in-url@db/x\n" +
				"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAsecretkeymaterial\n-----END RSA PRIVATE KEY-----"
			m := &scripted{answers: [][]agent.ModelEvent{
				{call("e1", "Echo", map[string]any{"text": text}),
					call("e2", "Echo", map[string]any{"text": "plain words", "api_token": "zz-api-token-value"}),
					call("e3", "Echo", map[string]any{"text": "TOKEN=SECRET_FROM_DOTENV_9f8e7d", "path": filepath.Join(root, ".env")})},
				{{Text: "ok"}},
			}}
			a := &agent.Agent{Model: tr.Model(m, "openai", "gpt-test"), Toolkit: tk}
			run := agent.NewRun(st)
			for _, err := range tr.InvokeAgent(context.Background(), "toolscope", func(ctx context.Context) iter.Seq2[agent.Event, error] { return a.Run(ctx, run, "go") }) {
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := tr.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			body := c.all()
			if len(body) == 0 {
				t.Fatal("nothing exported")
			}
			for _, s := range secrets {
				if bytes.Contains(body, []byte(s)) {
					t.Errorf("the secret %q was exported", s)
				}
			}
			for _, s := range []string{"visible-path", "plain words", tracing.Redacted, "execute_tool Echo", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "WITHHELD"} {
				if !bytes.Contains(body, []byte(s)) {
					t.Errorf("%q is not in the export", s)
				}
			}
			if h := c.headers[0]; h.Get("Content-Encoding") != "gzip" || !strings.Contains(h.Get("Content-Type"), map[string]string{"http/protobuf": "protobuf", "http/json": "json"}[proto]) {
				t.Errorf("headers: %v", h)
			}
		})
	}
}

// The JSON encoding is OTLP/JSON: hex ids, the parent's id, the resource
// from the environment, kinds and status codes as numbers, 64-bit
// integers as strings; headers from the environment reach the collector.
func TestOTLPJSONShape(t *testing.T) {
	c, srv := startCollector(t)
	tr, err := tracing.FromEnv(&tracing.EnvOptions{Getenv: envOf(map[string]string{
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": srv.URL + "/v1/traces",
		"OTEL_EXPORTER_OTLP_PROTOCOL":        "http/json",
		"OTEL_EXPORTER_OTLP_HEADERS":         "x-api-key=k%3D1 , x-team = tools",
		"OTEL_SERVICE_NAME":                  "my-agent",
		"OTEL_RESOURCE_ATTRIBUTES":           "deployment.environment=test,service.name=ignored",
	})})
	if err != nil {
		t.Fatal(err)
	}
	ctx, parent := tr.Start(context.Background(), "invoke_agent x", tracing.KindInternal)
	_, child := tr.Start(ctx, "chat m", tracing.KindClient, tracing.Int("n", 1<<40), tracing.Bool("b", true), tracing.Float("f", 0.5))
	child.SetError("timeout", "slow")
	child.End()
	parent.End()
	tr.Shutdown(context.Background())
	if len(c.bodies) != 1 {
		t.Fatalf("%d requests", len(c.bodies))
	}
	if h := c.headers[0]; h.Get("X-Api-Key") != "k=1" || h.Get("X-Team") != "tools" || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers: %v", h)
	}
	var req struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []struct {
					Key   string         `json:"key"`
					Value map[string]any `json:"value"`
				} `json:"attributes"`
			} `json:"resource"`
			ScopeSpans []struct {
				Scope struct{ Name string } `json:"scope"`
				Spans []struct {
					TraceID, SpanID, ParentSpanID, Name string
					Kind                                int
					StartTimeUnixNano                   string
					Attributes                          []struct {
						Key   string         `json:"key"`
						Value map[string]any `json:"value"`
					} `json:"attributes"`
					Status struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"status"`
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	if err := json.Unmarshal(c.bodies[0], &req); err != nil {
		t.Fatal(err)
	}
	rs := req.ResourceSpans[0]
	res := map[string]any{}
	for _, a := range rs.Resource.Attributes {
		res[a.Key] = a.Value["stringValue"]
	}
	if res["service.name"] != "my-agent" || res["deployment.environment"] != "test" || res["telemetry.sdk.name"] != "toolscope" {
		t.Errorf("resource: %v", res)
	}
	spans := rs.ScopeSpans[0].Spans
	if len(spans) != 2 || rs.ScopeSpans[0].Scope.Name != "github.com/toolscope/toolscope/tracing" {
		t.Fatalf("spans: %+v", rs.ScopeSpans)
	}
	ch, p := spans[0], spans[1]
	if ch.Name != "chat m" || ch.Kind != 3 || ch.ParentSpanID != p.SpanID || ch.TraceID != p.TraceID || len(ch.TraceID) != 32 || len(ch.SpanID) != 16 ||
		ch.Status.Code != 2 || ch.Status.Message != "slow" || p.ParentSpanID != "" || p.Kind != 1 || ch.StartTimeUnixNano == "" {
		t.Errorf("spans: %+v", spans)
	}
	got := map[string]any{}
	for _, a := range ch.Attributes {
		for _, v := range a.Value {
			got[a.Key] = v
		}
	}
	if got["n"] != "1099511627776" || got["b"] != true || got["f"] != 0.5 || got["error.type"] != "timeout" {
		t.Errorf("attributes: %v", got)
	}
}

// A collector that fails: the export error is said once, with the
// status, and the spans are counted as failed; nothing blocks or panics.
func TestExportFailureSaidOnce(t *testing.T) {
	c, srv := startCollector(t)
	c.status = http.StatusBadRequest
	var warn strings.Builder
	tr, err := tracing.FromEnv(&tracing.EnvOptions{Warnings: &warn, Getenv: envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL + "/"})})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, sp := tr.Start(context.Background(), "x", tracing.KindInternal)
		sp.End()
		tr.Flush(context.Background())
	}
	tr.Shutdown(context.Background())
	if n := strings.Count(warn.String(), "\n"); n != 1 || !strings.Contains(warn.String(), "400 Bad Request") {
		t.Errorf("warnings: %q", warn.String())
	}
	if tr.Failed() != 3 || len(c.bodies) != 3 {
		t.Errorf("%d failed, %d requests", tr.Failed(), len(c.bodies))
	}
}

// An unreachable collector whose URL carries credentials: the warning
// names it without them.
func TestUnreachableCollectorHidesCredentials(t *testing.T) {
	_, srv := startCollector(t)
	url := strings.Replace(srv.URL, "http://", "http://user:pw-in-url@", 1)
	srv.Close()
	var warn strings.Builder
	tr, err := tracing.FromEnv(&tracing.EnvOptions{Warnings: &warn, Getenv: envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url, "OTEL_EXPORTER_OTLP_TIMEOUT": "500"})})
	if err != nil {
		t.Fatal(err)
	}
	_, sp := tr.Start(context.Background(), "x", tracing.KindInternal)
	sp.End()
	tr.Shutdown(context.Background())
	if w := warn.String(); !strings.Contains(w, "export to http://127.0.0.1") || strings.Contains(w, "pw-in-url") {
		t.Errorf("warning: %q", w)
	}
}

// The environment turns tracing on and off, and what it gets wrong is an
// error naming the variable, never the value.
func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		on   bool
		err  string
	}{
		{"nothing set", map[string]string{}, false, ""},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318"}, true, ""},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://c.example/v1/traces"}, true, ""},
		{"exporter none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_TRACES_EXPORTER": "none"}, false, ""},
		{"sdk disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_SDK_DISABLED": "true"}, false, ""},
		{"exporter otlp", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_TRACES_EXPORTER": "otlp"}, true, ""},
		{"exporter console", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_TRACES_EXPORTER": "console"}, false, "OTEL_TRACES_EXPORTER"},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, "grpc is not supported"},
		{"traces protocol wins", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, true, ""},
		{"bad protocol", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "carrier-pigeon"}, false, "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{"not a URL", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"}, false, "not an http:// or https:// URL"},
		{"bad header", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%ZZsecretvalue"}, false, "OTEL_EXPORTER_OTLP_HEADERS"},
		{"header without value", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_EXPORTER_OTLP_HEADERS": "secretvalue"}, false, "no key=value"},
		{"header with a line break", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_EXPORTER_OTLP_HEADERS": "a=secretvalue%0Ax"}, false, "line break"},
		{"bad timeout", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, false, "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{"bad compression", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, false, "gzip or none"},
		{"bad queue", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_BSP_MAX_QUEUE_SIZE": "-1"}, false, "OTEL_BSP_MAX_QUEUE_SIZE"},
		{"bad resource", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_RESOURCE_ATTRIBUTES": "=secretvalue"}, false, "OTEL_RESOURCE_ATTRIBUTES"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := tracing.FromEnv(&tracing.EnvOptions{Getenv: envOf(tc.env)})
			defer tr.Shutdown(context.Background())
			if (tr != nil) != tc.on {
				t.Errorf("tracing on: %v, want %v", tr != nil, tc.on)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("error: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one saying %q", err, tc.err)
			case err != nil && strings.Contains(err.Error(), "secretvalue"):
				t.Errorf("the error shows the value: %v", err)
			}
		})
	}
}
