package temporal_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestApprovalShowsWhole: a waiting call whose input is larger than the
// memo keeps (4 KiB) and holds control characters is shown whole and
// escaped wherever a person judges it: run's pause listing, runs, and
// approve; an input with a key twice is refused before it is judged.
func TestApprovalShowsWhole(t *testing.T) {
	addr, model, dir, q := fixture(t)
	prompt := "write a padded line"
	pad := strings.Repeat("x", 6000)
	cmd := "echo " + pad + " >> big.txt; echo \x1b[2J\r tail >> big.txt"
	in, _ := json.Marshal(map[string]string{"command": cmd})
	model.script(prompt,
		step{text: "Writing.", calls: [][3]string{{"c1", "Bash", string(in)}}},
		step{text: "Written."})
	w := startWorker(t, dir, q, model, nil)
	out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", prompt)
	if code != 3 {
		t.Fatalf("run: exit %d\n%s%s\nworker: %s", code, out, errOut, w.logs)
	}
	id := firstLine(out)
	for what, text := range map[string]string{"run": errOut} {
		if !strings.Contains(text, pad) || !strings.Contains(text, `\u001b[2J\r tail`) || strings.Contains(text, "\x1b") {
			t.Errorf("%s does not show the input whole and escaped:\n%.300s", what, text)
		}
	}
	out, errOut, code = toolscope(t, "runs", "--temporal", addr)
	if code != 0 || strings.Contains(out, "…") || strings.Contains(out, "\x1b") || !strings.Contains(out, id) {
		t.Errorf("runs: exit %d, a cut or raw listing:\n%.400s%s", code, out, errOut)
	}
	out, errOut, code = toolscope(t, "approve", "--temporal", addr, id, "c1")
	if code != 0 || !strings.Contains(errOut, pad) || !strings.Contains(errOut, `\u001b[2J\r tail`) || strings.Contains(errOut, "\x1b") {
		t.Fatalf("approve: exit %d, the approval does not show the input whole and escaped:\n%.400s\n%s", code, errOut, out)
	}
	if got := readFile(t, dir, "big.txt"); !strings.Contains(got, pad) {
		t.Fatalf("the approved call did not run: %q", got)
	}

	// An input with a key twice means two things: it is refused as
	// invalid before it is judged (nothing waits for approval), and the
	// model reads why.
	prompt = "a call with a key twice"
	model.script(prompt,
		step{text: "Twice.", calls: [][3]string{{"c2", "Bash", `{"command":"echo shown >> two.txt","command":"echo hidden >> two.txt"}`}}},
		step{text: "Done."})
	out, errOut, code = toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", prompt)
	if code != 0 || !strings.Contains(out, "Done.") {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	if res, _ := model.toolResult(prompt, "c2"); !strings.Contains(res, `holds the key "command" twice`) {
		t.Errorf("the model read %q", res)
	}
	if got := readFile(t, dir, "two.txt"); got != "" {
		t.Fatalf("the call ran: %q", got)
	}
}
