package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Malformed frames on stdio are answered with a JSON-RPC error (parse
// error -32700, invalid request -32600; the request's id when it has a
// usable one, null otherwise) or, when notification-shaped, dropped; the
// session serves on with its state: an Edit after them needs no second
// Read. A frame over the size limit is refused the same way. Today the
// server exited on most of them.
func TestServeStdioSurvivesMalformedFrames(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	os.WriteFile(file, []byte("alpha\n"), 0o644)
	p := startServe(t, buildCLI(t), dir, "--mode", "accept_edits")
	p.initialize(t)
	fileJSON, _ := json.Marshal(file)
	if text, isErr := toolText(t, p.reply(t, 1, "tools/call", `{"name":"Read","arguments":{"file_path":`+string(fileJSON)+`}}`)); isErr {
		t.Fatalf("Read: %s", text)
	}
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	frames := []struct {
		frame string
		code  int    // 0: no answer (a notification)
		id    string // the answer's id
	}{
		{`hello`, -32700, "null"},
		{`{"jsonrpc":"2.0","id":20,"method":"ping"`, -32700, "null"},
		{`{}`, -32600, "null"},
		{`[]`, -32600, "null"},
		{`null`, -32600, "null"},
		{`42`, -32600, "null"},
		{`"ping"`, -32600, "null"},
		{`{"jsonrpc":"1.0","id":21,"method":"ping"}`, -32600, "21"},
		{`{"id":22,"method":"ping"}`, -32600, "22"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":[23],"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, -32600, "null"},
		{`[{"jsonrpc":"2.0","id":24,"method":"ping"},{"jsonrpc":"2.0","id":25,"method":"ping"}]`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":26,"method":"ping","params":` + deep + `}`, -32700, "null"},
		{`{"jsonrpc":"2.0","id":27,"method":"ping"} trailing`, -32700, "null"},
		{`{"jsonrpc":"2.0","id":28,"method":"ping"}{"jsonrpc":"2.0","id":29,"method":"ping"}`, -32700, "null"},
		{`{"jsonrpc":"2.0","id":30,"method":5}`, -32600, "30"},
		{`{"jsonrpc":"2.0","id":31,"method":"tools/list","params":"x"}`, -32600, "31"},
		{`{"jsonrpc":"2.0","id":32}`, -32600, "32"},
		{`{"jsonrpc":"1.0","method":"notifications/initialized"}`, 0, ""},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}`, 0, ""},
	}
	for _, f := range frames {
		p.send(t, f.frame)
		if f.code == 0 {
			continue
		}
		m := p.recv(t, 10*time.Second)
		var e struct{ Code int }
		json.Unmarshal(m["error"], &e)
		if e.Code != f.code || string(m["id"]) != f.id {
			t.Errorf("%.60s: answer %s %s, want code %d id %s", f.frame, m["id"], m["error"], f.code, f.id)
		}
	}
	// A frame over 16 MiB: refused, naming its request; nothing else lost.
	big := `{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"Write","arguments":{"file_path":"` + filepath.Join(dir, "big.txt") + `","content":"` + strings.Repeat("x", 17<<20) + `"}}}`
	p.send(t, big)
	if m := p.recv(t, 20*time.Second); string(m["id"]) != "40" || !strings.Contains(string(m["error"]), "too large") {
		t.Errorf("17 MiB frame: %s %.300s", m["id"], m["error"])
	}
	if _, err := os.Stat(filepath.Join(dir, "big.txt")); err == nil {
		t.Error("the oversized Write ran")
	}
	// The session goes on, with its state: the notifications got no
	// answer (the next message is tools/list's), and Edit knows the Read.
	if m := p.reply(t, 2, "tools/list", `{}`); m["result"] == nil || !strings.Contains(string(m["result"]), `"Edit"`) {
		t.Errorf("tools/list after the bad frames: %.300s", m["error"])
	}
	if text, isErr := toolText(t, p.reply(t, 3, "tools/call", `{"name":"Edit","arguments":{"file_path":`+string(fileJSON)+`,"old_string":"alpha","new_string":"beta"}}`)); isErr {
		t.Errorf("Edit after the bad frames (the Read should still count): %s", text)
	}
	if b, _ := os.ReadFile(file); string(b) != "beta\n" {
		t.Errorf("file after Edit: %q", b)
	}
	p.stdin.Close()
	if code := p.wait(t, 10*time.Second); code != 0 {
		t.Errorf("serve exited %d when its client closed stdin (stderr: %s)", code, p.stderr.String())
	}
}
