package cli

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toolscope/toolscope/host"
)

// Installing toolscope's hook in any settings text that parses, then
// uninstalling it, gives back the text byte for byte; the installed text
// parses and runs the hook; text that does not parse is refused, never
// written.
func FuzzHookInstall(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { "a": 1 } `, `{"hooks": {}}`, `{"hooks": {"PreToolUse": []}}`,
		`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]},]}}`,
		"{\n // c\n \"hooks\": /* x */ {\"Stop\": []}, }",
		`{"hooks": {"PreToolUse": [{"hooks": [{"command": "toolscope hook claude-code"}, {"command": "y"}]}]}}`,
		`{"hooks": []}`, `[]`, `{`, `{"a": "\"}"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		const cmd = "toolscope hook claude-code"
		out, changed, err := installClaudeHook(text, cmd)
		if err != nil {
			return
		}
		// Parsed as Claude Code does: keys by their exact spelling.
		var v map[string]any
		if err := json.Unmarshal(host.StripJSONC(out), &v); err != nil {
			t.Fatalf("installed text does not parse: %v\n%s", err, out)
		}
		found := false
		hooks, _ := v["hooks"].(map[string]any)
		groups, _ := hooks["PreToolUse"].([]any)
		for _, g := range groups {
			gm, _ := g.(map[string]any)
			hs, _ := gm["hooks"].([]any)
			for _, h := range hs {
				hm, _ := h.(map[string]any)
				c, _ := hm["command"].(string)
				found = found || isOurHook(c)
			}
		}
		if !found {
			t.Fatalf("no hook after install:\n%s", out)
		}
		if !changed {
			return // there already
		}
		back, removed, err := uninstallClaudeHook(out)
		if err != nil || !removed {
			t.Fatalf("uninstall: %v %v\n%s", removed, err, out)
		}
		// The same settings; and, when the file had PreToolUse's list
		// already, the same text (else the list install made stays, empty).
		if err := sameBut(text, back, false); err != nil {
			t.Fatalf("install then uninstall changed the settings: %v\n%q\n%q", err, text, back)
		}
		var before map[string]any
		json.Unmarshal(host.StripJSONC(text), &before)
		bh, _ := before["hooks"].(map[string]any)
		if _, had := bh["PreToolUse"].([]any); had && !bytes.Equal(back, text) {
			t.Fatalf("install then uninstall changed the text:\n%q\n%q", text, back)
		}
	})
}
