package temporal_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/toolscope/toolscope/temporal"
)

// -record saves the histories of the integration tests' runs to
// testdata/histories, for TestReplay.
var record = flag.Bool("record", false, "save the integration tests' workflow histories to testdata/histories")

// recordHistory saves the history of run id as testdata/histories/name.json
// when -record is given.
func recordHistory(t testing.TB, c client.Client, id, name string) {
	t.Helper()
	if !*record {
		return
	}
	var h historypb.History
	it := c.GetWorkflowHistory(context.Background(), id, "", false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, ev)
	}
	b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(&h)
	if err != nil {
		t.Fatal(err)
	}
	// The workers' identities name this machine: not in the repository.
	b = regexp.MustCompile(`"identity":\s*"[^"]*"`).ReplaceAll(b, []byte(`"identity": "test-worker"`))
	if err := os.MkdirAll("testdata/histories", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata/histories", name+".json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReplay replays the recorded histories of real runs (approvals,
// denials, a lost worker, parallel calls) against the workflow as it is
// now: a change that would make a running workflow take another path on
// replay fails here. Record them again (go test -run Integration -record)
// only for a change meant to break them, with a versioned workflow.
func TestReplay(t *testing.T) {
	files, err := filepath.Glob("testdata/histories/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded histories in testdata/histories")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(temporal.Agent, workflow.RegisterOptions{Name: temporal.WorkflowName})
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			h, err := client.HistoryFromJSON(bytes.NewReader(b), client.HistoryJSONOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// A sub-agent's run is named after its parent's: the replay
			// runs under the recorded workflow id.
			opts := worker.ReplayWorkflowHistoryOptions{}
			for _, ev := range h.GetEvents() {
				if a := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes(); a != nil {
					if id, _, ok := strings.Cut(a.GetWorkflowId(), "/agent/"); ok {
						opts.OriginalExecution = workflow.Execution{ID: id, RunID: "replay"}
					}
				}
			}
			if err := r.ReplayWorkflowHistoryWithOptions(nil, h, opts); err != nil {
				t.Fatal(err)
			}
		})
	}
}
