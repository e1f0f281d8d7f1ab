package builtin_test

import (
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/tool"
)

// TestToolkitConstructionAllocs: building a Toolkit of the built-in tools,
// which every toolscope command does once per process, compiles their
// schemas to the fast checker only (no jsonschema-go resolution, which
// took three quarters of a `toolscope check` in process: 8 916
// allocations then, 1 745 now).
func TestToolkitConstructionAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	dir := t.TempDir()
	n := testing.AllocsPerRun(20, func() {
		if _, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: dir})}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.0f allocations per Toolkit of the built-in tools", n)
	if n > 2500 {
		t.Errorf("%.0f allocations to build a Toolkit of the built-in tools, want at most 2500", n)
	}
}
