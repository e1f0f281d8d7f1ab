package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/toolscope/toolscope/internal/peers"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/mcp/oauth"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// The MCP conformance suite (@modelcontextprotocol/conformance), as
// .ci/mcp-peers installs it. One version runs both revisions: its frozen
// requirement sets (requirements/REV.yaml) name the scenarios each revision
// requires, and run them at that revision's wire (2025-11-25: initialize
// handshake; 2026-07-28: stateless, per-request _meta).
const (
	confVersion = "0.2.0-alpha.12"
	confDir     = "conformance/node_modules/@modelcontextprotocol/conformance"
)

// confRevisions are the MCP revisions conformance is run for, each with the
// legs it runs: "client" (mcp.Client, through this test binary), "server"
// (a stateful HTTP handler) and "stateless" (a stateless HTTP handler).
// 2026-07-28 has no stateful leg: the SDK's stateful handler answers it
// with -32022 and offers 2025-11-25 (docs/mcp-2026-07-28.md §1.6).
var confRevisions = []struct {
	rev  string
	legs []string
}{
	{"2025-11-25", []string{"client", "server", "stateless"}},
	{"2026-07-28", []string{"client", "stateless"}},
}

// TestMain makes the test binary the conformance suite's client when
// TOOLSCOPE_CONFCLIENT is set: the suite runs it with the server's URL as
// its last argument, the scenario's name in MCP_CONFORMANCE_SCENARIO and
// the revision in MCP_CONFORMANCE_PROTOCOL_VERSION.
func TestMain(m *testing.M) {
	if os.Getenv("TOOLSCOPE_CONFCLIENT") == "1" {
		if err := confClient(os.Args[len(os.Args)-1], os.Getenv("MCP_CONFORMANCE_SCENARIO")); err != nil {
			fmt.Fprintln(os.Stderr, "confclient:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestConformanceClient runs every client scenario each revision requires
// (and those it runs without scoring) with this test binary as the client,
// built on mcp.Client, and compares the outcome with
// testdata/conformance-expected-REV.txt.
func TestConformanceClient(t *testing.T) {
	suite, node := peers.Need(t, confDir+"/dist/index.js", true)
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range confRevisions {
		t.Run(r.rev, func(t *testing.T) {
			t.Parallel()
			out := runConformance(t, node, suite, []string{"TOOLSCOPE_CONFCLIENT=1"}, "client", "--command", bin, "--requirements", r.rev)
			checkConformance(t, r.rev, "client", out)
		})
	}
}

// confClient runs one client scenario against the server at url, as an
// agent host would: an mcp.Client in a Toolkit, its tools called through
// the Toolkit.
func confClient(url, scenario string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var confCtx struct {
		ToolCalls []struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"toolCalls"`
	}
	if s := os.Getenv("MCP_CONFORMANCE_CONTEXT"); s != "" {
		if err := json.Unmarshal([]byte(s), &confCtx); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
	}
	srv := mcp.ServerConfig{URL: url}
	opts := &mcp.ClientOptions{
		Elicit: func(context.Context, mcp.ElicitRequest) (mcp.ElicitResponse, error) {
			if scenario == "sep-2322-client-request-state" {
				return mcp.ElicitResponse{Action: "accept", Content: map[string]any{"confirmed": true}}, nil
			}
			// Accept with no fields: the schema's defaults apply.
			return mcp.ElicitResponse{Action: "accept", Content: map[string]any{}}, nil
		},
	}
	// The revision the suite runs at picks the lifecycle: 2025-11-25 is
	// the client's default (initialize); from 2026-07-28 on, "auto"
	// (server/discover, then per-request _meta).
	want := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")
	if want < mcp.LatestProtocolVersion {
		opts.Protocol = mcp.ProtocolVersion
	}
	if strings.HasPrefix(scenario, "auth/") {
		return confOAuth(ctx, srv, opts)
	}
	c, err := mcp.NewClient("conf", srv, opts)
	if err != nil {
		return err
	}
	if err := c.Connect(ctx); err != nil {
		return err
	}
	defer c.Close()
	// "auto" falls back to 2025-11-25 when discovery fails: that would
	// pass a 2026-07-28 scenario at the wrong wire.
	if got := c.NegotiatedProtocol(); want != "" && got != want {
		return fmt.Errorf("the client speaks MCP %s, not the %s the scenario runs at", got, want)
	}
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Sources: []tool.Source{c}})
	if err != nil {
		return err
	}
	tools, err := c.Tools(ctx)
	if err != nil {
		return err
	}
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	// call calls the server's tool name (an mcp__conf__ name when it is
	// one already) with input; must says that the scenario needs it to
	// succeed (the others are there for what goes on the wire, and some
	// servers of the suite answer them with errors on purpose).
	call := func(name string, input any, must bool) error {
		if !strings.HasPrefix(name, "mcp__") {
			name = mcp.ToolName("conf", name)
		}
		in, err := json.Marshal(input)
		if err != nil {
			return err
		}
		r, err := tk.Call(ctx, &tool.Call{ID: "1", Name: name, Input: in, State: st})
		if err != nil {
			return err
		}
		fmt.Println(name, r.Status, r.Text())
		if must && r.Status != tool.StatusSuccess {
			return fmt.Errorf("%s: %s %s", name, r.Status, r.Text())
		}
		return nil
	}
	empty := map[string]any{}
	switch scenario {
	case "tools_call":
		return call("add_numbers", map[string]any{"a": 5, "b": 3}, true)
	case "elicitation-sep1034-client-defaults":
		return call("test_client_elicitation_defaults", empty, true)
	case "sse-retry":
		return call("test_reconnection", empty, true)
	case "sep-2322-client-request-state":
		for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"} {
			if err := call(name, empty, false); err != nil {
				return err
			}
		}
	case "http-standard-headers":
		if len(tools) > 0 {
			return call(tools[0].Info().Name, empty, false)
		}
	case "http-custom-headers":
		// The second call gives a boolean parameter null, which the
		// Toolkit refuses (the schema says boolean) before anything is
		// sent; the scenario is about what the client then sends (no
		// header for a null), so the calls go to the client's tools
		// themselves, past the Toolkit's validation.
		for _, tc := range confCtx.ToolCalls {
			i := slices.IndexFunc(tools, func(tl tool.Tool) bool { return tl.Info().Name == mcp.ToolName("conf", tc.Name) })
			if i < 0 {
				return fmt.Errorf("no tool %s", tc.Name)
			}
			in, err := json.Marshal(tc.Arguments)
			if err != nil {
				return err
			}
			for c, err := range tools[i].Call(ctx, &tool.Call{ID: "1", Name: tools[i].Info().Name, Input: in, State: st}) {
				if err != nil {
					return err
				}
				fmt.Println(tc.Name, c.Status, c.Content)
			}
		}
	case "http-invalid-tool-headers":
		for _, tl := range tools {
			if err := call(tl.Info().Name, map[string]any{"region": "us-west1"}, false); err != nil {
				return err
			}
		}
	case "json-schema-2020-12-preservation":
		// Echo the schema the client was given, for the suite to see
		// what survived.
		focal := mcp.ToolName("conf", "json_schema_2020_12_tool")
		i := slices.IndexFunc(tools, func(tl tool.Tool) bool { return tl.Info().Name == focal })
		if i < 0 {
			return fmt.Errorf("no tool %s", focal)
		}
		return call("json_schema_echo", map[string]any{"schema": tools[i].Info().InputSchema}, true)
	}
	// Else (initialize, request-metadata, json-schema-ref-no-deref):
	// connecting and listing is the scenario.
	return nil
}

// confOAuth runs an auth/* scenario as toolscope does: an mcp.Client
// connects and calls the server's tools; when it says that a login is
// needed (none yet, or a step-up of scope), the user logs in (toolscope
// mcp login; the suite's authorization server approves at once, so "the
// browser" only follows the redirects to the callback), and the client
// tries again, after three logins at most.
func confOAuth(ctx context.Context, srv mcp.ServerConfig, opts *mcp.ClientOptions) error {
	var cc struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &cc)
	dir, err := os.MkdirTemp("", "confoauth")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	const again = "[log in again]"
	srv.OAuth = &oauth.Config{Dir: dir, ClientID: cc.ClientID, ClientSecret: cc.ClientSecret, LoginHint: again,
		// The client metadata document URL the suite's basic-cimd
		// scenario expects.
		ClientMetadataURL: "https://conformance-test.local/client-metadata.json",
		OpenURL: func(u string) error {
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(u)
			if err != nil {
				return err
			}
			return resp.Body.Close()
		}}
	use := func() error {
		c, err := mcp.NewClient("conf", srv, opts)
		if err != nil {
			return err
		}
		if err := c.Connect(ctx); err != nil {
			return err
		}
		defer c.Close()
		// The listing first: the Toolkit would only log its failure.
		if _, err := c.Tools(ctx); err != nil {
			return err
		}
		tk, err := tool.NewToolkit(&tool.ToolkitOptions{Sources: []tool.Source{c}})
		if err != nil {
			return err
		}
		st := tool.NewState(&permission.Context{Mode: permission.Bypass})
		for _, s := range tk.Schemas(ctx, nil) {
			r, err := tk.Call(ctx, &tool.Call{ID: "1", Name: s.Name, Input: json.RawMessage(`{}`), State: st})
			if err != nil {
				return err
			}
			fmt.Println(s.Name, r.Status, r.Text())
			if strings.Contains(r.Text(), again) {
				return oauth.ErrLoginRequired
			}
		}
		return nil
	}
	for logins := 0; ; logins++ {
		err := use()
		if !errors.Is(err, oauth.ErrLoginRequired) || logins == 3 {
			return err
		}
		fmt.Fprintln(os.Stderr, "confclient:", err)
		if err := oauth.Login(ctx, srv.URL, srv.OAuth); err != nil {
			return err
		}
	}
}

// runConformance runs the suite with args and -o DIR, and returns DIR. The
// suite's exit status is not looked at: it fails when a scenario fails,
// and checkConformance judges the scenarios from the results in DIR. DIR
// is temporary, or, to look at the suite's results afterwards,
// $TOOLSCOPE_CONFORMANCE_OUT/TEST-NAME.
func runConformance(t *testing.T, node, suite string, env []string, args ...string) string {
	t.Helper()
	out := t.TempDir()
	if keep := os.Getenv("TOOLSCOPE_CONFORMANCE_OUT"); keep != "" {
		out = filepath.Join(keep, t.Name())
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(node, append([]string{suite}, append(args, "-o", out)...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), append(env, "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))...)
	log, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("conformance %v: %v\n%s", args, err, log)
	}
	if err := os.WriteFile(filepath.Join(out, "log.txt"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// confCheck is one check of a scenario's checks.json.
type confCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// failed reports whether the suite counts c as failed: FAILURE and
// WARNING fail a scenario.
func (c confCheck) failed() bool { return c.Status == "FAILURE" || c.Status == "WARNING" }

// confResults reads the checks of every scenario the suite ran into out,
// by scenario: its results are in out/[server-]SCENARIO-TIMESTAMP/checks.json
// (SCENARIO may have a slash: auth/metadata-default). A check id that
// repeats is kept once, with its worst status, as the suite does.
func confResults(t *testing.T, out string) map[string][]confCheck {
	t.Helper()
	stamp := regexp.MustCompile(`-\d{4}-\d\d-\d\dT[\d-]+Z$`)
	res := map[string][]confCheck{}
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return err
		}
		rel, err := filepath.Rel(out, filepath.Dir(path))
		if err != nil {
			return err
		}
		name := stamp.ReplaceAllString(filepath.ToSlash(rel), "")
		name = strings.TrimPrefix(name, "server-")
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var checks []confCheck
		if err := json.Unmarshal(b, &checks); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		rank := map[string]int{"FAILURE": 4, "WARNING": 3, "SUCCESS": 2, "INFO": 1}
		var merged []confCheck
		for _, c := range checks {
			i := slices.IndexFunc(merged, func(m confCheck) bool { return m.ID == c.ID })
			switch {
			case i < 0:
				merged = append(merged, c)
			case rank[c.Status] > rank[merged[i].Status]:
				merged[i] = c
			}
		}
		res[name] = merged
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// confRequirements is a requirement set of the suite
// (requirements/REV.yaml): the scenarios a revision requires, by leg
// ("client", "server"), and those it runs without scoring.
type confRequirements struct {
	Server    []string `yaml:"server"`
	Client    []string `yaml:"client"`
	NotScored []struct {
		Scenario string `yaml:"scenario"`
		Leg      string `yaml:"leg"`
		Reason   string `yaml:"reason"`
	} `yaml:"not_scored"`
}

// scenarios returns the scenarios the set runs on leg ("client" or
// "server"): the scored, then the others with why they are not scored.
func (r *confRequirements) scenarios(leg string) (scored []string, unscored map[string]string) {
	scored = r.Server
	if leg == "client" {
		scored = r.Client
	}
	unscored = map[string]string{}
	for _, n := range r.NotScored {
		if n.Leg == leg {
			unscored[n.Scenario] = n.Reason
		}
	}
	return scored, unscored
}

func readRequirements(t testing.TB, rev string) *confRequirements {
	t.Helper()
	path, _ := peers.Need(t, confDir+"/requirements/"+rev+".yaml", true)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r confRequirements
	if err := yaml.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}

// confExpected is an expected failure: a whole scenario (Check "") or one
// check of it, on a leg, and why.
type confExpected struct {
	Leg, Scenario, Check, Reason string
	Line                         int
}

// readExpected reads testdata/conformance-expected-REV.txt: a line per
// expected failure, "LEG SCENARIO[:CHECK-ID] REASON", LEG being client,
// server (stateful HTTP) or stateless (stateless HTTP); # starts a
// comment line.
func readExpected(t testing.TB, rev string) []confExpected {
	t.Helper()
	path := filepath.Join("testdata", "conformance-expected-"+rev+".txt")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []confExpected
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 || !slices.Contains([]string{"client", "server", "stateless"}, fields[0]) {
			t.Fatalf("%s:%d: want LEG SCENARIO[:CHECK] REASON, LEG client, server or stateless: %q", path, n, line)
		}
		e := confExpected{Leg: fields[0], Scenario: fields[1], Line: n}
		e.Scenario, e.Check, _ = strings.Cut(e.Scenario, ":")
		_, e.Reason, _ = strings.Cut(line, fields[1])
		e.Reason = strings.TrimSpace(e.Reason)
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkConformance compares the results in out of leg for revision rev
// with the expected failures: a scenario fails when one of its checks
// fails (FAILURE or WARNING); it must fail when it is listed, and pass
// when not. A scenario listed with a check may fail that check only, and
// the check must fail. Every scenario of the requirement set must have
// run.
func checkConformance(t *testing.T, rev, leg, out string) {
	t.Helper()
	req := readRequirements(t, rev)
	reqLeg := leg
	if leg == "stateless" {
		reqLeg = "server"
	}
	scored, unscored := req.scenarios(reqLeg)
	results := confResults(t, out)
	var expected []confExpected
	for _, e := range readExpected(t, rev) {
		if e.Leg == leg {
			expected = append(expected, e)
		}
	}
	log, _ := os.ReadFile(filepath.Join(out, "log.txt"))
	all := append(slices.Clone(scored), sortedKeys(unscored)...)
	for _, e := range expected {
		if !slices.Contains(all, e.Scenario) {
			t.Errorf("conformance-expected-%s.txt:%d: %s runs no scenario %s", rev, e.Line, leg, e.Scenario)
		}
	}
	pass, passUnscored := 0, 0
	for _, sc := range all {
		checks, ok := results[sc]
		if !ok {
			t.Errorf("%s %s: the suite reported no result (see its output below)", leg, sc)
			continue
		}
		var failed []confCheck
		for _, c := range checks {
			if c.failed() {
				failed = append(failed, c)
			}
		}
		var whole *confExpected
		ids := map[string]bool{}
		for i, e := range expected {
			if e.Scenario == sc {
				if e.Check == "" {
					whole = &expected[i]
				} else {
					ids[e.Check] = true
				}
			}
		}
		switch {
		case whole != nil:
			if len(failed) == 0 {
				t.Errorf("%s %s passes, but conformance-expected-%s.txt:%d lists it (%s): remove the line", leg, sc, rev, whole.Line, whole.Reason)
			}
		default:
			for _, c := range failed {
				if !ids[c.ID] {
					t.Errorf("%s %s: check %s %s: %s", leg, sc, c.ID, c.Status, c.ErrorMessage)
				}
			}
			for id := range ids {
				switch i := slices.IndexFunc(checks, func(c confCheck) bool { return c.ID == id }); {
				case i < 0:
					t.Errorf("%s %s: no check %s, which conformance-expected-%s.txt lists", leg, sc, id, rev)
				case !checks[i].failed():
					t.Errorf("%s %s: check %s %s, but conformance-expected-%s.txt lists it: remove the line", leg, sc, id, checks[i].Status, rev)
				}
			}
		}
		if len(failed) == 0 {
			if _, ok := unscored[sc]; ok {
				passUnscored++
			} else {
				pass++
			}
		}
	}
	t.Logf("conformance %s %s %s: %d/%d required scenarios pass; not scored: %d/%d pass", confVersion, rev, leg, pass, len(scored), passUnscored, len(unscored))
	if t.Failed() {
		t.Logf("the suite's output:\n%s", log)
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestConformanceReadme keeps README.md's MCP conformance section true:
// its table counts the scenarios the expected failures leave passing (the
// conformance tests hold those true), and it names every expected
// failure.
func TestConformanceReadme(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "\n## MCP conformance\n")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, r := range confRevisions {
		req := readRequirements(t, r.rev)
		expected := readExpected(t, r.rev)
		cells := map[string]string{"server": "—"}
		for _, leg := range r.legs {
			reqLeg := leg
			if leg == "stateless" {
				reqLeg = "server"
			}
			scored, _ := req.scenarios(reqLeg)
			pass := 0
			for _, sc := range scored {
				if !slices.ContainsFunc(expected, func(e confExpected) bool { return e.Leg == leg && e.Scenario == sc }) {
					pass++
				}
			}
			cells[leg] = fmt.Sprintf("%d/%d", pass, len(scored))
		}
		row := fmt.Sprintf("| %s | %s | %s | %s | %s |", confVersion, r.rev, cells["client"], cells["server"], cells["stateless"])
		if !strings.Contains(section, row) {
			t.Errorf("README.md's MCP conformance table has no row %s", row)
		}
		for _, e := range expected {
			name := e.Scenario
			if e.Check != "" {
				name = e.Check
			}
			for _, family := range []string{"auth/", "tasks-"} {
				if strings.HasPrefix(name, family) {
					name = family + "*"
				}
			}
			if !strings.Contains(section, "`"+name+"`") {
				t.Errorf("README.md's MCP conformance section does not name the expected failure %s %s (conformance-expected-%s.txt:%d)", e.Leg, name, r.rev, e.Line)
			}
		}
	}
}
