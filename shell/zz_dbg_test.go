package shell

import (
	"os"
	"strings"
	"testing"
)

func TestDbg(t *testing.T) {
	p := newProject(t)
	for _, c := range strings.Split(os.Getenv("CMDS"), "|||") {
		mode := "default"
		if m, rest, ok := strings.Cut(c, "::"); ok {
			mode, c = m, rest
		}
		a := Analyze(p.expand(c), p.options(tableRow{Mode: mode}))
		t.Logf("%-40q %s %v %s: %s", c, a.Verdict, a.BypassImmune, a.Layer, a.Reason)
	}
}
func TestDbg2(t *testing.T) {
	p := newProject(t)
	o := p.options(tableRow{Mode: "accept_edits"})
	cfg := newConfig(o)
	t.Logf("acceptEdits=%v wd=%v", cfg.acceptEdits, cfg.policy.WorkingDirs())
	an := &analyzer{cfg: cfg, src: "mkdir -p a/b/c"}
	f, _ := parse(an.src)
	w := &walker{an: an}
	w.stmts(f.Stmts, scope{cwd: cwdState{dir: p.proj, pwd: p.proj}})
	an.leaves = w.leaves
	l := an.leaves[0]
	t.Logf("kind=%v tainted=%v", an.kindOf(l), l.tainted)
	name, paths, ok := an.editPaths(l, false)
	t.Logf("%s %v %v", name, len(paths), ok)
	for _, pp := range paths {
		x := an.judge(pp.w, l)
		t.Logf("%q inside=%q prot=%v %+v", pp.w.s, x.inside(), x.Protected, x.Path.Err)
	}
}
