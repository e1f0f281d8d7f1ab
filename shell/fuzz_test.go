package shell

import (
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

func addTableSeeds(f *testing.F) {
	for _, r := range loadTable(f) {
		f.Add(r.Command)
	}
}

func FuzzAnalyze(f *testing.F) {
	addTableSeeds(f)
	dir := f.TempDir()
	opts := &Options{Mode: "accept_edits", Cwd: dir, WorkingDirs: []string{dir}, Home: "/home/fuzz"}
	f.Fuzz(func(t *testing.T, cmd string) {
		a := Analyze(cmd, opts)
		if strings.HasPrefix(a.Reason, "internal error") {
			t.Fatalf("panic while analysing %q: %s", cmd, a.Reason)
		}
		if a.ReadOnly && a.Verdict != Allow {
			t.Fatalf("%q: ReadOnly with verdict %s", cmd, a.Verdict)
		}
		if a.Verdict != Allow {
			return
		}
		if rejectReason(cmd, defaultMaxLength) != "" {
			t.Fatalf("%q: allowed despite rejected characters", cmd)
		}
		if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), ""); err != nil {
			t.Fatalf("%q: allowed despite parse error %v", cmd, err)
		}
	})
}

func FuzzMatchRule(f *testing.F) {
	for _, r := range loadTable(f) {
		f.Add("git log:*", r.Command)
	}
	f.Add(`echo \* *`, "echo * x")
	f.Add("npm install", "npm install x")
	f.Fuzz(func(t *testing.T, rule, cmd string) {
		all, any := MatchRule(rule, cmd)
		// The analysis's walk leaves its parse as it found it: matching
		// on it gives what a fresh parse gives.
		if a2, y2 := Analyze(cmd, &Options{KeepParse: true}).MatchRule(rule); a2 != all || y2 != any {
			t.Fatalf("MatchRule(%q, %q) = %v %v, but on the analysis's parse %v %v", rule, cmd, all, any, a2, y2)
		}
		if all {
			a := Analyze(cmd, nil)
			if a.Layer == LayerParse || a.Layer == LayerReject || a.Layer == LayerInjection && !strings.HasPrefix(a.Reason, "\"") {
				t.Fatalf("MatchRule(%q, %q): all=true for a command the analyser refuses (%s)", rule, cmd, a.Layer)
			}
		}
		Suggestions(cmd)
	})
}

func BenchmarkAnalyze(b *testing.B) { benchmarkAnalyze(b, nil) }

// BenchmarkAnalyzeEveryday measures the commands an agent runs all day
// (the table's benign and control-flow rows), without the adversarial
// ones (deep globs, huge paths, brace bombs).
func BenchmarkAnalyzeEveryday(b *testing.B) {
	benchmarkAnalyze(b, map[string]bool{"benign": true, "control_flow": true, "accept_edits_ok": true})
}

func benchmarkAnalyze(b *testing.B, classes map[string]bool) {
	all := loadTable(b)
	var rows []tableRow
	for _, r := range all {
		if classes == nil || classes[r.Class] {
			rows = append(rows, r)
		}
	}
	p := newProject(b)
	// An agent's project is not made in the second before each command:
	// let the fixture's directories age past the listing cache's
	// settling time (package dirsnap), as a real tree has.
	time.Sleep(1100 * time.Millisecond)
	cmds := make([]string, len(rows))
	opts := make([]*Options, len(rows))
	for i, r := range rows {
		cmds[i] = p.expand(r.Command)
		opts[i] = p.options(r)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, c := range cmds {
			Analyze(c, opts[j])
		}
	}
	b.ReportMetric(float64(len(cmds)*b.N)/b.Elapsed().Seconds(), "cmds/s")
}
