package shell

import (
	"path"
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/shell/internal/archivelist"
)

// Extracting an archive writes the paths its members name, which the
// command line does not show: tar -xf a.tar may write .git/hooks/pre-commit
// (run by the next commit) or, with a member ../x or a symbolic link that
// a later member writes through, a file outside the project. The analyser
// reads the members' names (never their contents) of a local archive, the
// way tar -t would, and judges each as a write:
//
//   - a member that lands on a protected or secret path (.git/..., .bashrc,
//     .env) or outside the extraction directory, or a link that leads out
//     of it, makes the command an ask no rule passes, like any other
//     protected write;
//   - an archive that cannot be read within the bounds below (xz or zstd
//     compression, standard input, an archive made earlier in the same
//     line, one too large, name rewriting with --transform) is opaque: a
//     wildcard allow rule (Bash(tar:*)) does not cover it, as it does not
//     cover the options that run another program.

// extraction is what an archive extractor was asked to do.
type extraction struct {
	archive word   // the archive file
	dest    word   // the directory members land in (the command's cwd if empty)
	strip   int    // leading components removed (tar --strip-components)
	abs     bool   // absolute member names are kept (tar -P)
	opaque  string // why the members cannot be known, "" if they can
}

// extractionOf recognises tar -x (also bsdtar, the old form tar xf) and
// unzip; ok is false for every other command.
func extractionOf(argv []word) (e extraction, ok bool) {
	if len(argv) < 2 {
		return e, false
	}
	switch cmdName(argv[0]) {
	case "tar", "gtar", "bsdtar":
		return tarExtraction(argv[1:])
	case "unzip":
		return unzipExtraction(argv[1:])
	}
	return e, false
}

func tarExtraction(args []word) (e extraction, ok bool) {
	extract, haveFile := false, false
	dests := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		s := a.Value
		next := func() (word, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return word{}, false
		}
		switch {
		case s == "--":
			i = len(args)
		case strings.HasPrefix(s, "--"):
			name, val, hasVal := strings.Cut(s[2:], "=")
			// GNU tar takes unambiguous prefixes of long options.
			is := func(full string, min int) bool {
				return len(name) >= min && strings.HasPrefix(full, name)
			}
			getVal := func() (word, bool) {
				if hasVal {
					return optWord(val), true
				}
				return next()
			}
			switch {
			case is("extract", 3) || is("get", 3):
				extract = true
			case is("file", 3):
				if w, ok := getVal(); ok {
					e.archive, haveFile = w, true
				}
			case is("directory", 3):
				if w, ok := getVal(); ok {
					e.dest = w
					dests++
				}
			case is("strip-components", 3):
				w, _ := getVal()
				n, err := strconv.Atoi(w.Value)
				if err != nil || n < 0 {
					e.opaque = "tar --strip-components " + w.Value
				}
				e.strip = n
			case is("absolute-names", 3):
				e.abs = true
			case is("transform", 3) || is("xform", 2):
				e.opaque = "tar " + s + " renames the members"
			case is("files-from", 7) || is("exclude-from", 9):
				getVal()
			}
		case strings.HasPrefix(s, "-") && len(s) > 1 || i == 0 && !strings.HasPrefix(s, "-"):
			// Bundled short options; the first word may omit the dash
			// (tar xzf a.tgz), and then the values follow in order.
			letters := strings.TrimPrefix(s, "-")
			old := !strings.HasPrefix(s, "-")
			for j := 0; j < len(letters); j++ {
				c := letters[j]
				takes := strings.IndexByte("fCTXbgHKLNVIFs", c) >= 0
				var val word
				if takes {
					if !old && j+1 < len(letters) {
						val = optWord(letters[j+1:])
						j = len(letters)
					} else if w, ok := next(); ok {
						val = w
					}
				}
				switch c {
				case 'x':
					extract = true
				case 'f':
					e.archive, haveFile = val, true
				case 'C':
					e.dest = val
					dests++
				case 'P':
					e.abs = true
				case 's':
					e.opaque = "tar -s renames the members"
				}
			}
		}
	}
	if !extract {
		return e, false
	}
	switch {
	case !haveFile || e.archive.Value == "-" || e.archive.Value == "":
		e.opaque = "tar reads the archive from standard input or a tape"
	case strings.Contains(e.archive.Value, ":") && !strings.HasPrefix(e.archive.Value, "/") && !strings.HasPrefix(e.archive.Value, "."):
		e.opaque = "tar reads a remote archive " + e.archive.Value
	case dests > 1:
		e.opaque = "tar -C given more than once"
	}
	return e, true
}

func unzipExtraction(args []word) (e extraction, ok bool) {
	for i := 0; i < len(args); i++ {
		s := args[i].Value
		switch {
		case s == "-P":
			i++ // the password
		case s == "-d" || s == "-x":
			if i+1 < len(args) {
				i++
				if s == "-d" {
					e.dest = args[i]
				} else {
					i = len(args) // -x lists members to leave out
				}
			}
		case strings.HasPrefix(s, "-d") && len(s) > 2:
			e.dest = optWord(s[2:])
		case strings.HasPrefix(s, "-") && len(s) > 1:
			if strings.ContainsAny(s[1:], "lvtzZ") {
				return e, false // lists or tests, writes nothing
			}
		case e.archive.Value == "":
			e.archive = args[i]
		}
	}
	if e.archive.Value == "" || e.archive.Value == "-" {
		e.opaque = "unzip without a readable archive"
	}
	return e, true
}

// extractionHits judges the members of an extraction as writes. It returns
// the protected, secret or outside paths they reach (for an immune ask),
// and why the members cannot be known ("" when they can).
func (an *analyzer) extractionHits(e extraction, l *leaf) (hits []string, opaque string) {
	if e.opaque != "" {
		return nil, e.opaque
	}
	if !e.archive.Literal || e.archive.Glob || !e.dest.Literal && e.dest.Value != "" {
		return nil, "the archive or the directory is known only at run time"
	}
	if l.tainted || l.afterEdit {
		return nil, "the archive may be made or changed earlier in the command line"
	}
	ax := an.judge(e.archive, l)
	if ax.Path.Err != nil || !ax.Resolved.Exists {
		return nil, "the archive " + e.archive.Value + " cannot be read now"
	}
	members, err := archivelist.Members(an.cfg.access, ax.Resolved.Path)
	if err != nil {
		return nil, "the members of " + e.archive.Value + " cannot be listed (" + err.Error() + ")"
	}
	dest := l.cwd
	if e.dest.Value != "" {
		dx := an.judge(e.dest, l)
		if dx.Path.Err != nil {
			return nil, "the directory " + e.dest.Value + " cannot be resolved"
		}
		dest = dx.Resolved.Path
	}
	for _, m := range members {
		rel, abs, inside := archivelist.Path(m.Name, e.strip, e.abs)
		switch {
		case abs != "":
			hits = appendUnique(hits, e.archive.Value+" (writes "+abs+")")
			continue
		case !inside:
			hits = appendUnique(hits, e.archive.Value+" (writes "+m.Name+", outside "+dest+")")
			continue
		case rel == "" || rel == ".":
			continue
		}
		if m.Hardlink {
			// A hard link names another member, from the extraction
			// directory; one named /etc/x or ../x links a file outside,
			// which a later member of the same name then overwrites.
			if _, labs, lin := archivelist.Path(m.Link, 0, e.abs); labs != "" || !lin || strings.HasPrefix(m.Link, "/") {
				hits = appendUnique(hits, e.archive.Value+" (links "+m.Name+" to "+m.Link+")")
				continue
			}
		}
		if m.Symlink {
			if archivelist.LinkLeadsOut(rel, m.Link) {
				hits = appendUnique(hits, e.archive.Value+" (links "+m.Name+" to "+m.Link+")")
				continue
			}
			// A link to a protected place inside (hooks -> .git/hooks).
			if t := an.cfg.policy.Classify(dest + "/" + path.Join(path.Dir(rel), m.Link)); t.Protected || t.Secret {
				hits = appendUnique(hits, e.archive.Value+" (links "+m.Name+" to "+m.Link+")")
				continue
			}
		}
		x := an.cfg.policy.Classify(dest + "/" + rel)
		if x.Protected || x.Secret {
			hits = appendUnique(hits, e.archive.Value+" (writes "+m.Name+")")
		}
	}
	return hits, ""
}
