package shell

import (
	"os"
	"path/filepath"
	"strings"
)

var (
	mkdirSpec = &flagSpec{short: shorts("pvZ", "m", ""), long: longs("parents verbose help version", "mode", ""), strictShort: true, strictLong: true}
	touchSpec = &flagSpec{short: shorts("acmfh", "drt", ""), long: longs("no-create no-dereference help version", "date reference time", ""), strictShort: true, strictLong: true}
	rmEdit    = &flagSpec{short: shorts("rRfiIdv", "", ""), long: longs("recursive force one-file-system dir verbose help version", "", "no-preserve-root"), strictShort: true, strictLong: true}
	rmdirSpec = &flagSpec{short: shorts("pv", "", ""), long: longs("parents verbose ignore-fail-on-non-empty help version", "", ""), strictShort: true, strictLong: true}
	mvSpec    = &flagSpec{short: shorts("finvubTZ", "tS", ""), long: longs("force interactive no-clobber verbose strip-trailing-slashes no-target-directory exchange no-copy debug help version", "target-directory suffix", ""), strictShort: true, strictLong: true}
	cpSpec    = &flagSpec{short: shorts("aRrfinvupPLHdlxbTZ", "tS", "s"), long: longs("archive recursive force interactive no-clobber verbose dereference no-dereference link one-file-system parents remove-destination attributes-only copy-contents strip-trailing-slashes no-target-directory debug help version", "target-directory suffix sparse no-preserve", "symbolic-link"), strictShort: true, strictLong: true}
)

func init() {
	mkdirSpec.long["context"] = fOptValue
	rmEdit.long["interactive"] = fOptValue
	rmEdit.long["preserve-root"] = fOptValue
	for _, n := range []string{"backup", "update", "context"} {
		mvSpec.long[n] = fOptValue
		cpSpec.long[n] = fOptValue
	}
	cpSpec.long["preserve"] = fOptValue
	cpSpec.long["reflink"] = fOptValue
	rmSpec.long["interactive"] = fOptValue
}

type editPath struct {
	w         word
	forbidTop bool // the working directory itself may not be the target
}

// editPaths returns every path an auto-allowable filesystem command touches.
func (an *analyzer) editPaths(l *leaf, redirOnly bool) (string, []editPath, bool) {
	var paths []editPath
	for _, r := range l.redirs {
		if r.Word == nil || isHeredoc(r.Op) {
			continue
		}
		w := unquoteWord(an.src, r.Word)
		if isWriteRedir(r, w.s) && !exemptDev(w.s) {
			paths = append(paths, editPath{w: w})
		}
	}
	if l.emptyCmd || redirOnly {
		name := "redirect"
		if len(l.args) > 0 {
			name = l.args[0].s
		}
		return name, paths, len(paths) > 0
	}
	if len(l.args) == 0 || len(l.assigns) > 0 || l.background || l.cwdUnknown {
		return "", nil, false
	}
	name := l.args[0].s
	args := l.args[1:]
	var spec *flagSpec
	switch name {
	case "mkdir":
		spec = mkdirSpec
	case "touch":
		spec = touchSpec
	case "rm":
		spec = rmEdit
	case "rmdir":
		spec = rmdirSpec
	case "mv":
		spec = mvSpec
	case "cp":
		spec = cpSpec
	case "sed":
		sc := an.sedCheck(args, l.cwd)
		if sc.err != "" || !sc.inPlace || !sc.substOnly || len(sc.files) == 0 {
			return "", nil, false
		}
		for _, f := range sc.files {
			paths = append(paths, editPath{w: f})
		}
		return name, paths, true
	default:
		return "", nil, false
	}
	r := parseFlags(spec, args)
	if r.bad != "" || len(r.operands) == 0 {
		return "", nil, false
	}
	target, hasT := r.value("t", "target-directory")
	if hasT {
		tw := word{s: target, literal: true}
		for _, o := range r.opts {
			if o.name == "t" || o.name == "target-directory" {
				tw.tilde = strings.HasPrefix(o.value, "~")
			}
		}
		paths = append(paths, editPath{w: tw})
	}
	if ref, ok := r.value("r", "reference"); ok && name == "touch" {
		paths = append(paths, editPath{w: word{s: ref, literal: true}})
	}
	for i, o := range r.operands {
		ep := editPath{w: o}
		switch name {
		case "rm", "rmdir":
			ep.forbidTop = true
		case "mv":
			ep.forbidTop = hasT || i < len(r.operands)-1
		}
		paths = append(paths, ep)
	}
	return name, paths, true
}

// acceptEdits upgrades filesystem commands to Allow when every command in
// the chain is read-only or an edit whose targets are all inside a working
// directory.
func (an *analyzer) acceptEdits(res *Analysis, redirOnly []bool) {
	if len(an.cfg.workDirs) == 0 || an.hasCd {
		return
	}
	for _, l := range an.leaves {
		if len(l.args) > 0 && (l.args[0].s == "ln" || l.args[0].s == "link") {
			return
		}
	}
	type grant struct {
		i    int
		name string
	}
	var grants []grant
	for i, l := range an.leaves {
		c := &res.Commands[i]
		switch c.Verdict {
		case Ask:
			return
		case Allow:
			continue
		}
		name, paths, ok := an.editPaths(l, redirOnly[i])
		if !ok {
			return
		}
		for _, p := range paths {
			if !an.inside(p, l.cwd) {
				return
			}
		}
		grants = append(grants, grant{i, name})
	}
	for _, g := range grants {
		c := &res.Commands[g.i]
		c.Verdict, c.Layer = Allow, LayerAcceptEdits
		c.Reason = "filesystem command with all targets in a working directory"
		c.message = "Permission granted for '" + g.name + "' command (filesystem command, all targets in working directory)"
	}
}

// inside reports whether the path lies within a working directory, after
// ~ expansion, joining with cwd, cleaning and resolving symlinks on the
// longest existing prefix. Paths are compared component-wise.
func (an *analyzer) inside(ep editPath, cwd string) bool {
	w := ep.w
	if !w.literal || w.s == "" {
		return false
	}
	forbidTop := ep.forbidTop
	if w.glob {
		for _, c := range splitComps(w.s) {
			if hasMeta(c) && (c[0] == '.' || c[0] == '[') && (globMatch(c, "..") || globMatch(c, ".")) {
				return false
			}
		}
		i := strings.IndexAny(w.s, "*?[")
		prefix := w.s[:i]
		if j := strings.LastIndexByte(prefix, '/'); j >= 0 {
			prefix = prefix[:j+1]
		} else {
			prefix = "."
		}
		w.s = prefix
		forbidTop = false
	}
	p, ok := an.resolve(w, cwd)
	if !ok {
		return false
	}
	real, ok := evalPrefix(p)
	if !ok {
		return false
	}
	for _, r := range an.roots() {
		// Compare the resolved forms: a lexical path inside a root can
		// still escape through a symlink, and a path spelled through a
		// symlinked alias of a root is inside it.
		if within(r[1], real, forbidTop) {
			return true
		}
	}
	return false
}

// roots returns the working directories, cleaned and symlink-resolved,
// computed once per analysis.
func (an *analyzer) roots() [][2]string {
	if an.rootCache != nil {
		return an.rootCache
	}
	an.rootCache = [][2]string{}
	for _, root := range an.cfg.workDirs {
		if root == "" || !filepath.IsAbs(root) {
			continue
		}
		root = filepath.Clean(root)
		if real, ok := evalPrefix(root); ok {
			an.rootCache = append(an.rootCache, [2]string{root, real})
		}
	}
	return an.rootCache
}

func within(root, p string, forbidTop bool) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	return !(rel == "." && forbidTop)
}

// evalPrefix resolves symlinks on the longest existing prefix of p. An
// existing component that cannot be resolved (a dangling link) fails.
func evalPrefix(p string) (string, bool) {
	cur := p
	var rest []string
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				r = filepath.Join(r, rest[i])
			}
			return r, true
		}
		if _, lerr := os.Lstat(cur); lerr == nil {
			return "", false
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", false
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}
