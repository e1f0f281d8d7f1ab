package shell

import (
	"strings"

	"github.com/toolscope/toolscope/internal/bashglob"

	"github.com/toolscope/toolscope/internal/pathpolicy"
	"github.com/toolscope/toolscope/shell/internal/specs"
	"github.com/toolscope/toolscope/shell/internal/unquote"
)

var (
	mkdirSpec = &specs.Flags{Short: specs.Shorts("pvZ", "m", ""), Long: specs.Longs("parents verbose help version", "mode", ""), StrictShort: true, StrictLong: true}
	touchSpec = &specs.Flags{Short: specs.Shorts("acmfh", "drt", ""), Long: specs.Longs("no-create no-dereference help version", "date reference time", ""), StrictShort: true, StrictLong: true}
	rmEdit    = &specs.Flags{Short: specs.Shorts("rRfiIdv", "", ""), Long: specs.Longs("recursive force one-file-system dir verbose help version", "", "no-preserve-root"), StrictShort: true, StrictLong: true}
	rmdirSpec = &specs.Flags{Short: specs.Shorts("pv", "", ""), Long: specs.Longs("parents verbose ignore-fail-on-non-empty help version", "", ""), StrictShort: true, StrictLong: true}
	mvSpec    = &specs.Flags{Short: specs.Shorts("finvubTZ", "tS", ""), Long: specs.Longs("force interactive no-clobber verbose strip-trailing-slashes no-target-directory exchange no-copy debug help version", "target-directory suffix", ""), StrictShort: true, StrictLong: true}
	cpSpec    = &specs.Flags{Short: specs.Shorts("aRrfinvupPLHdlxbTZ", "tS", "s"), Long: specs.Longs("archive recursive force interactive no-clobber verbose dereference no-dereference link one-file-system parents remove-destination attributes-only copy-contents strip-trailing-slashes no-target-directory debug help version", "target-directory suffix sparse no-preserve", "symbolic-link"), StrictShort: true, StrictLong: true}
)

func init() {
	mkdirSpec.Long["context"] = specs.ArgOptional
	rmEdit.Long["interactive"] = specs.ArgOptional
	rmEdit.Long["preserve-root"] = specs.ArgOptional
	for _, n := range []string{"backup", "update", "context"} {
		mvSpec.Long[n] = specs.ArgOptional
		cpSpec.Long[n] = specs.ArgOptional
	}
	cpSpec.Long["preserve"] = specs.ArgOptional
	cpSpec.Long["reflink"] = specs.ArgOptional
	rmSpec.Long["interactive"] = specs.ArgOptional
}

type editPath struct {
	w         word
	forbidTop bool // the working directory itself may not be the target
}

// editPaths returns every path an auto-allowable filesystem command
// touches: its operands, the values of -t, --target-directory and
// --reference, sed's files and backups, and its output redirections.
func (an *analyzer) editPaths(l *leaf, redirOnly bool) (string, []editPath, bool) {
	if l.tainted || l.cwdUnknown || l.steer != "" {
		return "", nil, false
	}
	var paths []editPath
	for _, r := range l.redirs {
		for _, w := range r.ws {
			if !r.hdoc && isWriteRedir(r.op, w.Value) && !exemptDev(w.Value) {
				paths = append(paths, editPath{w: w})
			}
		}
	}
	if l.emptyCmd || redirOnly {
		name := "redirect"
		if len(l.args) > 0 {
			name = l.args[0].Value
		}
		return name, paths, len(paths) > 0
	}
	if len(l.args) == 0 || len(l.assigns) > 0 || l.background {
		return "", nil, false
	}
	name := l.args[0].Value
	args := l.args[1:]
	var spec *specs.Flags
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
		sc := an.sedCheck(args, l)
		if sc.err != "" || !sc.inPlace || !sc.substOnly || len(sc.files) == 0 || hasFollow(args) {
			return "", nil, false
		}
		for _, f := range append(sc.files, sc.backups...) {
			paths = append(paths, editPath{w: f})
		}
		return name, paths, true
	default:
		return "", nil, false
	}
	r := specs.ParseFlags(spec, args)
	if r.Bad != "" || len(r.Operands) == 0 {
		return "", nil, false
	}
	for _, w := range l.args[1:] {
		if !w.Literal || w.Glob && an.globMayDash(w, l) {
			// A glob that expands to a word starting with - is an option
			// (a file named --target-directory=.. makes cp * src copy out
			// of the project), and so may one an earlier command of the
			// line creates files for.
			return "", nil, false
		}
	}
	target, hasT := r.Value("t", "target-directory")
	if hasT {
		paths = append(paths, editPath{w: optWord(target)})
	}
	if ref, ok := r.Value("r", "reference"); ok && name == "touch" {
		paths = append(paths, editPath{w: optWord(ref)})
	}
	for i, o := range r.Operands {
		ep := editPath{w: o}
		switch name {
		case "rm", "rmdir":
			ep.forbidTop = true
		case "mv":
			ep.forbidTop = hasT || i < len(r.Operands)-1
		}
		paths = append(paths, ep)
	}
	if name == "cp" && r.Has("r", "R", "a", "recursive", "archive") && r.Has("L", "dereference") {
		// cp -rL copies what every link in the tree leads to: a link to
		// ~/.ssh brings the keys into the project, where later commands
		// read them under new names. The sources' trees, links followed,
		// must stay inside and hold no secret.
		sources := r.Operands
		if !hasT {
			sources = sources[:len(sources)-1]
		}
		for _, o := range sources {
			if !an.followedTreeInside(o, l) {
				return "", nil, false
			}
		}
	}
	return name, paths, true
}

// followedTreeInside reports whether the tree at w, every link in it
// followed, stays inside the working directories and holds no secret.
func (an *analyzer) followedTreeInside(w word, l *leaf) bool {
	x := an.judge(w, l)
	if x.inside() == "" {
		return false
	}
	roots := []pathpolicy.Path{x.Path}
	if x.glob {
		roots = x.matches
	}
	for _, m := range roots {
		if !m.Exists {
			continue
		}
		if rep := an.cfg.policy.Tree(m.Resolved.Path, &pathpolicy.TreeOptions{Follow: true, Hidden: true}); !rep.OK() {
			return false
		}
	}
	return true
}

// optWord is the word of an option's value (no ~ or glob expansion inside
// an option word, except GNU's --opt=~/x, which bash does expand).
func optWord(s string) word {
	return word{Value: s, Pat: unquote.EscapeGlob(s), Literal: true, Tilde: strings.HasPrefix(s, "~/") || s == "~"}
}

// acceptEdits upgrades filesystem commands to Allow, each on its own: a
// command that only creates, copies, moves or removes files, all of them
// inside a working directory, is allowed by the mode whatever the other
// commands of the line are. Those decide for themselves: the line as a
// whole is allowed only when each of them is (read-only, allowed here, or
// covered by an allow rule: Analysis.AllowedBy). A command that runs after
// (or beside) one that may change the filesystem's layout is not upgraded:
// what its paths lead to is no longer known (editButTaint records that it
// would be). A line that creates links upgrades nothing, and neither does
// a line the analyser asks about.
func (an *analyzer) acceptEdits(res *Analysis, redirOnly []bool) {
	if len(an.cfg.policy.WorkingDirs()) == 0 {
		return
	}
	for i, l := range an.leaves {
		if len(l.args) > 0 && (l.args[0].Value == "ln" || l.args[0].Value == "link") {
			return
		}
		if res.Commands[i].Verdict == Ask {
			return
		}
	}
	for i, l := range an.leaves {
		c := &res.Commands[i]
		if c.Verdict != Passthrough {
			continue
		}
		name, ok := an.editGrant(l, redirOnly[i])
		if !ok {
			if l.tainted && l.kind != kindOther {
				l.tainted = false
				_, l.editButTaint = an.editGrant(l, redirOnly[i])
				l.tainted = true
			}
			continue
		}
		c.Verdict, c.Layer = Allow, LayerAcceptEdits
		c.Reason = "filesystem command with all targets in a working directory"
		c.message = "Permission granted for '" + name + "' command (filesystem command, all targets in working directory)"
	}
}

// editGrant reports whether the leaf is a filesystem command whose every
// target lies inside a working directory (and is not protected), with the
// command's name.
func (an *analyzer) editGrant(l *leaf, redirOnly bool) (string, bool) {
	name, paths, ok := an.editPaths(l, redirOnly)
	if !ok {
		return "", false
	}
	for _, p := range paths {
		if !an.editInside(p, l) {
			return "", false
		}
	}
	return name, true
}

// editInside reports whether the path lies within a working directory once
// resolved as the kernel resolves it (links and .. after them included),
// and is not protected.
func (an *analyzer) editInside(ep editPath, l *leaf) bool {
	x := an.judge(ep.w, l)
	root := x.inside()
	if root == "" || x.Protected || x.Secret {
		return false
	}
	if ep.forbidTop {
		if x.glob {
			for _, m := range x.matches {
				if m.Resolved.Path == m.Inside {
					return false
				}
			}
		} else if x.Resolved.Path == root {
			return false
		}
	}
	return true
}

// globMayDash reports whether the glob word w may expand to a word
// starting with "-": a match does now, or an earlier (or concurrent)
// command of the line may create such a name (mayCreateDash) and the
// glob's first component could match it.
func (an *analyzer) globMayDash(w word, l *leaf) bool {
	return an.dashGlob(w, l) || l.afterDash && firstMayDash(w)
}

// firstMayDash reports whether the first path component of the glob word
// w could match a name starting with "-".
func firstMayDash(w word) bool {
	if w.Tilde || strings.HasPrefix(w.Value, "/") {
		return false
	}
	first := w.Pat
	if i := strings.IndexByte(first, '/'); i >= 0 {
		first = first[:i]
	}
	return bashglob.HasMeta(first) && bashglob.MatchPrefix(first, "-", nil)
}
