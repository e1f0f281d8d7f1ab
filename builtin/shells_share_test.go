package builtin_test

import (
	"strings"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// TestShareShells: a shell started with a per-call state that shares an
// owner's shells is the owner's: another per-call state reads and kills
// it; closing a per-call state leaves it running, closing the owner kills
// it; the owner's prefix names the ids; a closed owner shares nothing.
func TestShareShells(t *testing.T) {
	e := bgEnv(t, permission.Bypass)
	owner := tool.NewState(nil)
	defer owner.Close()
	call := func(name string, in map[string]any) *tool.Result {
		st := tool.NewState(&permission.Context{Mode: permission.Bypass})
		defer st.Close() // a per-call state: closing it kills nothing
		if !builtin.ShareShells(st, owner, "bash_w1_") {
			t.Fatal("ShareShells refused an open owner")
		}
		e.st = st
		return e.call(name, in)
	}
	r := call("Bash", map[string]any{"command": printPgid + "sleep 1000", "run_in_background": true})
	text := e.mustOK(r)
	if text != "Command running in background with ID: bash_w1_1" {
		t.Fatalf("Bash answered %q", text)
	}
	var out string
	for !strings.Contains(out, "pgid") {
		out += e.mustOK(call("BashOutput", map[string]any{"bash_id": "bash_w1_1"}))
	}
	pgid := pgidOf(t, out)
	if groupGone(pgid) {
		t.Fatal("the shell died with the state that started it")
	}
	contains(t, e.mustOK(call("KillShell", map[string]any{"shell_id": "bash_w1_1"})), "Successfully killed shell: bash_w1_1")
	assertGone(t, pgid)

	call("Bash", map[string]any{"command": printPgid + "sleep 1000", "run_in_background": true})
	out = ""
	for !strings.Contains(out, "pgid") {
		out += e.mustOK(call("BashOutput", map[string]any{"bash_id": "bash_w1_2"}))
	}
	pgid = pgidOf(t, out)
	owner.Close()
	if !groupGone(pgid) {
		t.Fatal("closing the owner left its shell running")
	}
	st := tool.NewState(nil)
	if builtin.ShareShells(st, owner, "") {
		t.Fatal("a closed owner shared its shells")
	}
	if builtin.ShareShells(nil, tool.NewState(nil), "") {
		t.Fatal("a nil state shared")
	}
}
