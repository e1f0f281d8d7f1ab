package shell

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/shell/internal/specs"
)

// TestSpecsMatchHelp checks the option tables of internal/specs/*.spec (progSpecs, and
// the subSpecs of docker, gh, go and git's global options) against the
// help of the programs installed here: every option the help lists must be
// in the table, and the table must agree with the help on what the option
// does with a value (see helpparse_test.go for the formats read and
// helpAgrees for the rules). oDeny options agree with anything. Programs
// that are not installed are skipped, except ciPrograms when CI is set.

// helpFormats are the tables whose help is not "PROG [SUBCOMMAND] --help"
// read line by line.
var helpFormats = map[string]helpFormat{
	"xxd":        {args: []string{"-h"}},            // xxd --help is an unknown option: it prints the same usage
	"rg":         {args: []string{"-h"}},            // --help's long form puts the descriptions on lines of their own
	"ps":         {args: []string{"--help", "all"}}, // plain --help lists no option
	"diff":       {expand: map[string][]string{"GTYPE": {"old", "new", "unchanged", "changed"}, "LTYPE": {"old", "new", "unchanged"}}},
	"find":       {primaries: true},                   // -type [bcdpflsD]: the brackets are a value
	"which":      {usage: true},                       // debianutils: only "Usage: which [-a] args"
	"getconf":    {usage: true},                       // "Usage: getconf [-v SPEC] VAR"
	"hostname":   {usage: true},                       // -V|--version|-h|--help only in the synopsis
	"git":        {usage: true},                       // "usage: git [-v | --version] [-h | --help] [-C <path>] ..."
	"go env":     {args: []string{"-h"}, usage: true}, // "usage: go env [-json] [-changed] [-u] [-w] [var ...]"
	"go version": {args: []string{"-h"}, usage: true},
}

// helpNotCovered are the tables not checked ("git *": every "git SUB").
var helpNotCovered = map[string]string{
	"echo":     "bash builtin (no --help); /usr/bin/echo is coreutils'",
	"printf":   "bash builtin; /usr/bin/printf is coreutils'",
	"test":     "bash builtin; /usr/bin/test has no --help, its operators are not options",
	"[":        "bash builtin; /usr/bin/['s --help lists test's operators, not options",
	"git *":    "planGit reads only the oDeny entries of the git subcommand tables and judges every other word on its own; the tables are read-only subsets sharing one block of log/diff options, and git log -h omits them",
	"go":       "go's global -C is documented in go help build only",
	"pip *":    "pip's help costs a second of CPU per subcommand (python start-up); pip 23.2's freeze, list and show agreed with their tables when checked",
	"npm ls":   "npm's help lists bare names; values only in a synopsis where | joins aliases",
	"npm list": "npm's help lists bare names; values only in a synopsis where | joins aliases",
}

// helpExceptions are deliberate differences between a help text and a
// table, keyed "PROG OPTION".
var helpExceptions = map[string]string{
	"ag -G":                   `help writes "-G --file-search-regex  PATTERN": two spaces before the value`,
	"ag --file-search-regex":  `help writes "-G --file-search-regex  PATTERN": two spaces before the value`,
	"ag --color-line-number":  "help omits the value; getopt requires one (ag --color-line-number X hello . takes X as the value, verified)",
	"ag --color-match":        "help omits the value; getopt requires one (verified)",
	"ag --color-path":         "help omits the value; getopt requires one (verified)",
	"file -P":                 "help omits the value: -P name=value (file -P a.txt: Unknown param a.txt, verified)",
	"file --parameter":        "help omits the value: --parameter name=value",
	"find -regextype":         "help lists it without its value: -regextype TYPE (verified)",
	"cut -M":                  "help's field-range syntax (-M: from first to M'th), not an option",
	"numfmt -M":               "help's field-range syntax (-M: from first to M'th), not an option",
	"gh pr checks -i":         "cobra names the value after the backquoted `--watch` of the usage text: -i, --interval --watch (an int flag)",
	"gh pr checks --interval": "cobra names the value after the backquoted `--watch` of the usage text (an int flag)",
	"ps --sort":               `help writes "k,    --sort" without the value; procps requires one (ps --sort: "long sort specification must follow --sort")`,
	"ps --help":               "ps --help [TOPIC]: an optional NEXT word; oOptValue makes the topic an operand, refused",
}

// ciPrograms are the programs CI installs (.ci/run, apt-get), with their
// Debian/Ubuntu package: with CI set the test fails when one is missing.
// The other programs of progSpecs are in essential or required packages.
var ciPrograms = map[string]string{
	"ag":      "silversearcher-ag",
	"column":  "bsdextrautils",
	"file":    "file",
	"gh":      "gh",
	"free":    "procps",
	"hexdump": "bsdextrautils",
	"jq":      "jq",
	"pgrep":   "procps",
	"ps":      "procps",
	"rg":      "ripgrep",
	"strings": "binutils",
	"tree":    "tree",
	"uptime":  "procps",
	"xxd":     "xxd",
}

// helpTarget is a table checked against a help text.
type helpTarget struct {
	name string // progSpecs or subSpecs key
	spec *specs.Spec
	argv []string // the command that prints the help
	f    helpFormat
}

// helpTargets lists the tables TestSpecsMatchHelp checks, sorted by name.
func helpTargets(t *testing.T) []helpTarget {
	var out []helpTarget
	add := func(name string, spec *specs.Spec, sub bool) {
		if _, skip := helpNotCovered[name]; skip {
			return
		}
		if w := strings.Fields(name); sub && len(w) > 1 {
			if _, skip := helpNotCovered[w[0]+" *"]; skip {
				return
			}
		}
		f := helpFormats[name]
		args := f.args
		if args == nil {
			args = []string{"--help"}
		}
		argv := append(strings.Fields(name), args...)
		if !sub {
			argv = append([]string{name}, args...) // "[" is one word
		}
		out = append(out, helpTarget{name, spec, argv, f})
	}
	progs, subs := specs.All()
	for n, s := range progs {
		add(n, s, false)
	}
	for n, s := range subs {
		if specs.Prog(n) != nil {
			t.Errorf("%q is in both progSpecs and subSpecs", n)
		}
		add(n, s, true)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func TestSpecsMatchHelp(t *testing.T) {
	targets := helpTargets(t)
	known := map[string]bool{}
	for _, tg := range targets {
		known[tg.name] = true
	}
	for p := range ciPrograms {
		found := false
		for _, tg := range targets {
			found = found || tg.argv[0] == p
		}
		if !found {
			t.Errorf("ciPrograms lists %s, whose tables are not checked", p)
		}
	}
	for k := range helpExceptions {
		if i := strings.LastIndexByte(k, ' '); i < 0 || !known[k[:i]] {
			t.Errorf("helpExceptions lists %q, whose table is not checked", k)
		}
	}
	for k := range helpFormats {
		if !known[k] {
			t.Errorf("helpFormats lists %q, whose table is not checked", k)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dir := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C", "LC_ALL=C", "TERM=dumb", "COLUMNS=80", "NO_COLOR=1", "GH_NO_UPDATE_NOTIFIER=1"}
	paths := make([]string, len(targets))
	missing := map[string]bool{} // apt packages
	for i, tg := range targets {
		path, err := exec.LookPath(tg.argv[0])
		if err != nil {
			if pkg, ok := ciPrograms[tg.argv[0]]; ok {
				missing[pkg] = true
			}
			continue
		}
		paths[i] = path
	}
	if len(missing) > 0 && os.Getenv("CI") != "" {
		var pkgs []string
		for p := range missing {
			pkgs = append(pkgs, p)
		}
		sort.Strings(pkgs)
		t.Fatalf("CI must install the programs whose tables this test checks: apt-get install %s", strings.Join(pkgs, " "))
	}
	helps := make([]string, len(targets))
	errs := make([]string, len(targets))
	var wg sync.WaitGroup
	for i, tg := range targets {
		if paths[i] == "" {
			errs[i] = "not installed"
			continue
		}
		wg.Add(1)
		go func(i int, path string, args []string) {
			defer wg.Done()
			var out bytes.Buffer
			cmd := exec.CommandContext(ctx, path, args...)
			cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = env, dir, &out, &out
			if err := cmd.Run(); ctx.Err() != nil {
				errs[i] = fmt.Sprintf("%s: %v", strings.Join(targets[i].argv, " "), err)
			}
			helps[i] = out.String() // many print their help on stderr and exit non-zero: the exit status does not matter
		}(i, paths[i], tg.argv[1:])
	}
	wg.Wait()

	used, checked := map[string]bool{}, map[string]bool{}
	for i, tg := range targets {
		switch {
		case errs[i] == "not installed":
			t.Logf("%s: %s is not installed, not checked", tg.name, tg.argv[0])
			continue
		case errs[i] != "":
			t.Errorf("%s", errs[i])
			continue
		}
		checked[tg.name] = true
		help := parseHelp(helps[i], tg.f)
		if len(help) == 0 {
			t.Errorf("%s: no option found in the output of %s:\n%s", tg.name, strings.Join(tg.argv, " "), helps[i])
			continue
		}
		for _, m := range compareHelp(tg.name, tg.spec.Opts, help, helpExceptions, used) {
			t.Error(m)
		}
	}
	var unused []string
	for k := range helpExceptions {
		if !used[k] && checked[k[:strings.LastIndexByte(k, ' ')]] {
			unused = append(unused, k)
		}
	}
	sort.Strings(unused)
	for _, k := range unused {
		t.Logf("exception %q matched nothing in the help of the installed program", k)
	}
}

// compareHelp returns the disagreements between a program's help and its
// option table; used collects the exceptions that applied.
func compareHelp(prog string, opts map[string]specs.OptKind, help []helpOpt, exceptions map[string]string, used map[string]bool) []string {
	var out []string
	for _, h := range help {
		key := prog + " " + h.name
		if _, ok := exceptions[key]; ok {
			if used != nil {
				used[key] = true
			}
			continue
		}
		k, ok := opts[h.name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s %s: the help lists it (%s), the table does not", prog, h.name, h.arity))
		case !helpAgrees(h.arity, k):
			out = append(out, fmt.Sprintf("%s %s: the table says %s, the help says %s", prog, h.name, optKindName(k), h.arity))
		default:
			continue
		}
		out[len(out)-1] += "\n\thelp: " + h.line
	}
	return out
}

// helpAgrees: an option table kind k is compatible with what help says.
// A value-taking option must not be a switch in the table (its value would
// be taken for an operand), a switch must not take a value (the next word,
// an operand, would be taken for one), and an optional value is attached
// only (--color[=WHEN] is oOptValue; oValue would take the next word). A
// short alias of a long option with an optional value may be a switch (ls
// -F is one) or take an attached value.
func helpAgrees(a helpArity, k specs.OptKind) bool {
	if k == specs.OptDeny {
		return true
	}
	switch a {
	case hFlag:
		return k == specs.OptFlag
	case hRequired:
		return k == specs.OptValue || k == specs.OptRead
	case hOptional:
		return k == specs.OptOptional
	case hTwo:
		return k == specs.OptValue2 || k == specs.OptRead2
	case hShortOpt:
		return k == specs.OptFlag || k == specs.OptOptional
	}
	return false
}

func optKindName(k specs.OptKind) string {
	switch k {
	case specs.OptFlag:
		return "oFlag"
	case specs.OptValue:
		return "oValue"
	case specs.OptOptional:
		return "oOptValue"
	case specs.OptRead:
		return "oRead"
	case specs.OptValue2:
		return "oValue2"
	case specs.OptRead2:
		return "oRead2"
	case specs.OptDeny:
		return "oDeny"
	}
	return fmt.Sprintf("optKind(%d)", k)
}

// TestHelpCompare shows that the comparison fails when a table is wrong:
// real help texts against copies of real tables with one entry broken.
func TestHelpCompare(t *testing.T) {
	xxdHelp := `Options:
    -C          capitalize variable names in C include file style (-i).
    -c cols     format <cols> octets per line. Default 16 (-i: 12, -ps: 30).
    -E          show characters in EBCDIC. Default ASCII.
`
	treeHelp := `  -o filename   Output to file instead of stdout.
  -l            Follow symbolic links like directories.
  --sort X      Select sort: name,version,size,mtime,ctime.
  --du          Compute size of directories by their contents.
`
	lsHelp := `      --color[=WHEN]         color the output WHEN; more info below
  -F, --classify[=WHEN]      append indicator (one of */=>@|) to entries WHEN
`
	jqHelp := `  --arg a v        set variable $a to value <v>;
`
	clone := func(s *specs.Spec) map[string]specs.OptKind {
		m := map[string]specs.OptKind{}
		for k, v := range s.Opts {
			m[k] = v
		}
		return m
	}
	for _, c := range []struct {
		prog, help string
		opts       map[string]specs.OptKind
		want       []string // the options reported, in order
	}{
		{"xxd", xxdHelp, clone(specs.Prog("xxd")), nil},
		{"xxd", xxdHelp, func() map[string]specs.OptKind { m := clone(specs.Prog("xxd")); m["-C"] = specs.OptValue; return m }(), []string{"-C"}},
		{"xxd", xxdHelp, func() map[string]specs.OptKind { m := clone(specs.Prog("xxd")); m["-c"] = specs.OptFlag; return m }(), []string{"-c"}},
		{"xxd", xxdHelp, func() map[string]specs.OptKind { m := clone(specs.Prog("xxd")); delete(m, "-E"); return m }(), []string{"-E"}},
		{"tree", treeHelp, clone(specs.Prog("tree")), nil}, // -o is oDeny: compatible with anything
		{"tree", treeHelp, func() map[string]specs.OptKind { m := clone(specs.Prog("tree")); m["-o"] = specs.OptFlag; return m }(), []string{"-o"}},     // a value word taken as an operand
		{"tree", treeHelp, func() map[string]specs.OptKind { m := clone(specs.Prog("tree")); m["--du"] = specs.OptRead; return m }(), []string{"--du"}}, // an operand taken as a value
		{"tree", treeHelp, func() map[string]specs.OptKind {
			m := clone(specs.Prog("tree"))
			m["--sort"] = specs.OptOptional
			return m
		}(), []string{"--sort"}}, // --sort X: X would be an operand
		{"ls", lsHelp, map[string]specs.OptKind{"--color": specs.OptOptional, "-F": specs.OptFlag, "--classify": specs.OptOptional}, nil},              // -F: a switch or -Fwhen
		{"ls", lsHelp, map[string]specs.OptKind{"--color": specs.OptValue, "-F": specs.OptFlag, "--classify": specs.OptOptional}, []string{"--color"}}, // --color X would swallow X
		{"ls", lsHelp, map[string]specs.OptKind{"--color": specs.OptOptional, "-F": specs.OptValue, "--classify": specs.OptOptional}, []string{"-F"}},  // -F X would swallow X
		{"jq", jqHelp, map[string]specs.OptKind{"--arg": specs.OptValue}, []string{"--arg"}},                                                           // the second value would be an operand
		{"jq", jqHelp, map[string]specs.OptKind{"--arg": specs.OptValue2}, nil},
	} {
		help := parseHelp(c.help, helpFormats[c.prog])
		var got []string
		for _, m := range compareHelp(c.prog, c.opts, help, nil, nil) {
			got = append(got, strings.TrimSuffix(strings.Fields(m)[1], ":"))
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: reported %q, want %q", c.prog, got, c.want)
		}
	}

	// An exception silences its option and is marked used.
	used := map[string]bool{}
	opts := map[string]specs.OptKind{"-C": specs.OptValue}
	if m := compareHelp("xxd", opts, parseHelp(xxdHelp, helpFormat{}), map[string]string{"xxd -C": "test", "xxd -c": "test", "xxd -E": "test"}, used); len(m) != 0 || !used["xxd -C"] {
		t.Errorf("exceptions: %q, used %v", m, used)
	}
}
