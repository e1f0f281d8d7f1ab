package builtin_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/tool/tooltest"
)

// Every built-in tool keeps the tool contract.
func TestBuiltinsConform(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	inputs := map[string][]json.RawMessage{
		"Bash":  {json.RawMessage(`{"command":"sleep 30"}`)},
		"Read":  {json.RawMessage(`{"file_path":"` + filepath.Join(root, "nope") + `"}`)},
		"Write": {json.RawMessage(`{"file_path":"` + filepath.Join(root, "w.txt") + `","content":"x"}`)},
		"Edit":  {json.RawMessage(`{"file_path":"` + filepath.Join(root, "w.txt") + `","old_string":"x","new_string":"y"}`)},
		"Glob":  {json.RawMessage(`{"pattern":"**/*"}`)},
		"Grep":  {json.RawMessage(`{"pattern":"x"}`)},
	}
	for _, tl := range builtin.All(&builtin.Options{Root: root}) {
		name := tl.Info().Name
		t.Run(name, func(t *testing.T) {
			tooltest.Run(t, tl, &tooltest.Options{Inputs: inputs[name]})
		})
	}
}
