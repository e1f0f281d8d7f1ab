package temporal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/temporal"
)

// queueName is a task queue of this test alone.
func queueName(t testing.TB) string {
	return strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + fmt.Sprint("-", time.Now().UnixNano())
}

// firstLine is the workflow id run prints.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// A run pauses on an approval; its worker is killed (SIGKILL) and another
// started; the approval arrives; the run completes and the approved
// command ran exactly once.
func TestApprovalSurvivesWorkerKill(t *testing.T) {
	addr := server(t)
	model := newModelServer(t)
	dir := t.TempDir()
	q := queueName(t)
	prompt := "append a line to ran.txt"
	model.script(prompt,
		step{text: "Appending.", calls: [][3]string{{"c1", "Bash", `{"command":"echo ran >> ran.txt"}`}}},
		step{text: "Done: the line is there."})

	w1 := startWorker(t, dir, q, model, nil)
	out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", prompt)
	if code != 3 {
		t.Fatalf("run: exit %d, want 3 (waiting for approval)\nstdout: %s\nstderr: %s\nworker: %s", code, out, errOut, w1.logs)
	}
	id := firstLine(out)
	if !strings.Contains(errOut, "waiting for approval: call c1: Bash") || !strings.Contains(errOut, "toolscope approve --temporal "+addr+" "+id) {
		t.Fatalf("run's stderr does not say what waits and how to answer:\n%s", errOut)
	}
	if got := readFile(t, dir, "ran.txt"); got != "" {
		t.Fatalf("the command ran before its approval: %q", got)
	}

	// The waiting run is listed, with its call, without a worker.
	w1.kill()
	out, errOut, code = toolscope(t, "runs", "--temporal", addr)
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "c1") || !strings.Contains(out, "echo ran") {
		t.Fatalf("runs: exit %d\n%s%s", code, out, errOut)
	}

	w2 := startWorker(t, dir, q, model, nil)
	out, errOut, code = toolscope(t, "approve", "--temporal", addr, id, "c1")
	if code != 0 || !strings.Contains(out, "Done: the line is there.") {
		t.Fatalf("approve: exit %d\nstdout: %s\nstderr: %s\nworker: %s", code, out, errOut, w2.logs)
	}
	if got := readFile(t, dir, "ran.txt"); got != "ran\n" {
		t.Fatalf("ran.txt = %q, want the command run exactly once", got)
	}
	// Answering again is refused: nothing waits.
	_, errOut, code = toolscope(t, "approve", "--temporal", addr, id, "c1")
	if code != 1 || !strings.Contains(errOut, "no call \"c1\" waits") {
		t.Fatalf("a second approve: exit %d: %s", code, errOut)
	}
	if got := readFile(t, dir, "ran.txt"); got != "ran\n" {
		t.Fatalf("ran.txt = %q after a second approve", got)
	}
	recordHistory(t, dial(t), id, "approval-after-worker-kill")
}

// A denied call: the model reads the reference's denied text, and the
// command never runs.
func TestDeniedCall(t *testing.T) {
	addr := server(t)
	model := newModelServer(t)
	dir := t.TempDir()
	q := queueName(t)
	prompt := "remove keep.txt"
	model.script(prompt,
		step{text: "Removing.", calls: [][3]string{{"c1", "Bash", `{"command":"rm keep.txt"}`}}},
		step{text: "As you wish."})
	writeFile(t, dir, "keep.txt", "keep\n")
	startWorker(t, dir, q, model, nil)
	out, _, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", prompt)
	if code != 3 {
		t.Fatalf("run: exit %d, want 3", code)
	}
	id := firstLine(out)
	out, errOut, code := toolscope(t, "deny", "--temporal", addr, id, "c1")
	if code != 0 || !strings.Contains(out, "As you wish.") {
		t.Fatalf("deny: exit %d\n%s%s", code, out, errOut)
	}
	got, ok := model.toolResult(prompt, "c1")
	if want := agent.DeniedText("Bash"); !ok || got != want {
		t.Fatalf("the model read %q for the denied call, want %q", got, want)
	}
	if readFile(t, dir, "keep.txt") != "keep\n" {
		t.Fatal("the denied command ran")
	}
	// The transcript, through the run query, has the denied result.
	var r agent.Run
	v, err := dial(t).QueryWorkflow(context.Background(), id, "", temporal.RunQuery)
	if err == nil {
		err = v.Get(&r)
	}
	if err != nil {
		t.Fatalf("the run query: %v", err)
	}
	if n := len(r.Messages); n < 4 || r.Messages[2].Result == nil || r.Messages[2].Result.Status != "denied" || r.Messages[n-1].Text != "As you wish." {
		t.Fatalf("the transcript: %+v", r.Messages)
	}
	recordHistory(t, dial(t), id, "denied")
}

func writeFile(t testing.TB, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
