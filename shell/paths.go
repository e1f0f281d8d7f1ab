package shell

import (
	"path/filepath"
	"strings"

	"github.com/toolscope/toolscope/internal/bashglob"
	"github.com/toolscope/toolscope/internal/pathpolicy"
	"github.com/toolscope/toolscope/shell/internal/unquote"
)

// pathInfo is what the analyser knows of a path word.
type pathInfo struct {
	unknown string // why the path cannot be judged ("" if it can)
	pathpolicy.Path
	glob    bool
	matches []pathpolicy.Path // a glob's current matches
	escapes bool              // a glob component can match . or ..
}

// inside returns the working directory holding the path ("" if none, or if
// a glob may match outside one).
func (p pathInfo) inside() string {
	if p.unknown != "" || p.Path.Err != nil || p.escapes {
		return ""
	}
	for _, m := range p.matches {
		if m.Inside == "" || m.Err != nil {
			return ""
		}
	}
	return p.Inside
}

// readOK reports a path a read-only command may read without asking.
func (p pathInfo) readOK() bool {
	if p.unknown != "" || p.Secret {
		return false
	}
	if !p.glob {
		return p.Path.ReadOK()
	}
	if p.escapes {
		return false
	}
	for _, m := range p.matches {
		if !m.ReadOK() {
			return false
		}
	}
	return p.Path.Err == nil && (p.Inside != "" || p.Harmless)
}

// expandTilde replaces a leading unquoted ~ of s. ok is false for forms whose
// value the analyser does not know (~user, ~- = $OLDPWD).
func (an *analyzer) expandTilde(s string, l *leaf) (string, bool) {
	rest := s[1:]
	user := rest
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		user, rest = rest[:i], rest[i:]
	} else {
		rest = ""
	}
	switch user {
	case "":
		if an.cfg.home == "" {
			return "", false
		}
		return an.cfg.home + rest, true
	case "+":
		if l.cwdUnknown {
			return "", false
		}
		return l.pwd + rest, true
	}
	return "", false
}

// abs returns the absolute path a literal word names for leaf l, without
// cleaning (".." is resolved later, the way the kernel does). ok is false
// when the word is not literal or its base is unknown.
func (an *analyzer) abs(w word, l *leaf) (string, string) {
	if !w.Literal {
		if w.ProcPath {
			return "/dev/fd/63", "" // a pipe
		}
		return "", "its value is known only at run time"
	}
	s := w.Value
	if s == "" {
		return "", "an empty path"
	}
	if w.Tilde {
		t, ok := an.expandTilde(s, l)
		if !ok {
			return "", "it starts with a ~ form whose directory is unknown"
		}
		s = t
	}
	if !strings.HasPrefix(s, "/") {
		if l.cwdUnknown {
			return "", "the working directory is unknown after cd"
		}
		s = l.cwd + "/" + s
	}
	return s, ""
}

// absPattern is abs for a glob word: the pattern with its base made
// absolute (the base's own characters escaped).
func (an *analyzer) absPattern(w word, l *leaf) (string, string) {
	pat := w.Pat
	if w.Tilde {
		t, ok := an.expandTilde(w.Value[:tildeLen(w.Value)], l)
		if !ok {
			return "", "it starts with a ~ form whose directory is unknown"
		}
		pat = unquote.EscapeGlob(t) + pat[tildeLen(w.Value):]
	}
	if !strings.HasPrefix(pat, "/") {
		if l.cwdUnknown {
			return "", "the working directory is unknown after cd"
		}
		pat = unquote.EscapeGlob(l.cwd) + "/" + pat
	}
	return pat, ""
}

func tildeLen(s string) int {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return i
	}
	return len(s)
}

// judge classifies a path word for leaf l. The answers are remembered for
// the analysis: several layers ask about the same words.
func (an *analyzer) judge(w word, l *leaf) pathInfo {
	key := judgeKey{cwd: l.cwd, pwd: l.pwd, s: w.Value, pat: w.Pat,
		flags: b2u(l.cwdUnknown) | b2u(w.Literal)<<1 | b2u(w.Glob)<<2 | b2u(w.Tilde)<<3 | b2u(w.ProcPath)<<4}
	for i := range an.judged {
		if an.judged[i].key == key {
			return an.judged[i].info
		}
	}
	x := an.judgeUncached(w, l)
	if len(an.judged) < maxJudged {
		if an.judged == nil {
			an.judged = an.judgedBuf[:0] // the usual one or two, in the analyzer
		}
		an.judged = append(an.judged, judgment{key, x})
	}
	return x
}

// maxJudged bounds the memo of path judgments: a command line names few
// paths, and a linear search through them is cheaper than a map.
const maxJudged = 64

type judgment struct {
	key  judgeKey
	info pathInfo
}

// judgeKey is what a path judgment depends on.
type judgeKey struct {
	cwd, pwd, s, pat string
	flags            uint8
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func (an *analyzer) judgeUncached(w word, l *leaf) pathInfo {
	if w.Glob && w.Literal && bashglob.HasMeta(w.Pat) {
		pat, why := an.absPattern(w, l)
		if why != "" {
			return pathInfo{unknown: why}
		}
		pi := an.cfg.policy.Pattern(pat)
		info := pathInfo{glob: true, matches: pi.Matches, Path: pi.Base}
		info.Secret, info.Protected = pi.Secret, pi.Protected
		if pi.Err != nil {
			info.unknown = "the glob cannot be expanded: " + pi.Err.Error()
		}
		info.escapes = pi.Escapes
		return info
	}
	abs, why := an.abs(w, l)
	if why != "" {
		// Judge what is spelled: ~root/.ssh/id_rsa is secret wherever ~root is.
		x := an.cfg.policy.Classify("/" + strings.TrimLeft(w.Value, "~/"))
		return pathInfo{unknown: why, Path: pathpolicy.Path{Secret: x.Secret, Protected: x.Protected}}
	}
	return pathInfo{Path: an.cfg.policy.Classify(abs)}
}

// lexical returns the cleaned absolute path of a literal word (no link
// resolution), for the checks that are about names (removal of /usr/../etc).
func (an *analyzer) lexical(w word, l *leaf) (string, bool) {
	abs, why := an.abs(w, l)
	if why != "" {
		return "", false
	}
	return filepath.Clean(abs), true
}

// critical reports whether removing p would remove a critical directory:
// the root, the home directory or a direct child of the root.
func (an *analyzer) critical(p string) bool {
	return p == "/" || (an.cfg.home != "" && p == an.cfg.home) || filepath.Dir(p) == "/"
}

// cd follows a cd command: where it leads when it succeeds, and whether it
// can fail. Bash's cd is logical by default (cd link/.. goes back to where
// the link is, not to the target's parent); the kernel then resolves the
// logical path. When the two readings disagree, or a form's target is not
// known (cd -, ~-, $VAR, CDPATH), the directory is unknown.
func (an *analyzer) cd(l *leaf, before cwdState) outcome {
	unknown := outcome{ok: cwdState{unknown: true, dir: before.dir, pwd: before.pwd}, fail: before}
	ops := l.args[1:]
	physical := false
	for len(ops) > 0 && len(ops[0].Value) > 1 && ops[0].Value[0] == '-' && ops[0].Value != "--" {
		for _, c := range ops[0].Value[1:] {
			switch c {
			case 'P':
				physical = true
			case 'L':
				physical = false
			default:
				return unknown // -e, -@: unusual
			}
		}
		ops = ops[1:]
	}
	if len(ops) > 0 && ops[0].Value == "--" {
		ops = ops[1:]
	}
	var target string
	switch {
	case len(ops) == 0:
		if an.cfg.home == "" {
			return unknown
		}
		target = an.cfg.home
	case len(ops) > 1 || !ops[0].Literal || ops[0].Glob || ops[0].Value == "-" || ops[0].Value == "":
		return unknown
	default:
		s := ops[0].Value
		if ops[0].Tilde {
			t, ok := an.expandTilde(s, &leaf{pwd: before.pwd, cwdUnknown: before.unknown})
			if !ok {
				return unknown
			}
			s = t
		}
		if !strings.HasPrefix(s, "/") {
			if before.unknown {
				return unknown
			}
			if !an.cfg.hardened && !(s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../")) {
				return unknown // CDPATH may send it elsewhere
			}
			base := before.pwd
			if physical {
				base = before.dir
			}
			s = base + "/" + s
		}
		target = s
	}
	logical := filepath.Clean(target)
	lr, err1 := an.cfg.policy.Resolve(logical)
	pr, err2 := an.cfg.policy.Resolve(target)
	if err1 != nil || err2 != nil || lr.Proc || pr.Proc {
		return unknown
	}
	next := cwdState{dir: lr.Path, pwd: logical}
	if physical {
		next = cwdState{dir: pr.Path, pwd: pr.Path}
	} else if lr.Path != pr.Path {
		return unknown // a ".." after a link: bash may take either reading
	}
	if lr.Exists && an.isDir(lr.Path) {
		return outcome{ok: next, fail: cwdState{none: true}}
	}
	return outcome{ok: next, fail: before}
}

func (an *analyzer) isDir(p string) bool {
	return an.cfg.policy.IsDir(p)
}
