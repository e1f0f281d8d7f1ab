package temporal_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// A durable run's sub-agent is a child workflow on the dev server: its
// call that needs approval makes its run wait; run says so and names the
// sub-agent's run; runs lists both; an answer to the parent is refused
// with the run to answer; approving the sub-agent's call runs it once,
// and approve follows the answer to the parent, which ends.
func TestSubagentOnTemporal(t *testing.T) {
	addr, model, dir, q := fixture(t)
	prompt := "have a sub-agent make the file"
	model.script(prompt,
		step{calls: [][3]string{{"p1", "Agent", `{"description":"make it","prompt":"make made.txt","subagent_type":"general-purpose"}`}}},
		step{text: "The sub-agent made it."})
	model.script("make made.txt",
		step{calls: [][3]string{{"s1", "Bash", `{"command":"echo made >> made.txt"}`}}},
		step{text: "made"})
	w := startWorker(t, dir, q, model, nil)
	out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", prompt)
	if code != 3 {
		t.Fatalf("run: exit %d, want 3\nstdout: %s\nstderr: %s\nworker: %s", code, out, errOut, w.logs)
	}
	id := firstLine(out)
	child := id + "/agent/p1"
	if !strings.Contains(errOut, "run "+id+" waits for its sub-agent, whose run "+child+" waits") ||
		!strings.Contains(errOut, "call s1: Bash") || !strings.Contains(errOut, "toolscope approve --temporal "+addr+" "+child) {
		t.Fatalf("run's stderr:\n%s", errOut)
	}
	if got := readFile(t, dir, "made.txt"); got != "" {
		t.Fatalf("the sub-agent's call ran before its approval: %q", got)
	}

	out, _, _ = toolscope(t, "runs", "--temporal", addr, "--all", "--json")
	type run struct {
		WorkflowID string `json:"workflow_id"`
		Subagent   string `json:"subagent"`
		Parent     *struct {
			WorkflowID string `json:"workflow_id"`
			CallID     string `json:"call_id"`
			Kind       string `json:"kind"`
		} `json:"parent"`
		Waiting []struct {
			ID string `json:"id"`
		} `json:"waiting"`
	}
	var listed []run
	if err := json.Unmarshal([]byte(out), &listed); err != nil {
		t.Fatalf("runs --json: %v\n%s", err, out)
	}
	pi := slices.IndexFunc(listed, func(r run) bool { return r.WorkflowID == id })
	ci := slices.IndexFunc(listed, func(r run) bool { return r.WorkflowID == child })
	if pi < 0 || listed[pi].Subagent != child || ci < 0 || listed[ci].Parent == nil || listed[ci].Parent.WorkflowID != id ||
		listed[ci].Parent.CallID != "p1" || listed[ci].Parent.Kind != "general-purpose" || len(listed[ci].Waiting) != 1 || listed[ci].Waiting[0].ID != "s1" {
		t.Fatalf("runs --json:\n%s", out)
	}

	_, errOut, code = toolscope(t, "approve", "--temporal", addr, id, "p1")
	if code != 1 || !strings.Contains(errOut, "the run waits for its sub-agent, whose run "+child+" has the calls to answer") {
		t.Fatalf("approve of the parent: exit %d: %s", code, errOut)
	}
	out, errOut, code = toolscope(t, "approve", "--temporal", addr, child, "s1")
	if code != 0 || !strings.Contains(out, "The sub-agent made it.") {
		t.Fatalf("approve: exit %d\nstdout: %s\nstderr: %s\nworker: %s", code, out, errOut, w.logs)
	}
	if got := readFile(t, dir, "made.txt"); got != "made\n" {
		t.Fatalf("made.txt = %q, want the command run exactly once", got)
	}
	recordHistory(t, dial(t), id, "subagent")
}
