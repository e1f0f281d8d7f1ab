// The option tables of the read-only candidates (see progspec.go).
//
// They were written from each program's --help, from getopt's own answers
// (an option --help does not list still shows in getopt's "ambiguous" and
// "requires an argument" errors), from the programs' sources and from
// experiments run in throwaway directories, on Debian 12: coreutils 9.1,
// grep 3.8, diffutils 3.8, sed 4.9, findutils 4.9, util-linux 2.38,
// procps-ng 4.0.2, file 5.44, binutils 2.40, ripgrep 13, ag 2.2, tree 2.1,
// xxd 2022-01-14, jq 1.6, git 2.39, go 1.26, npm 11, pip 23.2, docker 28 and
// gh 2.23. Every option a program's --help lists is here; TestSpecsMatchHelp
// checks that against the installed programs. Options that write, run code,
// reach the network or print credentials are listed as oDeny with the reason.

package shell

var progSpecs = map[string]*progSpec{
	"[": {
		// same as test; /usr/bin/[ also honours --help/--version
		style:       stylePOSIX,
		opts:        map[string]optKind{},
		operands:    opNone,
		maxOperands: -1,
	},
	"ag": {
		// getopt_long with permutation and abbreviations (--pag = --pager); unless -U it runs popen("git config -z
		// --path --get core.excludesfile")
		style: styleGNU,
		opts: map[string]optKind{
			"-A": oFlag, "-B": oFlag, "-C": oFlag, // getopt "A:" takes the next word, BUT a non-numeric value is pushed back and parsed again: ag -A --pager=X runs X (verified); model as a switch so the next word is still checked
			"--after": oOptValue, "--before": oOptValue, "--context": oOptValue, // optional value, attached only
			"-G": oValue, "--file-search-regex": oValue, // regex on file names
			"-g": oValue, "--filename-pattern": oValue, // prints matching file names; supplies the pattern (operands are paths)
			"-m": oValue, "--max-count": oValue, "-W": oValue, "--width": oValue, "--depth": oValue, "--workers": oValue, "--ignore": oValue, "--ignore-dir": oValue, "--ackmate-dir-filter": oValue, "--color-line-number": oValue, "--color-match": oValue, "--color-path": oValue,
			"-p": oRead, "--path-to-ignore": oRead, // ignore file read
			"--pager": oDeny,                        // popen(PAGER): runs a command
			"-z":      oFlag, "--search-zip": oFlag, // zlib/liblzma in-process (source: decompress.c); no external program
			"--hidden": oFlag,                          // includes hidden files
			"-u":       oFlag, "--unrestricted": oFlag, // includes hidden and ignored files
			"-f": oFlag, "--follow": oFlag, // follows symlinks
			"-r": oFlag, "-R": oFlag, "--recurse": oFlag, // recursive (default)
			"-n": oFlag, "--no-recurse": oFlag, "--norecurse": oFlag,
			"-a": oFlag, "--all-types": oFlag, "-t": oFlag, "--all-text": oFlag, "-c": oFlag, "--count": oFlag, "-D": oFlag, "--debug": oFlag, "-F": oFlag, "--fixed-strings": oFlag, "-Q": oFlag, "--literal": oFlag, "-H": oFlag, "--heading": oFlag, "-h": oFlag, "--help": oFlag, "-i": oFlag, "--ignore-case": oFlag, "-L": oFlag, "--files-without-matches": oFlag, "-l": oFlag, "--files-with-matches": oFlag, "-o": oFlag, "--only-matching": oFlag, "-S": oFlag, "--smart-case": oFlag, "-s": oFlag, "--case-sensitive": oFlag, "-U": oFlag, "--skip-vcs-ignores": oFlag, "-v": oFlag, "--invert-match": oFlag, "-V": oFlag, "--version": oFlag, "-w": oFlag, "--word-regexp": oFlag, "-0": oFlag, "--null": oFlag, "--print0": oFlag,
			"--ackmate": oFlag, "--affinity": oFlag, "--no-affinity": oFlag, "--noaffinity": oFlag, "--break": oFlag, "--no-break": oFlag, "--nobreak": oFlag, "--color": oFlag, "--no-color": oFlag, "--nocolor": oFlag, "--color-win-ansi": oFlag, "--column": oFlag, "--filename": oFlag, "--no-filename": oFlag, "--nofilename": oFlag, "--no-follow": oFlag, "--nofollow": oFlag, "--group": oFlag, "--no-group": oFlag, "--nogroup": oFlag, "--no-heading": oFlag, "--noheading": oFlag, "--line-numbers": oFlag, "--list-file-types": oFlag, "--match": oFlag, "--mmap": oFlag, "--no-mmap": oFlag, "--nommap": oFlag, "--multiline": oFlag, "--no-multiline": oFlag, "--nomultiline": oFlag, "--numbers": oFlag, "--no-numbers": oFlag, "--nonumbers": oFlag, "--no-pager": oFlag, "--nopager": oFlag, "--one-device": oFlag, "--parallel": oFlag, "--passthrough": oFlag, "--passthru": oFlag, "--print-all-files": oFlag, "--print-long-lines": oFlag, "--search-binary": oFlag, "--search-files": oFlag, "--silent": oFlag, "--stats": oFlag, "--stats-only": oFlag, "--vimgrep": oFlag,
			"--actionscript": oFlag, "--ada": oFlag, "--asciidoc": oFlag, "--apl": oFlag, "--asm": oFlag, "--asp": oFlag, "--aspx": oFlag, "--batch": oFlag, "--bazel": oFlag, "--bitbake": oFlag, "--cc": oFlag, "--cfmx": oFlag, "--chpl": oFlag, "--clojure": oFlag, "--coffee": oFlag, "--config": oFlag, "--coq": oFlag, "--cpp": oFlag, "--crystal": oFlag, "--csharp": oFlag, "--cshtml": oFlag, "--css": oFlag, "--cython": oFlag, "--delphi": oFlag, "--dlang": oFlag, "--dot": oFlag, "--dts": oFlag, "--ebuild": oFlag, "--elisp": oFlag, "--elixir": oFlag, "--elm": oFlag, "--erlang": oFlag, "--factor": oFlag, "--fortran": oFlag, "--fsharp": oFlag, "--gettext": oFlag, "--glsl": oFlag, "--go": oFlag, "--gradle": oFlag, "--groovy": oFlag, "--haml": oFlag, "--handlebars": oFlag, "--haskell": oFlag, "--haxe": oFlag, "--hh": oFlag, "--html": oFlag, "--idris": oFlag, "--ini": oFlag, "--ipython": oFlag, "--isabelle": oFlag, "--j": oFlag, "--jade": oFlag, "--java": oFlag, "--jinja2": oFlag, "--js": oFlag, "--json": oFlag, "--jsp": oFlag, "--julia": oFlag, "--kotlin": oFlag, "--less": oFlag, "--liquid": oFlag, "--lisp": oFlag, "--log": oFlag, "--lua": oFlag, "--m4": oFlag, "--make": oFlag, "--mako": oFlag, "--markdown": oFlag, "--mason": oFlag, "--matlab": oFlag, "--mathematica": oFlag, "--md": oFlag, "--mercury": oFlag, "--naccess": oFlag, "--nim": oFlag, "--nix": oFlag, "--objc": oFlag, "--objcpp": oFlag, "--ocaml": oFlag, "--octave": oFlag, "--org": oFlag, "--parrot": oFlag, "--pdb": oFlag, "--perl": oFlag, "--php": oFlag, "--pike": oFlag, "--plist": oFlag, "--plone": oFlag, "--powershell": oFlag, "--proto": oFlag, "--ps1": oFlag, "--pug": oFlag, "--puppet": oFlag, "--python": oFlag, "--qml": oFlag, "--racket": oFlag, "--rake": oFlag, "--razor": oFlag, "--restructuredtext": oFlag, "--rs": oFlag, "--r": oFlag, "--rdoc": oFlag, "--ruby": oFlag, "--rust": oFlag, "--salt": oFlag, "--sass": oFlag, "--scala": oFlag, "--scheme": oFlag, "--shell": oFlag, "--smalltalk": oFlag, "--sml": oFlag, "--sql": oFlag, "--stata": oFlag, "--stylus": oFlag, "--swift": oFlag, "--tcl": oFlag, "--terraform": oFlag, "--tex": oFlag, "--thrift": oFlag, "--tla": oFlag, "--tt": oFlag, "--toml": oFlag, "--ts": oFlag, "--twig": oFlag, "--vala": oFlag, "--vb": oFlag, "--velocity": oFlag, "--verilog": oFlag, "--vhdl": oFlag, "--vim": oFlag, "--vue": oFlag, "--wix": oFlag, "--wsdl": oFlag, "--wadl": oFlag, "--xml": oFlag, "--yaml": oFlag, "--zeek": oFlag, "--zephir": oFlag, // file-type filter
		},
		operands:    opPatternThenFiles,
		patternOpts: []string{"-g", "--filename-pattern", "--list-file-types"},
		maxOperands: -1,
		recursive:   []string{"*"},
		hidden:      []string{"--hidden", "-u", "--unrestricted"},
		defaultDot:  true,
	},
	"arch": {
		style: styleGNU,
		opts: map[string]optKind{
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"b2sum": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--binary": oFlag,
			"-c": oFlag, "--check": oFlag, // reads the checksum FILEs and then every file they name (indirect reads; prints OK/FAILED only)
			"-l": oValue, "--length": oValue,
			"--tag": oFlag,
			"-t":    oFlag, "--text": oFlag,
			"-z": oFlag, "--zero": oFlag,
			"--ignore-missing": oFlag,
			"--quiet":          oFlag,
			"--status":         oFlag,
			"--strict":         oFlag,
			"-w":               oFlag, "--warn": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"base64": {
		style: styleGNU,
		opts: map[string]optKind{
			"-d": oFlag, "--decode": oFlag,
			"-i": oFlag, "--ignore-garbage": oFlag,
			"-w": oValue, "--wrap": oValue,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: 1,
	},
	"basename": {
		// getopt "+as:z": options end at the first operand (verified: basename x --version prints x)
		style: stylePOSIX,
		opts: map[string]optKind{
			"-a": oFlag, "--multiple": oFlag,
			"-s": oValue, "--suffix": oValue,
			"-z": oFlag, "--zero": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"cat": {
		style: styleGNU,
		opts: map[string]optKind{
			"-A": oFlag, "--show-all": oFlag,
			"-b": oFlag, "--number-nonblank": oFlag,
			"-e": oFlag,
			"-E": oFlag, "--show-ends": oFlag,
			"-n": oFlag, "--number": oFlag,
			"-s": oFlag, "--squeeze-blank": oFlag,
			"-t": oFlag,
			"-T": oFlag, "--show-tabs": oFlag,
			"-u": oFlag,
			"-v": oFlag, "--show-nonprinting": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"cksum": {
		style: styleGNU,
		opts: map[string]optKind{
			"-a": oValue, "--algorithm": oValue,
			"-c": oFlag, "--check": oFlag, // indirect reads of the files named in the checksum FILEs
			"-l": oValue, "--length": oValue,
			"--tag":      oFlag,
			"--untagged": oFlag,
			"-z":         oFlag, "--zero": oFlag,
			"--ignore-missing": oFlag,
			"--quiet":          oFlag,
			"--status":         oFlag,
			"--strict":         oFlag,
			"-w":               oFlag, "--warn": oFlag,
			"--debug":   oFlag,
			"--help":    oFlag,
			"--version": oFlag,
			"-b":        oFlag, // hidden: accepted by getopt, not in --help
			"-t":        oFlag, // hidden: accepted by getopt, not in --help
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"cmp": {
		// operands 3 and 4 are byte counts (SKIP1 SKIP2), not files
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--print-bytes": oFlag,
			"-i": oValue, "--ignore-initial": oValue,
			"-l": oFlag, "--verbose": oFlag,
			"-n": oValue, "--bytes": oValue,
			"-s": oFlag, "--quiet": oFlag, "--silent": oFlag,
			"--help": oFlag,
			"-v":     oFlag, "--version": oFlag,
			"--print-chars": oFlag, // hidden: accepted by getopt, not in --help
			"-c":            oFlag, // hidden: accepted by getopt, not in --help
		},
		operands:    opFiles,
		maxOperands: 4,
	},
	"column": {
		style: styleGNU,
		opts: map[string]optKind{
			"-t": oFlag, "--table": oFlag,
			"-n": oValue, "--table-name": oValue,
			"-O": oValue, "--table-order": oValue,
			"-N": oValue, "--table-columns": oValue,
			"-l": oValue, "--table-columns-limit": oValue,
			"-E": oValue, "--table-noextreme": oValue,
			"-d": oFlag, "--table-noheadings": oFlag,
			"-e": oFlag, "--table-header-repeat": oFlag,
			"-H": oValue, "--table-hide": oValue,
			"-R": oValue, "--table-right": oValue,
			"-T": oValue, "--table-truncate": oValue,
			"-W": oValue, "--table-wrap": oValue,
			"-L": oFlag, "--keep-empty-lines": oFlag,
			"-J": oFlag, "--json": oFlag,
			"-r": oValue, "--tree": oValue,
			"-i": oValue, "--tree-id": oValue,
			"-p": oValue, "--tree-parent": oValue,
			"-c": oValue, "--output-width": oValue,
			"-o": oValue, "--output-separator": oValue,
			"-s": oValue, "--separator": oValue,
			"-x": oFlag, "--fillrows": oFlag,
			"-h": oFlag, "--help": oFlag,
			"-V": oFlag, "--version": oFlag,
			"--columns":           oValue, // hidden: accepted by getopt, not in --help
			"--table-empty-lines": oFlag,  // hidden: accepted by getopt, not in --help
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"comm": {
		style: styleGNU,
		opts: map[string]optKind{
			"-1":                 oFlag,
			"-2":                 oFlag,
			"-3":                 oFlag,
			"--check-order":      oFlag,
			"--nocheck-order":    oFlag,
			"--output-delimiter": oValue,
			"--total":            oFlag,
			"-z":                 oFlag, "--zero-terminated": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: 2,
	},
	"cut": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oValue, "--bytes": oValue,
			"-c": oValue, "--characters": oValue,
			"-d": oValue, "--delimiter": oValue,
			"-f": oValue, "--fields": oValue,
			"-n":           oFlag,
			"--complement": oFlag,
			"-s":           oFlag, "--only-delimited": oFlag,
			"--output-delimiter": oValue,
			"-z":                 oFlag, "--zero-terminated": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
			"-M":        oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"date": {
		// the only read-only operand is +FORMAT; any other operand (MMDDhhmm[[CC]YY][.ss]) sets the clock
		style: styleGNU,
		opts: map[string]optKind{
			"-d": oValue, "--date": oValue,
			"--debug": oFlag,
			"-f":      oRead, "--file": oRead, // dates read from DATEFILE
			"-I": oOptValue, "--iso-8601": oOptValue, // -I[FMT] attached only
			"--resolution": oFlag,
			"-R":           oFlag, "--rfc-email": oFlag,
			"--rfc-3339": oValue,
			"-r":         oRead, "--reference": oRead, // mtime of FILE
			"-s": oDeny, "--set": oDeny, // sets the system clock (this research set the clock by accident with --s=x: "x" is a valid military time zone); sets the system clock
			"-u": oFlag, "--utc": oFlag, "--universal": oFlag,
			"--help":     oFlag,
			"--version":  oFlag,
			"--rfc-2822": oFlag, // hidden: accepted by getopt, not in --help
			"--rfc-822":  oFlag, // hidden: accepted by getopt, not in --help
			"--uct":      oFlag, // hidden: accepted by getopt, not in --help
		},
		operands:    opNone,
		maxOperands: 1,
	},
	"df": {
		style: styleGNU,
		opts: map[string]optKind{
			"-a": oFlag, "--all": oFlag,
			"-B": oValue, "--block-size": oValue,
			"-h": oFlag, "--human-readable": oFlag,
			"-H": oFlag, "--si": oFlag,
			"-i": oFlag, "--inodes": oFlag,
			"-k": oFlag,
			"-l": oFlag, "--local": oFlag,
			"--no-sync": oFlag,
			"--output":  oOptValue,
			"-P":        oFlag, "--portability": oFlag,
			"--sync":  oDeny, // invokes sync(2) before reading usage: changes system state (mild)
			"--total": oFlag,
			"-t":      oValue, "--type": oValue,
			"-T": oFlag, "--print-type": oFlag,
			"-x": oValue, "--exclude-type": oValue,
			"-v":        oFlag,
			"--help":    oFlag,
			"--version": oFlag,
			"-m":        oFlag,  // hidden: accepted by getopt, not in --help
			"-F":        oValue, // hidden: accepted by getopt, not in --help
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"diff": {
		// with --from-file/--to-file any number of operands is allowed
		style: styleGNU,
		opts: map[string]optKind{
			"--normal": oFlag,
			"-q":       oFlag, "--brief": oFlag,
			"-s": oFlag, "--report-identical-files": oFlag,
			"-c": oFlag, "-C": oValue, "--context": oOptValue,
			"-u": oFlag, "-U": oValue, "--unified": oOptValue,
			"-e": oFlag, "--ed": oFlag,
			"-n": oFlag, "--rcs": oFlag,
			"-y": oFlag, "--side-by-side": oFlag,
			"-W": oValue, "--width": oValue,
			"--left-column":           oFlag,
			"--suppress-common-lines": oFlag,
			"-p":                      oFlag, "--show-c-function": oFlag,
			"-F": oValue, "--show-function-line": oValue,
			"--label": oValue,
			"-t":      oFlag, "--expand-tabs": oFlag,
			"-T": oFlag, "--initial-tab": oFlag,
			"--tabsize":              oValue,
			"--suppress-blank-empty": oFlag,
			"-l":                     oDeny, "--paginate": oDeny, // pipes the output through pr(1): runs another program
			"-r": oFlag, "--recursive": oFlag,
			"--no-dereference": oFlag,
			"-N":               oFlag, "--new-file": oFlag,
			"--unidirectional-new-file":  oFlag,
			"--ignore-file-name-case":    oFlag,
			"--no-ignore-file-name-case": oFlag,
			"-x":                         oValue, "--exclude": oValue,
			"-X": oRead, "--exclude-from": oRead, // patterns read from FILE
			"-S": oValue, "--starting-file": oValue,
			"--from-file": oRead, // FILE1 compared with every operand (any operand count)
			"--to-file":   oRead, // FILE2 compared with every operand (any operand count)
			"-i":          oFlag, "--ignore-case": oFlag,
			"-E": oFlag, "--ignore-tab-expansion": oFlag,
			"-Z": oFlag, "--ignore-trailing-space": oFlag,
			"-b": oFlag, "--ignore-space-change": oFlag,
			"-w": oFlag, "--ignore-all-space": oFlag,
			"-B": oFlag, "--ignore-blank-lines": oFlag,
			"-I": oValue, "--ignore-matching-lines": oValue,
			"-a": oFlag, "--text": oFlag,
			"--strip-trailing-cr": oFlag,
			"-D":                  oValue, "--ifdef": oValue,
			"--line-format": oValue,
			"-d":            oFlag, "--minimal": oFlag,
			"--horizon-lines":     oValue,
			"--speed-large-files": oFlag,
			"--color":             oOptValue,
			"--palette":           oValue,
			"--help":              oFlag,
			"-v":                  oFlag, "--version": oFlag,
			"--binary":                 oFlag,                                                                                                                      // hidden: accepted by getopt, not in --help
			"--changed-group-format":   oValue,                                                                                                                     // hidden: accepted by getopt, not in --help
			"--forward-ed":             oFlag,                                                                                                                      // hidden: accepted by getopt, not in --help
			"--inhibit-hunk-merge":     oFlag,                                                                                                                      // hidden: accepted by getopt, not in --help
			"--new-group-format":       oValue,                                                                                                                     // hidden: accepted by getopt, not in --help
			"--new-line-format":        oValue,                                                                                                                     // hidden: accepted by getopt, not in --help
			"--old-group-format":       oValue,                                                                                                                     // hidden: accepted by getopt, not in --help
			"--old-line-format":        oValue,                                                                                                                     // hidden: accepted by getopt, not in --help
			"--sdiff-merge-assist":     oFlag,                                                                                                                      // hidden: accepted by getopt, not in --help
			"--unchanged-group-format": oValue,                                                                                                                     // hidden: accepted by getopt, not in --help
			"--unchanged-line-format":  oValue,                                                                                                                     // hidden: accepted by getopt, not in --help
			"-f":                       oFlag,                                                                                                                      // hidden: accepted by getopt, not in --help
			"-h":                       oFlag,                                                                                                                      // hidden: accepted by getopt, not in --help
			"-H":                       oFlag,                                                                                                                      // hidden: accepted by getopt, not in --help
			"-L":                       oValue,                                                                                                                     // hidden: accepted by getopt, not in --help
			"-P":                       oFlag,                                                                                                                      // hidden: accepted by getopt, not in --help
			"-0":                       oFlag, "-1": oFlag, "-2": oFlag, "-3": oFlag, "-4": oFlag, "-5": oFlag, "-6": oFlag, "-7": oFlag, "-8": oFlag, "-9": oFlag, // hidden obsolete -NUM (context lines)
		},
		operands:    opFiles,
		maxOperands: 2,
		recursive:   []string{"-r", "--recursive"},
		hidden:      []string{"*"},
	},
	"dircolors": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--sh": oFlag, "--bourne-shell": oFlag,
			"-c": oFlag, "--csh": oFlag, "--c-shell": oFlag,
			"-p": oFlag, "--print-database": oFlag,
			"--print-ls-colors": oFlag,
			"--help":            oFlag,
			"--version":         oFlag,
		},
		operands:    opFiles,
		maxOperands: 1,
	},
	"dirname": {
		style: styleGNU,
		opts: map[string]optKind{
			"-z": oFlag, "--zero": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"du": {
		style: styleGNU,
		opts: map[string]optKind{
			"-0": oFlag, "--null": oFlag,
			"-a": oFlag, "--all": oFlag,
			"--apparent-size": oFlag,
			"-B":              oValue, "--block-size": oValue,
			"-b": oFlag, "--bytes": oFlag,
			"-c": oFlag, "--total": oFlag,
			"-D": oFlag, "--dereference-args": oFlag,
			"-d": oValue, "--max-depth": oValue,
			"--files0-from": oRead, // indirect: reads the file names listed in F; the listed files are read but never appear on the command line (only sizes are printed)
			"-H":            oFlag,
			"-h":            oFlag, "--human-readable": oFlag,
			"--inodes": oFlag,
			"-k":       oFlag,
			"-L":       oFlag, "--dereference": oFlag, // follows every symlink (may leave the tree)
			"-l": oFlag, "--count-links": oFlag,
			"-m": oFlag,
			"-P": oFlag, "--no-dereference": oFlag,
			"-S": oFlag, "--separate-dirs": oFlag,
			"--si": oFlag,
			"-s":   oFlag, "--summarize": oFlag,
			"-t": oValue, "--threshold": oValue,
			"--time":       oOptValue, // --time or --time=WORD
			"--time-style": oValue,
			"-X":           oRead, "--exclude-from": oRead, // patterns read from FILE
			"--exclude": oValue,
			"-x":        oFlag, "--one-file-system": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
		recursive:   []string{"*"},
		hidden:      []string{"*"},
		defaultDot:  true,
	},
	"echo": {
		// bash builtin: only a leading word made of n, e, E letters is an option; everything else is text; no --help
		style: stylePOSIX,
		opts: map[string]optKind{
			"-n": oFlag,
			"-e": oFlag,
			"-E": oFlag,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"egrep": {
		// egrep/fgrep are /bin/sh wrappers: exec grep -E|-F "$@" (they also print an obsolescence warning).
		style: styleGNU,
		opts: map[string]optKind{
			"-E": oFlag, "--extended-regexp": oFlag,
			"-F": oFlag, "--fixed-strings": oFlag,
			"-G": oFlag, "--basic-regexp": oFlag,
			"-P": oFlag, "--perl-regexp": oFlag,
			"-e": oValue, "--regexp": oValue,
			"-f": oRead, "--file": oRead, // patterns read from FILE
			"-i": oFlag, "--ignore-case": oFlag,
			"--no-ignore-case": oFlag,
			"-w":               oFlag, "--word-regexp": oFlag,
			"-x": oFlag, "--line-regexp": oFlag,
			"-z": oFlag, "--null-data": oFlag,
			"-s": oFlag, "--no-messages": oFlag,
			"-v": oFlag, "--invert-match": oFlag,
			"-V": oFlag, "--version": oFlag,
			"--help": oFlag,
			"-m":     oValue, "--max-count": oValue,
			"-b": oFlag, "--byte-offset": oFlag,
			"-n": oFlag, "--line-number": oFlag,
			"--line-buffered": oFlag,
			"-H":              oFlag, "--with-filename": oFlag,
			"-h": oFlag, "--no-filename": oFlag,
			"--label": oValue,
			"-o":      oFlag, "--only-matching": oFlag,
			"-q": oFlag, "--quiet": oFlag, "--silent": oFlag,
			"--binary-files": oValue,
			"-a":             oFlag, "--text": oFlag,
			"-I": oFlag,
			"-d": oValue, "--directories": oValue, // "recurse" makes it recursive
			"-D": oValue, "--devices": oValue,
			"-r": oFlag, "--recursive": oFlag,
			"-R": oFlag, "--dereference-recursive": oFlag, // recursive, follows all symlinks
			"--include":      oValue,
			"--exclude":      oValue,
			"--exclude-from": oRead, // globs read from FILE
			"--exclude-dir":  oValue,
			"-L":             oFlag, "--files-without-match": oFlag,
			"-l": oFlag, "--files-with-matches": oFlag,
			"-c": oFlag, "--count": oFlag,
			"-T": oFlag, "--initial-tab": oFlag,
			"-Z": oFlag, "--null": oFlag,
			"-B": oValue, "--before-context": oValue,
			"-A": oValue, "--after-context": oValue,
			"-C": oValue, "--context": oValue,
			"--group-separator":    oValue,
			"--no-group-separator": oFlag,
			"--color":              oOptValue,
			"--colour":             oOptValue,
			"-U":                   oFlag, "--binary": oFlag,
			"-0": oFlag, "-1": oFlag, "-2": oFlag, "-3": oFlag, "-4": oFlag, "-5": oFlag, "-6": oFlag, "-7": oFlag, "-8": oFlag, "-9": oFlag, // -NUM = --context=NUM; digits accumulate, no value word is taken
		},
		operands:    opPatternThenFiles,
		patternOpts: []string{"-e", "--regexp", "-f", "--file"},
		maxOperands: -1,
		recursive:   []string{"-r", "--recursive", "-R", "--dereference-recursive", "-d recurse", "--directories=recurse"},
		hidden:      []string{"*"},
	},
	"expr": {
		// every word is an expression token; STRING : REGEXP is a regex match, no file access
		style: stylePOSIX,
		opts: map[string]optKind{
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"fgrep": {
		// egrep/fgrep are /bin/sh wrappers: exec grep -E|-F "$@" (they also print an obsolescence warning).
		style: styleGNU,
		opts: map[string]optKind{
			"-E": oFlag, "--extended-regexp": oFlag,
			"-F": oFlag, "--fixed-strings": oFlag,
			"-G": oFlag, "--basic-regexp": oFlag,
			"-P": oFlag, "--perl-regexp": oFlag,
			"-e": oValue, "--regexp": oValue,
			"-f": oRead, "--file": oRead, // patterns read from FILE
			"-i": oFlag, "--ignore-case": oFlag,
			"--no-ignore-case": oFlag,
			"-w":               oFlag, "--word-regexp": oFlag,
			"-x": oFlag, "--line-regexp": oFlag,
			"-z": oFlag, "--null-data": oFlag,
			"-s": oFlag, "--no-messages": oFlag,
			"-v": oFlag, "--invert-match": oFlag,
			"-V": oFlag, "--version": oFlag,
			"--help": oFlag,
			"-m":     oValue, "--max-count": oValue,
			"-b": oFlag, "--byte-offset": oFlag,
			"-n": oFlag, "--line-number": oFlag,
			"--line-buffered": oFlag,
			"-H":              oFlag, "--with-filename": oFlag,
			"-h": oFlag, "--no-filename": oFlag,
			"--label": oValue,
			"-o":      oFlag, "--only-matching": oFlag,
			"-q": oFlag, "--quiet": oFlag, "--silent": oFlag,
			"--binary-files": oValue,
			"-a":             oFlag, "--text": oFlag,
			"-I": oFlag,
			"-d": oValue, "--directories": oValue, // "recurse" makes it recursive
			"-D": oValue, "--devices": oValue,
			"-r": oFlag, "--recursive": oFlag,
			"-R": oFlag, "--dereference-recursive": oFlag, // recursive, follows all symlinks
			"--include":      oValue,
			"--exclude":      oValue,
			"--exclude-from": oRead, // globs read from FILE
			"--exclude-dir":  oValue,
			"-L":             oFlag, "--files-without-match": oFlag,
			"-l": oFlag, "--files-with-matches": oFlag,
			"-c": oFlag, "--count": oFlag,
			"-T": oFlag, "--initial-tab": oFlag,
			"-Z": oFlag, "--null": oFlag,
			"-B": oValue, "--before-context": oValue,
			"-A": oValue, "--after-context": oValue,
			"-C": oValue, "--context": oValue,
			"--group-separator":    oValue,
			"--no-group-separator": oFlag,
			"--color":              oOptValue,
			"--colour":             oOptValue,
			"-U":                   oFlag, "--binary": oFlag,
			"-0": oFlag, "-1": oFlag, "-2": oFlag, "-3": oFlag, "-4": oFlag, "-5": oFlag, "-6": oFlag, "-7": oFlag, "-8": oFlag, "-9": oFlag, // -NUM = --context=NUM; digits accumulate, no value word is taken
		},
		operands:    opPatternThenFiles,
		patternOpts: []string{"-e", "--regexp", "-f", "--file"},
		maxOperands: -1,
		recursive:   []string{"-r", "--recursive", "-R", "--dereference-recursive", "-d recurse", "--directories=recurse"},
		hidden:      []string{"*"},
	},
	"file": {
		style: styleGNU,
		opts: map[string]optKind{
			"--help": oFlag,
			"-v":     oFlag, "--version": oFlag,
			"-m": oRead, "--magic-file": oRead, // colon-separated list of magic files read
			"-z": oDeny, "--uncompress": oDeny, // runs external decompressors found on PATH for some formats (zstd -cd verified with strace); runs external decompressors found on PATH (zstd -cd verified)
			"-Z": oDeny, "--uncompress-noreport": oDeny, // like -z: runs external decompressors
			"-b": oFlag, "--brief": oFlag,
			"-c": oFlag, "--checking-printout": oFlag,
			"-e": oValue, "--exclude": oValue,
			"--exclude-quiet": oValue,
			"-f":              oRead, "--files-from": oRead, // reads the file names to examine from FILE (indirect; prints types only)
			"-F": oValue, "--separator": oValue,
			"-i": oFlag, "--mime": oFlag,
			"--apple":         oFlag,
			"--extension":     oFlag,
			"--mime-type":     oFlag,
			"--mime-encoding": oFlag,
			"-k":              oFlag, "--keep-going": oFlag,
			"-l": oFlag, "--list": oFlag,
			"-L": oFlag, "--dereference": oFlag,
			"-h": oFlag, "--no-dereference": oFlag,
			"-n": oFlag, "--no-buffer": oFlag,
			"-N": oFlag, "--no-pad": oFlag,
			"-0": oFlag, "--print0": oFlag,
			"-p": oDeny, "--preserve-date": oDeny, // restores atime with utime(2): changes the file ctime (verified)
			"-P": oValue, "--parameter": oValue, // name=value
			"-r": oFlag, "--raw": oFlag,
			"-s": oFlag, "--special-files": oFlag,
			"-S": oFlag, "--no-sandbox": oFlag, // disables the seccomp sandbox (harmless without -z)
			"-C": oDeny, "--compile": oDeny, // compiles the magic file: writes NAME.mgc in the current directory (verified)
			"-d": oFlag, "--debug": oFlag,
			"-E": oFlag, // hidden: accepted by getopt, not in --help
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"find": {
		// expression words, not getopt: -newerXY FILE also exists (X,Y in aBcmt; t takes a date string); operands are
		// the starting points before the first expression word
		style: styleGNU,
		opts: map[string]optKind{
			"-H": oFlag, "-L": oFlag, "-P": oFlag, // leading options; -L follows symlinks
			"-D":  oValue,                                          // debug options (leading)
			"-O0": oFlag, "-O1": oFlag, "-O2": oFlag, "-O3": oFlag, // optimisation level (leading)
			"-exec": oDeny, "-execdir": oDeny, "-ok": oDeny, "-okdir": oDeny, // runs a command (up to ; or +)
			"-delete": oDeny,                                   // deletes files
			"-fprint": oDeny, "-fprint0": oDeny, "-fls": oDeny, // writes FILE
			"-fprintf":     oDeny,                                                         // writes FILE (FILE FORMAT)
			"-files0-from": oRead,                                                         // starting points read from FILE (indirect; prints names only)
			"-newer":       oRead, "-anewer": oRead, "-cnewer": oRead, "-samefile": oRead, // stat of FILE
			"-name": oValue, "-iname": oValue, "-path": oValue, "-ipath": oValue, "-wholename": oValue, "-iwholename": oValue, "-regex": oValue, "-iregex": oValue, "-lname": oValue, "-ilname": oValue, "-regextype": oValue, "-type": oValue, "-xtype": oValue, "-perm": oValue, "-user": oValue, "-group": oValue, "-uid": oValue, "-gid": oValue, "-size": oValue, "-links": oValue, "-inum": oValue, "-amin": oValue, "-atime": oValue, "-cmin": oValue, "-ctime": oValue, "-mmin": oValue, "-mtime": oValue, "-used": oValue, "-fstype": oValue, "-context": oValue, "-maxdepth": oValue, "-mindepth": oValue, "-printf": oValue, // one value word
			"-print": oFlag, "-print0": oFlag, "-ls": oFlag, "-prune": oFlag, "-quit": oFlag, "-true": oFlag, "-false": oFlag, "-empty": oFlag, "-readable": oFlag, "-writable": oFlag, "-executable": oFlag, "-nouser": oFlag, "-nogroup": oFlag, "-depth": oFlag, "-d": oFlag, "-mount": oFlag, "-xdev": oFlag, "-noleaf": oFlag, "-daystart": oFlag, "-follow": oFlag, "-nowarn": oFlag, "-warn": oFlag, "-ignore_readdir_race": oFlag, "-noignore_readdir_race": oFlag, "-not": oFlag, "-a": oFlag, "-and": oFlag, "-o": oFlag, "-or": oFlag, "!": oFlag, "(": oFlag, ")": oFlag, ",": oFlag, "--help": oFlag, "--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
		recursive:   []string{"*"},
		hidden:      []string{"*"},
		defaultDot:  true,
	},
	"fold": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--bytes": oFlag,
			"-s": oFlag, "--spaces": oFlag,
			"-w": oValue, "--width": oValue,
			"--help":    oFlag,
			"--version": oFlag,
			"-0":        oFlag, "-1": oFlag, "-2": oFlag, "-3": oFlag, "-4": oFlag, "-5": oFlag, "-6": oFlag, "-7": oFlag, "-8": oFlag, "-9": oFlag, // hidden obsolete -NUM = -w NUM
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"free": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--bytes": oFlag,
			"--kilo": oFlag,
			"--mega": oFlag,
			"--giga": oFlag,
			"--tera": oFlag,
			"--peta": oFlag,
			"-k":     oFlag, "--kibi": oFlag,
			"-m": oFlag, "--mebi": oFlag,
			"-g": oFlag, "--gibi": oFlag,
			"--tebi": oFlag,
			"--pebi": oFlag,
			"-h":     oFlag, "--human": oFlag,
			"--si": oFlag,
			"-l":   oFlag, "--lohi": oFlag,
			"-t": oFlag, "--total": oFlag,
			"-v": oFlag, "--committed": oFlag,
			"-s": oValue, "--seconds": oValue, // repeats every N seconds: never terminates without -c
			"-c": oValue, "--count": oValue,
			"-w": oFlag, "--wide": oFlag,
			"--help": oFlag,
			"-V":     oFlag, "--version": oFlag,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"getconf": {
		// operands: VAR, or PATH_VAR PATH (pathconf on PATH)
		style: stylePOSIX,
		opts: map[string]optKind{
			"-a": oFlag,  // print all variables
			"-v": oValue, // SPEC, attached (-vSPEC) or next word; glibc 2.36 does not exec a per-spec helper (verified with GETCONF_DIR)
		},
		operands:    opNone,
		maxOperands: 2,
	},
	"grep": {
		style: styleGNU,
		opts: map[string]optKind{
			"-E": oFlag, "--extended-regexp": oFlag,
			"-F": oFlag, "--fixed-strings": oFlag,
			"-G": oFlag, "--basic-regexp": oFlag,
			"-P": oFlag, "--perl-regexp": oFlag,
			"-e": oValue, "--regexp": oValue,
			"-f": oRead, "--file": oRead, // patterns read from FILE
			"-i": oFlag, "--ignore-case": oFlag,
			"--no-ignore-case": oFlag,
			"-w":               oFlag, "--word-regexp": oFlag,
			"-x": oFlag, "--line-regexp": oFlag,
			"-z": oFlag, "--null-data": oFlag,
			"-s": oFlag, "--no-messages": oFlag,
			"-v": oFlag, "--invert-match": oFlag,
			"-V": oFlag, "--version": oFlag,
			"--help": oFlag,
			"-m":     oValue, "--max-count": oValue,
			"-b": oFlag, "--byte-offset": oFlag,
			"-n": oFlag, "--line-number": oFlag,
			"--line-buffered": oFlag,
			"-H":              oFlag, "--with-filename": oFlag,
			"-h": oFlag, "--no-filename": oFlag,
			"--label": oValue,
			"-o":      oFlag, "--only-matching": oFlag,
			"-q": oFlag, "--quiet": oFlag, "--silent": oFlag,
			"--binary-files": oValue,
			"-a":             oFlag, "--text": oFlag,
			"-I": oFlag,
			"-d": oValue, "--directories": oValue, // "recurse" makes it recursive
			"-D": oValue, "--devices": oValue,
			"-r": oFlag, "--recursive": oFlag,
			"-R": oFlag, "--dereference-recursive": oFlag, // recursive, follows all symlinks
			"--include":      oValue,
			"--exclude":      oValue,
			"--exclude-from": oRead, // globs read from FILE
			"--exclude-dir":  oValue,
			"-L":             oFlag, "--files-without-match": oFlag,
			"-l": oFlag, "--files-with-matches": oFlag,
			"-c": oFlag, "--count": oFlag,
			"-T": oFlag, "--initial-tab": oFlag,
			"-Z": oFlag, "--null": oFlag,
			"-B": oValue, "--before-context": oValue,
			"-A": oValue, "--after-context": oValue,
			"-C": oValue, "--context": oValue,
			"--group-separator":    oValue,
			"--no-group-separator": oFlag,
			"--color":              oOptValue,
			"--colour":             oOptValue,
			"-U":                   oFlag, "--binary": oFlag,
			"-0": oFlag, "-1": oFlag, "-2": oFlag, "-3": oFlag, "-4": oFlag, "-5": oFlag, "-6": oFlag, "-7": oFlag, "-8": oFlag, "-9": oFlag, // -NUM = --context=NUM; digits accumulate, no value word is taken
		},
		operands:    opPatternThenFiles,
		patternOpts: []string{"-e", "--regexp", "-f", "--file"},
		maxOperands: -1,
		recursive:   []string{"-r", "--recursive", "-R", "--dereference-recursive", "-d recurse", "--directories=recurse"},
		hidden:      []string{"*"},
	},
	"groups": {
		style: styleGNU,
		opts: map[string]optKind{
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"head": {
		style: styleGNU,
		opts: map[string]optKind{
			"-c": oValue, "--bytes": oValue,
			"-n": oValue, "--lines": oValue,
			"-q": oFlag, "--quiet": oFlag, "--silent": oFlag,
			"-v": oFlag, "--verbose": oFlag,
			"-z": oFlag, "--zero-terminated": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
			"-0":        oFlag, "-1": oFlag, "-2": oFlag, "-3": oFlag, "-4": oFlag, "-5": oFlag, "-6": oFlag, "-7": oFlag, "-8": oFlag, "-9": oFlag, // obsolete -NUM = -n NUM (only as the first argument)
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"hexdump": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--one-byte-octal": oFlag,
			"-c": oFlag, "--one-byte-char": oFlag,
			"-C": oFlag, "--canonical": oFlag,
			"-d": oFlag, "--two-bytes-decimal": oFlag,
			"-o": oFlag, "--two-bytes-octal": oFlag,
			"-x": oFlag, "--two-bytes-hex": oFlag,
			"-L": oOptValue, "--color": oOptValue,
			"-e": oValue, "--format": oValue,
			"-f": oRead, "--format-file": oRead, // format strings read from FILE
			"-n": oValue, "--length": oValue,
			"-s": oValue, "--skip": oValue,
			"-v": oFlag, "--no-squeezing": oFlag,
			"-h": oFlag, "--help": oFlag,
			"-V": oFlag, "--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"hostname": {
		// any operand sets the host name; also runs as domainname/ypdomainname/nisdomainname/dnsdomainname
		style: styleGNU,
		opts: map[string]optKind{
			"-a": oFlag, "--alias": oFlag,
			"-A": oFlag, "--all-fqdns": oFlag,
			"-b": oDeny, "--boot": oDeny, // sets the host name
			"-d": oFlag, "--domain": oFlag,
			"-f": oFlag, "--fqdn": oFlag, "--long": oFlag,
			"-F": oDeny, "--file": oDeny, // sets the host name from FILE
			"-i": oFlag, "--ip-address": oFlag,
			"-I": oFlag, "--all-ip-addresses": oFlag,
			"-s": oFlag, "--short": oFlag,
			"-y": oFlag, "--yp": oFlag, "--nis": oFlag,
			"-h": oFlag, "--help": oFlag, // listed in the Usage synopsis only (-V|--version|-h|--help)
			"-V": oFlag, "--version": oFlag,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"id": {
		style: styleGNU,
		opts: map[string]optKind{
			"-a": oFlag,
			"-Z": oFlag, "--context": oFlag,
			"-g": oFlag, "--group": oFlag,
			"-G": oFlag, "--groups": oFlag,
			"-n": oFlag, "--name": oFlag,
			"-r": oFlag, "--real": oFlag,
			"-u": oFlag, "--user": oFlag,
			"-z": oFlag, "--zero": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"jq": {
		// jq 1.6 own parser: options anywhere before --; long names exact (no abbreviations); short letters cluster
		// (-nr); -L must be the first letter; the filter can read env ($ENV, env) and files (import "../x" as $d reads
		// ../x.json, include "m" reads m.jq)
		style: styleGNU,
		opts: map[string]optKind{
			"-s": oFlag, "--slurp": oFlag,
			"-r": oFlag, "--raw-output": oFlag,
			"-c": oFlag, "--compact-output": oFlag,
			"-C": oFlag, "--color-output": oFlag,
			"-M": oFlag, "--monochrome-output": oFlag,
			"-a": oFlag, "--ascii-output": oFlag,
			"--unbuffered": oFlag,
			"-S":           oFlag, "--sort-keys": oFlag,
			"-R": oFlag, "--raw-input": oFlag,
			"-n": oFlag, "--null-input": oFlag,
			"-f": oFlag, "--from-file": oFlag, // a switch: the FIRST OPERAND becomes a file holding the program (read); jq echoes program lines in syntax errors
			"-j": oFlag, "--join-output": oFlag,
			"--tab":    oFlag,
			"--indent": oValue, // n (next word only)
			"--seq":    oFlag, "--stream": oFlag, "--stream-errors": oFlag,
			"-e": oFlag, "--exit-status": oFlag,
			"--args":     oFlag,                         // later operands are strings, not files
			"--jsonargs": oFlag,                         // later operands are JSON texts, not files
			"--arg":      oValue2, "--argjson": oValue2, // NAME VALUE in the next two words
			"--argfile": oRead2, "--rawfile": oRead2, "--slurpfile": oRead2, // NAME FILE: FILE is read
			"-L":                  oRead,                                                     // module search directory: -Ldir attached or next word (import/include read .jq/.json files from it)
			"--debug-dump-disasm": oFlag, "--debug-trace": oFlag, "--debug-trace=all": oFlag, // hidden
			"-h": oFlag, "--help": oFlag,
			"-V": oFlag, "--version": oFlag,
			"--run-tests": oRead, // hidden: the next word is a test file; runs jq test cases (no exec)
			"--":          oFlag, // end of options
		},
		operands:    opPatternThenFiles,
		maxOperands: -1,
	},
	"locale": {
		style: styleGNU,
		opts: map[string]optKind{
			"-a": oFlag, "--all-locales": oFlag,
			"-m": oFlag, "--charmaps": oFlag,
			"-c": oFlag, "--category-name": oFlag,
			"-k": oFlag, "--keyword-name": oFlag,
			"-v": oFlag, "--verbose": oFlag,
			"-?": oFlag, "--help": oFlag,
			"--usage": oFlag,
			"-V":      oFlag, "--version": oFlag,
			"--HANG":         oOptValue, // hidden: accepted by getopt, not in --help
			"--program-name": oValue,    // hidden: accepted by getopt, not in --help
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"ls": {
		// -f implies -a (lists hidden entries).
		style: styleGNU,
		opts: map[string]optKind{
			"-a": oFlag, "--all": oFlag,
			"-A": oFlag, "--almost-all": oFlag,
			"--author": oFlag,
			"-b":       oFlag, "--escape": oFlag,
			"--block-size": oValue,
			"-B":           oFlag, "--ignore-backups": oFlag,
			"-c":      oFlag,
			"-C":      oFlag,
			"--color": oOptValue,
			"-d":      oFlag, "--directory": oFlag,
			"-D": oFlag, "--dired": oFlag,
			"-f": oFlag,
			"-F": oFlag, "--classify": oOptValue,
			"--file-type":               oFlag,
			"--format":                  oValue,
			"--full-time":               oFlag,
			"-g":                        oFlag,
			"--group-directories-first": oFlag,
			"-G":                        oFlag, "--no-group": oFlag,
			"-h": oFlag, "--human-readable": oFlag,
			"--si": oFlag,
			"-H":   oFlag, "--dereference-command-line": oFlag,
			"--dereference-command-line-symlink-to-dir": oFlag,
			"--hide":            oValue,
			"--hyperlink":       oOptValue,
			"--indicator-style": oValue,
			"-i":                oFlag, "--inode": oFlag,
			"-I": oValue, "--ignore": oValue, // shell pattern, not a path
			"-k": oFlag, "--kibibytes": oFlag,
			"-l": oFlag,
			"-L": oFlag, "--dereference": oFlag, // follows symlinks (also out of the tree with -R)
			"-m": oFlag,
			"-n": oFlag, "--numeric-uid-gid": oFlag,
			"-N": oFlag, "--literal": oFlag,
			"-o": oFlag,
			"-p": oFlag,
			"-q": oFlag, "--hide-control-chars": oFlag,
			"--show-control-chars": oFlag,
			"-Q":                   oFlag, "--quote-name": oFlag,
			"--quoting-style": oValue,
			"-r":              oFlag, "--reverse": oFlag,
			"-R": oFlag, "--recursive": oFlag,
			"-s": oFlag, "--size": oFlag,
			"-S":           oFlag,
			"--sort":       oValue,
			"--time":       oValue,
			"--time-style": oValue,
			"-t":           oFlag,
			"-T":           oValue, "--tabsize": oValue,
			"-u": oFlag,
			"-U": oFlag,
			"-v": oFlag,
			"-w": oValue, "--width": oValue,
			"-x": oFlag,
			"-X": oFlag,
			"-Z": oFlag, "--context": oFlag,
			"--zero":    oFlag,
			"-1":        oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
		recursive:   []string{"-R", "--recursive"},
		hidden:      []string{"-a", "--all", "-A", "--almost-all", "-f"},
		defaultDot:  true,
	},
	"lsblk": {
		// operands are device paths
		style: styleGNU,
		opts: map[string]optKind{
			"-A": oFlag, "--noempty": oFlag,
			"-D": oFlag, "--discard": oFlag,
			"-E": oValue, "--dedup": oValue,
			"-I": oValue, "--include": oValue,
			"-J": oFlag, "--json": oFlag,
			"-M": oFlag, "--merge": oFlag,
			"-O": oFlag, "--output-all": oFlag,
			"-P": oFlag, "--pairs": oFlag,
			"-S": oFlag, "--scsi": oFlag,
			"-T": oOptValue, "--tree": oOptValue,
			"-a": oFlag, "--all": oFlag,
			"-b": oFlag, "--bytes": oFlag,
			"-d": oFlag, "--nodeps": oFlag,
			"-e": oValue, "--exclude": oValue,
			"-f": oFlag, "--fs": oFlag,
			"-i": oFlag, "--ascii": oFlag,
			"-l": oFlag, "--list": oFlag,
			"-m": oFlag, "--perms": oFlag,
			"-n": oFlag, "--noheadings": oFlag,
			"-o": oValue, "--output": oValue,
			"-p": oFlag, "--paths": oFlag,
			"-r": oFlag, "--raw": oFlag,
			"-s": oFlag, "--inverse": oFlag,
			"-t": oFlag, "--topology": oFlag,
			"-w": oValue, "--width": oValue,
			"-x": oValue, "--sort": oValue,
			"-y": oFlag, "--shell": oFlag,
			"-z": oFlag, "--zoned": oFlag,
			"--sysroot": oRead, // directory used as the system root (reads its /sys, /dev)
			"-h":        oFlag, "--help": oFlag,
			"-V": oFlag, "--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"md5sum": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--binary": oFlag,
			"-c": oFlag, "--check": oFlag, // reads the checksum FILEs and then every file they name (indirect reads; prints OK/FAILED only)
			"--tag": oFlag,
			"-t":    oFlag, "--text": oFlag,
			"-z": oFlag, "--zero": oFlag,
			"--ignore-missing": oFlag,
			"--quiet":          oFlag,
			"--status":         oFlag,
			"--strict":         oFlag,
			"-w":               oFlag, "--warn": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"nl": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oValue, "--body-numbering": oValue,
			"-d": oValue, "--section-delimiter": oValue,
			"-f": oValue, "--footer-numbering": oValue,
			"-h": oValue, "--header-numbering": oValue,
			"-i": oValue, "--line-increment": oValue,
			"-l": oValue, "--join-blank-lines": oValue,
			"-n": oValue, "--number-format": oValue,
			"-p": oFlag, "--no-renumber": oFlag,
			"-s": oValue, "--number-separator": oValue,
			"-v": oValue, "--starting-line-number": oValue,
			"-w": oValue, "--number-width": oValue,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"nproc": {
		style: styleGNU,
		opts: map[string]optKind{
			"--all":     oFlag,
			"--ignore":  oValue,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"numfmt": {
		style: styleGNU,
		opts: map[string]optKind{
			"--debug": oFlag,
			"-d":      oValue, "--delimiter": oValue,
			"--field":     oValue,
			"--format":    oValue,
			"--from":      oValue,
			"--from-unit": oValue,
			"--grouping":  oFlag,
			"--header":    oOptValue,
			"--invalid":   oValue,
			"--padding":   oValue,
			"--round":     oValue,
			"--suffix":    oValue,
			"--to":        oValue,
			"--to-unit":   oValue,
			"-z":          oFlag, "--zero-terminated": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
			"-M":        oFlag,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"od": {
		// traditional form: od [FILE] [[+]OFFSET[.][b]] - an operand starting with + or a digit may be an offset
		style: styleGNU,
		opts: map[string]optKind{
			"-A": oValue, "--address-radix": oValue,
			"--endian": oValue,
			"-j":       oValue, "--skip-bytes": oValue,
			"-N": oValue, "--read-bytes": oValue,
			"-S": oValue, "--strings": oOptValue,
			"-t": oValue, "--format": oValue,
			"-v": oFlag, "--output-duplicates": oFlag,
			"-w": oOptValue, "--width": oOptValue, // -w[BYTES], attached only
			"--traditional": oFlag,
			"--help":        oFlag,
			"--version":     oFlag,
			"-a":            oFlag,
			"-b":            oFlag,
			"-c":            oFlag,
			"-d":            oFlag,
			"-f":            oFlag,
			"-i":            oFlag,
			"-l":            oFlag,
			"-o":            oFlag,
			"-s":            oFlag,
			"-x":            oFlag,
			"-e":            oFlag, // hidden: accepted by getopt, not in --help
			"-h":            oFlag, // hidden: accepted by getopt, not in --help
			"-B":            oFlag, // hidden: accepted by getopt, not in --help
			"-D":            oFlag, // hidden: accepted by getopt, not in --help
			"-F":            oFlag, // hidden: accepted by getopt, not in --help
			"-H":            oFlag, // hidden: accepted by getopt, not in --help
			"-I":            oFlag, // hidden: accepted by getopt, not in --help
			"-L":            oFlag, // hidden: accepted by getopt, not in --help
			"-O":            oFlag, // hidden: accepted by getopt, not in --help
			"-X":            oFlag, // hidden: accepted by getopt, not in --help
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"paste": {
		style: styleGNU,
		opts: map[string]optKind{
			"-d": oValue, "--delimiters": oValue,
			"-s": oFlag, "--serial": oFlag,
			"-z": oFlag, "--zero-terminated": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"pgrep": {
		// operand is a regex matched against process names (-f: full command lines)
		style: styleGNU,
		opts: map[string]optKind{
			"-d": oValue, "--delimiter": oValue,
			"-l": oFlag, "--list-name": oFlag,
			"-a": oFlag, "--list-full": oFlag,
			"-v": oFlag, "--inverse": oFlag,
			"-w": oFlag, "--lightweight": oFlag,
			"-c": oFlag, "--count": oFlag,
			"-f": oFlag, "--full": oFlag,
			"-g": oValue, "--pgroup": oValue,
			"-G": oValue, "--group": oValue,
			"-i": oFlag, "--ignore-case": oFlag,
			"-n": oFlag, "--newest": oFlag,
			"-o": oFlag, "--oldest": oFlag,
			"-O": oValue, "--older": oValue,
			"-P": oValue, "--parent": oValue,
			"-s": oValue, "--session": oValue,
			"-t": oValue, "--terminal": oValue,
			"-u": oValue, "--euid": oValue,
			"-U": oValue, "--uid": oValue,
			"-x": oFlag, "--exact": oFlag,
			"-F": oRead, "--pidfile": oRead, // PIDs read from FILE
			"-L": oFlag, "--logpidfile": oFlag,
			"-r": oValue, "--runstates": oValue,
			"-A": oFlag, "--ignore-ancestors": oFlag,
			"--cgroup": oValue,
			"--ns":     oValue,
			"--nslist": oValue,
			"-h":       oFlag, "--help": oFlag,
			"-V": oFlag, "--version": oFlag,
			"--echo":   oFlag,  // hidden: accepted by getopt, not in --help
			"--queue":  oValue, // hidden: accepted by getopt, not in --help
			"--signal": oValue, // hidden: accepted by getopt, not in --help
		},
		operands:    opNone,
		maxOperands: 1,
	},
	"printf": {
		// bash builtin; the first operand is the FORMAT
		style: stylePOSIX,
		opts: map[string]optKind{
			"-v": oDeny, // assigns the output to a shell variable (bash builtin)
			"--": oFlag, // end of options
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"ps": {
		// procps custom parser: Unix -x, BSD letters without a dash (a x u e w f ...), GNU --long; BSD words such as
		// "aux" are options, not operands; any dashless word containing e or E must be refused; the environ format
		// keyword prints "-" in procps 4.0.2 (verified) but refuse it too
		style: styleGNU,
		opts: map[string]optKind{
			"-A": oFlag, "-e": oFlag, "-a": oFlag, "-d": oFlag, "-N": oFlag, "--deselect": oFlag, "-F": oFlag, "-f": oFlag, "-H": oFlag, "-j": oFlag, "-l": oFlag, "-M": oFlag, "-P": oFlag, "-y": oFlag, "-L": oFlag, "-m": oFlag, "-T": oFlag, "-c": oFlag, "-w": oFlag, "--forest": oFlag, "--context": oFlag, "--headers": oFlag, "--no-headers": oFlag, "--cumulative": oFlag, "-V": oFlag, "--version": oFlag, "-Z": oFlag,
			"-C": oValue, "-G": oValue, "--Group": oValue, "-g": oValue, "--group": oValue, "-p": oValue, "--pid": oValue, "--ppid": oValue, "-q": oValue, "--quick-pid": oValue, "-s": oValue, "--sid": oValue, "-t": oValue, "--tty": oValue, "-u": oValue, "--user": oValue, "-U": oValue, "--User": oValue, "-O": oValue, "-o": oValue, "--format": oValue, "--cols": oValue, "--columns": oValue, "--width": oValue, "--rows": oValue, "--lines": oValue, "--sort": oValue, // list or format; may be attached
			"--help": oOptValue, // --help [simple|list|output|threads|misc|all] (next word)
			"e":      oDeny,     // BSD modifier e (in any word without a dash, e.g. aux e, eww): prints every process environment (verified)
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"pwd": {
		// bash builtin accepts only -L and -P
		style: styleGNU,
		opts: map[string]optKind{
			"-L": oFlag, "--logical": oFlag,
			"-P": oFlag, "--physical": oFlag,
			"--help":    oFlag, // /usr/bin/pwd only
			"--version": oFlag, // /usr/bin/pwd only
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"readlink": {
		style: styleGNU,
		opts: map[string]optKind{
			"-f": oFlag, "--canonicalize": oFlag,
			"-e": oFlag, "--canonicalize-existing": oFlag,
			"-m": oFlag, "--canonicalize-missing": oFlag,
			"-n": oFlag, "--no-newline": oFlag,
			"-q": oFlag, "--quiet": oFlag,
			"-s": oFlag, "--silent": oFlag,
			"-v": oFlag, "--verbose": oFlag,
			"-z": oFlag, "--zero": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"realpath": {
		style: styleGNU,
		opts: map[string]optKind{
			"-e": oFlag, "--canonicalize-existing": oFlag,
			"-m": oFlag, "--canonicalize-missing": oFlag,
			"-L": oFlag, "--logical": oFlag,
			"-P": oFlag, "--physical": oFlag,
			"-q": oFlag, "--quiet": oFlag,
			"--relative-to":   oRead, // directory resolved (lstat/readlink), not read
			"--relative-base": oRead, // directory resolved, not read
			"-s":              oFlag, "--strip": oFlag, "--no-symlinks": oFlag,
			"-z": oFlag, "--zero": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"rev": {
		style: styleGNU,
		opts: map[string]optKind{
			"-h": oFlag, "--help": oFlag,
			"-V": oFlag, "--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"rg": {
		// ripgrep 13 (clap 2): -A=1 means -A 1; no long-option abbreviations (--hid is an error, verified); config file
		// only via RIPGREP_CONFIG_PATH (env)
		style: styleGNU,
		opts: map[string]optKind{
			"-A": oValue, "--after-context": oValue, "-B": oValue, "--before-context": oValue, "-C": oValue, "--context": oValue, "-m": oValue, "--max-count": oValue, "-M": oValue, "--max-columns": oValue, "--max-depth": oValue, "--max-filesize": oValue, "--dfa-size-limit": oValue, "--regex-size-limit": oValue, "-j": oValue, "--threads": oValue, // number
			"-E": oValue, "--encoding": oValue, "--engine": oValue, "--color": oValue, "--colors": oValue, "--context-separator": oValue, "--field-context-separator": oValue, "--field-match-separator": oValue, "--path-separator": oValue, "--sort": oValue, "--sortr": oValue, "--sort-files": oValue,
			"-e": oValue, "--regexp": oValue, // pattern (also supplies the pattern)
			"-f": oRead, "--file": oRead, // patterns read from PATTERNFILE
			"-r": oValue, "--replace": oValue, // replacement text (hyphen values allowed)
			"-g": oValue, "--glob": oValue, "--iglob": oValue, // a positive glob (no leading !) whitelists files AND includes hidden ones: -g "*" searches dotfiles (verified)
			"-t": oValue, "--type": oValue, // whitelists a type; also matches hidden files such as .c.txt for -t txt (verified)
			"-T": oValue, "--type-not": oValue, "--type-clear": oValue,
			"--type-add":    oValue,                       // TYPE_SPEC
			"--ignore-file": oRead,                        // ignore rules read from PATH
			"--pre":         oDeny,                        // runs COMMAND on every searched file
			"--pre-glob":    oValue,                       // limits --pre
			"-z":            oDeny, "--search-zip": oDeny, // runs external decompressors (gzip, bzip2, xz, lz4, lzma, brotli, zstd, uncompress)
			"--hostname-bin":     oDeny,                    // rg 14+: runs PROGRAM to get the host name for hyperlinks
			"--hyperlink-format": oValue,                   // rg 14+
			"--generate":         oValue,                   // rg 14+: man/complete-*
			"-.":                 oFlag, "--hidden": oFlag, // includes hidden files
			"-u": oFlag, "--unrestricted": oFlag, // once: --no-ignore; twice: --hidden too; three times: --binary
			"-L": oFlag, "--follow": oFlag, // follows symlinks (may leave the tree)
			"-a": oFlag, "--text": oFlag, "-b": oFlag, "--byte-offset": oFlag, "-s": oFlag, "--case-sensitive": oFlag, "-c": oFlag, "--count": oFlag, "-l": oFlag, "--files-with-matches": oFlag, "-F": oFlag, "--fixed-strings": oFlag, "-h": oFlag, "--help": oFlag, "-i": oFlag, "--ignore-case": oFlag, "-v": oFlag, "--invert-match": oFlag, "-n": oFlag, "--line-number": oFlag, "-x": oFlag, "--line-regexp": oFlag, "-U": oFlag, "--multiline": oFlag, "-I": oFlag, "--no-filename": oFlag, "-N": oFlag, "--no-line-number": oFlag, "-0": oFlag, "--null": oFlag, "-o": oFlag, "--only-matching": oFlag, "-P": oFlag, "--pcre2": oFlag, "-p": oFlag, "--pretty": oFlag, "-q": oFlag, "--quiet": oFlag, "-S": oFlag, "--smart-case": oFlag, "-V": oFlag, "--version": oFlag, "-H": oFlag, "--with-filename": oFlag, "-w": oFlag, "--word-regexp": oFlag,
			"--auto-hybrid-regex": oFlag, "--binary": oFlag, "--block-buffered": oFlag, "--column": oFlag, "--count-matches": oFlag, "--crlf": oFlag, "--debug": oFlag, "--trace": oFlag, "--files": oFlag, "--files-without-match": oFlag, "--glob-case-insensitive": oFlag, "--heading": oFlag, "--ignore-file-case-insensitive": oFlag, "--include-zero": oFlag, "--json": oFlag, "--line-buffered": oFlag, "--max-columns-preview": oFlag, "--mmap": oFlag, "--multiline-dotall": oFlag, "--no-config": oFlag, "--no-heading": oFlag, "--no-ignore": oFlag, "--no-ignore-dot": oFlag, "--no-ignore-exclude": oFlag, "--no-ignore-files": oFlag, "--no-ignore-global": oFlag, "--no-ignore-messages": oFlag, "--no-ignore-parent": oFlag, "--no-ignore-vcs": oFlag, "--no-messages": oFlag, "--no-mmap": oFlag, "--no-pcre2-unicode": oFlag, "--no-require-git": oFlag, "--no-unicode": oFlag, "--null-data": oFlag, "--one-file-system": oFlag, "--passthru": oFlag, "--pcre2-version": oFlag, "--stats": oFlag, "--trim": oFlag, "--type-list": oFlag, "--vimgrep": oFlag,
			"--no-auto-hybrid-regex": oFlag, "--no-binary": oFlag, "--no-block-buffered": oFlag, "--no-column": oFlag, "--no-context-separator": oFlag, "--no-crlf": oFlag, "--no-encoding": oFlag, "--no-fixed-strings": oFlag, "--no-follow": oFlag, "--no-glob-case-insensitive": oFlag, "--no-hidden": oFlag, "--no-ignore-file-case-insensitive": oFlag, "--no-include-zero": oFlag, "--no-invert-match": oFlag, "--no-json": oFlag, "--no-line-buffered": oFlag, "--no-max-columns-preview": oFlag, "--no-multiline": oFlag, "--no-multiline-dotall": oFlag, "--no-one-file-system": oFlag, "--no-pcre2": oFlag, "--no-pre": oFlag, "--no-search-zip": oFlag, "--no-sort-files": oFlag, "--no-stats": oFlag, "--no-text": oFlag, "--no-trim": oFlag, "--ignore": oFlag, "--ignore-dot": oFlag, "--ignore-exclude": oFlag, "--ignore-files": oFlag, "--ignore-global": oFlag, "--ignore-messages": oFlag, "--ignore-parent": oFlag, "--ignore-vcs": oFlag, "--messages": oFlag, "--pcre2-unicode": oFlag, "--unicode": oFlag, "--require-git": oFlag, "--passthrough": oFlag, // negations and aliases hidden from --help (rg 13 app.rs)
		},
		operands:    opPatternThenFiles,
		patternOpts: []string{"-e", "--regexp", "-f", "--file", "--files", "--type-list", "--pcre2-version"},
		maxOperands: -1,
		recursive:   []string{"*"},
		hidden:      []string{"-.", "--hidden", "-uu", "-g", "--glob", "--iglob", "-t", "--type"},
		defaultDot:  true,
	},
	"sed": {
		// GNU sed 4.9 getopt_long (abbreviations: --e = --expression, --in = --in-place, --f is ambiguous between --file
		// and --follow-symlinks)
		style: styleGNU,
		opts: map[string]optKind{
			"-n": oFlag, "--quiet": oFlag, "--silent": oFlag,
			"--debug": oFlag,                          // annotates execution
			"-e":      oValue, "--expression": oValue, // script (supplies the script)
			"-f": oDeny, "--file": oDeny, // script read from FILE: may hold w/W/e/r commands the analyser cannot see
			"--follow-symlinks": oFlag,
			"-i":                oDeny, "--in-place": oDeny, // edits in place; -iSUFFIX/--in-place=SUFFIX writes a backup: a SUFFIX with / or * can put it in any directory, e.g. -i"/home/u/.bash*" on a file named rc overwrites /home/u/.bashrc (verified)
			"-l": oValue, "--line-length": oValue, // N
			"--posix": oFlag,
			"-E":      oFlag, "-r": oFlag, "--regexp-extended": oFlag,
			"-s": oFlag, "--separate": oFlag,
			"--sandbox": oFlag, // disables e/r/w commands
			"-u":        oFlag, "--unbuffered": oFlag,
			"-z": oFlag, "--null-data": oFlag, "--zero-terminated": oFlag, // --zero-terminated is hidden
			"-b": oFlag, "--binary": oFlag, // hidden (no effect on POSIX)
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opPatternThenFiles,
		patternOpts: []string{"-e", "--expression", "-f", "--file"},
		maxOperands: -1,
	},
	"seq": {
		style: stylePOSIX,
		opts: map[string]optKind{
			"-f": oValue, "--format": oValue,
			"-s": oValue, "--separator": oValue,
			"-w": oFlag, "--equal-width": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
			"-0":        oFlag, "-1": oFlag, "-2": oFlag, "-3": oFlag, "-4": oFlag, "-5": oFlag, "-6": oFlag, "-7": oFlag, "-8": oFlag, "-9": oFlag, // a negative number such as -5 is an operand, not an option
		},
		operands:    opNone,
		maxOperands: 3,
	},
	"sha1sum": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--binary": oFlag,
			"-c": oFlag, "--check": oFlag, // reads the checksum FILEs and then every file they name (indirect reads; prints OK/FAILED only)
			"--tag": oFlag,
			"-t":    oFlag, "--text": oFlag,
			"-z": oFlag, "--zero": oFlag,
			"--ignore-missing": oFlag,
			"--quiet":          oFlag,
			"--status":         oFlag,
			"--strict":         oFlag,
			"-w":               oFlag, "--warn": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"sha224sum": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--binary": oFlag,
			"-c": oFlag, "--check": oFlag, // reads the checksum FILEs and then every file they name (indirect reads; prints OK/FAILED only)
			"--tag": oFlag,
			"-t":    oFlag, "--text": oFlag,
			"-z": oFlag, "--zero": oFlag,
			"--ignore-missing": oFlag,
			"--quiet":          oFlag,
			"--status":         oFlag,
			"--strict":         oFlag,
			"-w":               oFlag, "--warn": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"sha256sum": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--binary": oFlag,
			"-c": oFlag, "--check": oFlag, // reads the checksum FILEs and then every file they name (indirect reads; prints OK/FAILED only)
			"--tag": oFlag,
			"-t":    oFlag, "--text": oFlag,
			"-z": oFlag, "--zero": oFlag,
			"--ignore-missing": oFlag,
			"--quiet":          oFlag,
			"--status":         oFlag,
			"--strict":         oFlag,
			"-w":               oFlag, "--warn": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"sha384sum": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--binary": oFlag,
			"-c": oFlag, "--check": oFlag, // reads the checksum FILEs and then every file they name (indirect reads; prints OK/FAILED only)
			"--tag": oFlag,
			"-t":    oFlag, "--text": oFlag,
			"-z": oFlag, "--zero": oFlag,
			"--ignore-missing": oFlag,
			"--quiet":          oFlag,
			"--status":         oFlag,
			"--strict":         oFlag,
			"-w":               oFlag, "--warn": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"sha512sum": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--binary": oFlag,
			"-c": oFlag, "--check": oFlag, // reads the checksum FILEs and then every file they name (indirect reads; prints OK/FAILED only)
			"--tag": oFlag,
			"-t":    oFlag, "--text": oFlag,
			"-z": oFlag, "--zero": oFlag,
			"--ignore-missing": oFlag,
			"--quiet":          oFlag,
			"--status":         oFlag,
			"--strict":         oFlag,
			"-w":               oFlag, "--warn": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"sleep": {
		// NUMBER[SUFFIX] operands; "inf" sleeps forever
		style: styleGNU,
		opts: map[string]optKind{
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"sort": {
		// sort -c with -o fails ("options -co are incompatible") and writes nothing (verified)
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--ignore-leading-blanks": oFlag,
			"-d": oFlag, "--dictionary-order": oFlag,
			"-f": oFlag, "--ignore-case": oFlag,
			"-g": oFlag, "--general-numeric-sort": oFlag,
			"-i": oFlag, "--ignore-nonprinting": oFlag,
			"-M": oFlag, "--month-sort": oFlag,
			"-h": oFlag, "--human-numeric-sort": oFlag,
			"-n": oFlag, "--numeric-sort": oFlag,
			"-R": oFlag, "--random-sort": oFlag,
			"--random-source": oRead, // random bytes read from FILE
			"-r":              oFlag, "--reverse": oFlag,
			"--sort": oValue,
			"-V":     oFlag, "--version-sort": oFlag,
			"--batch-size": oValue,
			"-c":           oFlag, "--check": oOptValue, // -c and -C are switches; --check[=diagnose-first|quiet|silent]: the value is attached only
			"-C":                 oFlag, // -c and -C are switches; --check[=diagnose-first|quiet|silent]: the value is attached only
			"--compress-program": oDeny, // runs PROG to compress temporaries (verified: ran with -S 1k)
			"--debug":            oFlag,
			"--files0-from":      oDeny, // indirect: reads the file names listed in F; the listed files are read but never appear on the command line and their contents are printed
			"-k":                 oValue, "--key": oValue,
			"-m": oFlag, "--merge": oFlag,
			"-o": oDeny, "--output": oDeny, // writes FILE
			"-s": oFlag, "--stable": oFlag,
			"-S": oValue, "--buffer-size": oValue,
			"-t": oValue, "--field-separator": oValue,
			"-T": oDeny, "--temporary-directory": oDeny, // creates temporary files in DIR (verified with strace); creates temporary files in DIR (verified)
			"--parallel": oValue,
			"-u":         oFlag, "--unique": oFlag,
			"-z": oFlag, "--zero-terminated": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
			"-y":        oFlag, // hidden: accepted by getopt, not in --help; hidden: getopt "y:" but a non-numeric value is pushed back and parsed again (sort -y -o F writes F): model as a switch
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"stat": {
		style: styleGNU,
		opts: map[string]optKind{
			"-L": oFlag, "--dereference": oFlag,
			"-f": oFlag, "--file-system": oFlag,
			"--cached": oValue,
			"-c":       oValue,
			"--printf": oValue,
			"-t":       oFlag, "--terse": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
			"--format":  oValue, // listed as "-c  --format=FORMAT" (no comma)
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"strings": {
		// binutils: any argument @FILE is replaced by the words in FILE before option parsing.
		style: styleGNU,
		opts: map[string]optKind{
			"-a": oFlag, "--all": oFlag,
			"-d": oFlag, "--data": oFlag,
			"-f": oFlag, "--print-file-name": oFlag,
			"-n":      oValue,
			"--bytes": oValue,
			"-t":      oValue, "--radix": oValue,
			"-w": oFlag, "--include-all-whitespace": oFlag,
			"-o": oFlag,
			"-T": oValue, "--target": oValue,
			"-e": oValue, "--encoding": oValue,
			"--unicode": oValue,
			"-U":        oValue,
			"-s":        oValue, "--output-separator": oValue,
			"-h": oFlag, "--help": oFlag,
			"-v": oFlag, "-V": oFlag, "--version": oFlag,
			"-H": oFlag,                                                                                                                      // hidden: accepted by getopt, not in --help
			"-0": oFlag, "-1": oFlag, "-2": oFlag, "-3": oFlag, "-4": oFlag, "-5": oFlag, "-6": oFlag, "-7": oFlag, "-8": oFlag, "-9": oFlag, // hidden -NUM = -n NUM
			"@FILE": oDeny, // an operand @FILE is a response file: options are read from FILE (binutils expandargv) - refuse any operand starting with @
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"sum": {
		style: styleGNU,
		opts: map[string]optKind{
			"-r": oFlag,
			"-s": oFlag, "--sysv": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"tac": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, "--before": oFlag,
			"-r": oFlag, "--regex": oFlag,
			"-s": oValue, "--separator": oValue,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"tail": {
		style: styleGNU,
		opts: map[string]optKind{
			"-c": oValue, "--bytes": oValue,
			"-f": oFlag, "--follow": oOptValue, // never terminates (follows the file); not a write; never terminates; =name|descriptor
			"-F": oFlag, // never terminates
			"-n": oValue, "--lines": oValue,
			"--max-unchanged-stats": oValue,
			"--pid":                 oValue, // a process id
			"-q":                    oFlag, "--quiet": oFlag, "--silent": oFlag,
			"--retry": oFlag,
			"-s":      oValue, "--sleep-interval": oValue,
			"-v": oFlag, "--verbose": oFlag,
			"-z": oFlag, "--zero-terminated": oFlag,
			"--help":                oFlag,
			"--version":             oFlag,
			"-b":                    oFlag,                                                                                                                      // obsolete form -[NUM]b / -[NUM]l (first argument only)
			"-l":                    oFlag,                                                                                                                      // obsolete form -[NUM]b / -[NUM]l (first argument only)
			"---presume-input-pipe": oFlag,                                                                                                                      // hidden (three dashes: getopt long option "-presume-input-pipe")
			"-0":                    oFlag, "-1": oFlag, "-2": oFlag, "-3": oFlag, "-4": oFlag, "-5": oFlag, "-6": oFlag, "-7": oFlag, "-8": oFlag, "-9": oFlag, // obsolete -NUM / +NUM forms
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"test": {
		// no options: every word is part of the expression; FILE tests only stat; [ needs a final ]
		style:       stylePOSIX,
		opts:        map[string]optKind{},
		operands:    opNone,
		maxOperands: -1,
	},
	"tr": {
		// getopt "+AcCdst": options end at the first operand (verified: tr a --version is an operand)
		style: stylePOSIX,
		opts: map[string]optKind{
			"-c": oFlag, "-C": oFlag, "--complement": oFlag,
			"-d": oFlag, "--delete": oFlag,
			"-s": oFlag, "--squeeze-repeats": oFlag,
			"-t": oFlag, "--truncate-set1": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
			"-A":        oFlag, // hidden: accepted by getopt, not in --help; hidden AIX compatibility: C locale
		},
		operands:    opNone,
		maxOperands: 2,
	},
	"tree": {
		// tree 2.1.0: options anywhere; in a cluster every value letter (L P I H T o) takes the next unused word, in
		// order
		style: styleTree,
		opts: map[string]optKind{
			"-a": oFlag, // all files, including hidden
			"-d": oFlag,
			"-l": oFlag, // follows symlinks to directories (may leave the tree)
			"-f": oFlag,
			"-x": oFlag,
			"-L": oValue, // level; takes the next word even inside a cluster
			"-R": oDeny,  // with -L, writes 00Tree.html into every directory deeper than the level (verified, even without -H)
			"-P": oValue, // pattern
			"-I": oValue, // pattern
			"-o": oDeny,  // writes the listing to FILE (verified -Lo 2 FILE writes FILE)
			"-q": oFlag, "-N": oFlag, "-Q": oFlag, "-p": oFlag, "-u": oFlag, "-g": oFlag, "-s": oFlag, "-h": oFlag, "-D": oFlag, "-F": oFlag, "-v": oFlag, "-t": oFlag, "-c": oFlag, "-U": oFlag, "-r": oFlag, "-i": oFlag, "-A": oFlag, "-S": oFlag, "-n": oFlag, "-C": oFlag, "-X": oFlag, "-J": oFlag,
			"-H":          oValue,                                                                                                                                                                                                                                                                                                                          // baseHREF (HTML output)
			"-T":          oValue,                                                                                                                                                                                                                                                                                                                          // HTML title
			"--gitignore": oFlag, "--ignore-case": oFlag, "--matchdirs": oFlag, "--metafirst": oFlag, "--prune": oFlag, "--info": oFlag, "--noreport": oFlag, "--si": oFlag, "--du": oFlag, "--inodes": oFlag, "--device": oFlag, "--dirsfirst": oFlag, "--filesfirst": oFlag, "--nolinks": oFlag, "--fflinks": oFlag, "--help": oFlag, "--version": oFlag, // exact match only
			"--gitfile":  oRead,                    // gitignore file read; value by = or next word; any word starting with --gitfile matches
			"--infofile": oRead,                    // .info file read (its comments are printed)
			"--hintro":   oRead, "--houtro": oRead, // HTML intro/outro file copied into the output
			"--charset": oValue, "--timefmt": oValue, "--sort": oValue, "--filelimit": oValue, // value by = or the next word; any word starting with the name matches (--sortXYZ name = --sort name, verified)
			"--fromfile": oDeny, // operands become files whose lines are printed as a tree (conservative: keep refusing)
			"--":         oFlag, // end of options
		},
		operands:    opFiles,
		maxOperands: -1,
		recursive:   []string{"*"},
		hidden:      []string{"-a"},
		defaultDot:  true,
	},
	"tty": {
		style: styleGNU,
		opts: map[string]optKind{
			"-s": oFlag, "--silent": oFlag, "--quiet": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"uname": {
		style: styleGNU,
		opts: map[string]optKind{
			"-a": oFlag, "--all": oFlag,
			"-s": oFlag, "--kernel-name": oFlag,
			"-n": oFlag, "--nodename": oFlag,
			"-r": oFlag, "--kernel-release": oFlag,
			"-v": oFlag, "--kernel-version": oFlag,
			"-m": oFlag, "--machine": oFlag,
			"-p": oFlag, "--processor": oFlag,
			"-i": oFlag, "--hardware-platform": oFlag,
			"-o": oFlag, "--operating-system": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
			"--release": oFlag, // hidden: accepted by getopt, not in --help
			"--sysname": oFlag, // hidden: accepted by getopt, not in --help
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"uniq": {
		// the second operand is the OUTPUT file: more than one operand writes
		style: styleGNU,
		opts: map[string]optKind{
			"-c": oFlag, "--count": oFlag,
			"-d": oFlag, "--repeated": oFlag,
			"-D":             oFlag,
			"--all-repeated": oOptValue,
			"-f":             oValue, "--skip-fields": oValue,
			"--group": oOptValue,
			"-i":      oFlag, "--ignore-case": oFlag,
			"-s": oValue, "--skip-chars": oValue,
			"-u": oFlag, "--unique": oFlag,
			"-z": oFlag, "--zero-terminated": oFlag,
			"-w": oValue, "--check-chars": oValue,
			"--help":    oFlag,
			"--version": oFlag,
			"-0":        oFlag, "-1": oFlag, "-2": oFlag, "-3": oFlag, "-4": oFlag, "-5": oFlag, "-6": oFlag, "-7": oFlag, "-8": oFlag, "-9": oFlag, // hidden obsolete -NUM = -f NUM
		},
		operands:    opFiles,
		maxOperands: 1,
	},
	"uptime": {
		style: styleGNU,
		opts: map[string]optKind{
			"-p": oFlag, "--pretty": oFlag,
			"-h": oFlag, "--help": oFlag,
			"-s": oFlag, "--since": oFlag,
			"-V": oFlag, "--version": oFlag,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"wc": {
		style: styleGNU,
		opts: map[string]optKind{
			"-c": oFlag, "--bytes": oFlag,
			"-m": oFlag, "--chars": oFlag,
			"-l": oFlag, "--lines": oFlag,
			"--files0-from": oRead, // indirect: reads the file names listed in F; the listed files are read but never appear on the command line (only counts are printed)
			"-L":            oFlag, "--max-line-length": oFlag,
			"-w": oFlag, "--words": oFlag,
			"--help":    oFlag,
			"--version": oFlag,
			"--debug":   oFlag, // hidden: accepted by getopt, not in --help
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"whereis": {
		// util-linux custom parser: -B/-M/-S lists end at -f; operands are names, not paths
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oFlag, // binaries only
			"-m": oFlag, // manuals only
			"-s": oFlag, // sources only
			"-u": oFlag, // unusual entries
			"-l": oFlag, // print lookup paths
			"-f": oFlag, // terminates a -B/-M/-S directory list
			"-B": oRead, // takes EVERY following word up to -f (or the next option) as a directory to search; only readdir
			"-M": oRead, // multi-word directory list (see -B)
			"-S": oRead, // multi-word directory list (see -B)
			"-h": oFlag, "--help": oFlag,
			"-V": oFlag, "--version": oFlag,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"which": {
		// debianutils /bin/sh script; operands are command names
		style: stylePOSIX,
		opts: map[string]optKind{
			"-a": oFlag, // all matches
			"-s": oFlag, // silent (debianutils 5.x)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"whoami": {
		style: styleGNU,
		opts: map[string]optKind{
			"--help":    oFlag,
			"--version": oFlag,
		},
		operands:    opFiles,
		maxOperands: -1,
	},
	"xxd": {
		// see NOTES.md: each word is one option named by its first letter; --x is -x; options stop at the first operand;
		// a second operand is the OUTPUT file (created/truncated, or patched with -r)
		style: styleXXD,
		opts: map[string]optKind{
			"-a": oFlag, "-autoskip": oFlag, // any word starting with -a
			"-b": oFlag, "-bits": oFlag, // any word starting with -b
			"-C": oFlag, "-capitalize": oFlag, // -C is a switch (the old table said value)
			"-c": oValue, "-cols": oValue, // -cN attached, or -c / -cols* takes the next word; -col 8 means cols=0 then "8" is the INFILE (verified)
			"-d": oFlag,
			"-E": oFlag,                        // EBCDIC
			"-e": oFlag,                        // little endian
			"-g": oValue, "-groupsize": oValue, // -gN attached or -g/-group* + next word
			"-h": oFlag, "-help": oFlag, // not really an option: unknown word, prints usage and exits 1
			"-i": oFlag, "-include": oFlag,
			"-l": oValue, "-len": oValue, // -lN attached or -l/-len* + next word
			"-n": oValue, "-name": oValue, // -nNAME attached or -n/-name* + next word (9.0.1378)
			"-o": oValue, "-offset": oValue, // -oN attached or -o/-offset* + next word
			"-p": oFlag, "-ps": oFlag, "-postscript": oFlag, "-plain": oFlag, // any word starting with -p: -ps is ONE switch, its s is not -s (verified)
			"-r": oFlag, "-revert": oFlag, // any word starting with -r; -rp is -r only (the p is ignored, verified)
			"-s": oValue, "-seek": oValue, "-skip": oValue, // -s[+][-]N attached or -s/-seek*/-skip* + next word
			"-u": oFlag, "-uppercase": oFlag,
			"-v": oFlag, "-version": oFlag, // prints the version and exits before opening files
			"--": oFlag, // end of options
		},
		operands:    opFiles,
		maxOperands: 1,
	},
}

// subcommands of git, go, docker, gh, npm, pip: key "git log", "go env", "docker ps", "npm ls", ...
// "git", "go", "docker" hold the global options that come before the subcommand.
var subSpecs = map[string]*progSpec{
	"docker": {
		// global options before the subcommand
		style: stylePOSIX,
		opts: map[string]optKind{
			"--config": oDeny,                                                   // another client config dir (credential helpers, contexts)
			"-c":       oDeny, "--context": oDeny, "-H": oDeny, "--host": oDeny, // another daemon; ssh:// hosts run ssh
			"--tls": oFlag, "--tlsverify": oFlag,
			"--tlscacert": oRead, "--tlscert": oRead, "--tlskey": oRead,
			"-D": oFlag, "--debug": oFlag,
			"-l": oValue, "--log-level": oValue,
			"-v": oFlag, "--version": oFlag,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"docker images": {
		style: styleGNU,
		opts: map[string]optKind{
			"-a": oFlag, "--all": oFlag, "--digests": oFlag, "--no-trunc": oFlag, "-q": oFlag, "--quiet": oFlag, "--tree": oFlag,
			"-f": oValue, "--filter": oValue, "--format": oValue, // Go template (docker funcs: json, join, split, lower, upper, title, pad, truncate; no exec)
		},
		operands:    opNone,
		maxOperands: 1,
	},
	"docker info": {
		style: styleGNU,
		opts: map[string]optKind{
			"-f": oValue, "--format": oValue, // Go template (docker funcs: json, join, split, lower, upper, title, pad, truncate; no exec)
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"docker inspect": {
		// prints Config.Env of containers (environment variables, often secrets): treat as credential exposure (docs; no
		// daemon here)
		style: styleGNU,
		opts: map[string]optKind{
			"-s": oFlag, "--size": oFlag,
			"--type": oValue,
			"-f":     oValue, "--format": oValue, // Go template (docker funcs: json, join, split, lower, upper, title, pad, truncate; no exec)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"docker logs": {
		style: styleGNU,
		opts: map[string]optKind{
			"--details": oFlag, "-t": oFlag, "--timestamps": oFlag,
			"-f": oFlag, "--follow": oFlag, // never terminates
			"--since": oValue, "--until": oValue, "-n": oValue, "--tail": oValue,
		},
		operands:    opNone,
		maxOperands: 1,
	},
	"docker ps": {
		style: styleGNU,
		opts: map[string]optKind{
			"-a": oFlag, "--all": oFlag, "-l": oFlag, "--latest": oFlag, "--no-trunc": oFlag, "-q": oFlag, "--quiet": oFlag, "-s": oFlag, "--size": oFlag,
			"-f": oValue, "--filter": oValue, "--format": oValue, "-n": oValue, "--last": oValue, // Go template (docker funcs: json, join, split, lower, upper, title, pad, truncate; no exec)
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"docker version": {
		style: styleGNU,
		opts: map[string]optKind{
			"-f": oValue, "--format": oValue, // Go template (docker funcs: json, join, split, lower, upper, title, pad, truncate; no exec)
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"gh auth status": {
		style: styleGNU,
		opts: map[string]optKind{
			"-h": oValue, "--hostname": oValue,
			"-t": oDeny, "--show-token": oDeny, // prints the auth token (the old table read -t as a value option and allowed it)
			"--help": oFlag,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"gh issue list": {
		style: styleGNU,
		opts: map[string]optKind{
			"--app": oValue, "-a": oValue, "--assignee": oValue, "-A": oValue, "--author": oValue, "-l": oValue, "--label": oValue, "-L": oValue, "--limit": oValue, "--mention": oValue, "-m": oValue, "--milestone": oValue, "-S": oValue, "--search": oValue, "-s": oValue, "--state": oValue,
			"-q": oValue, "--jq": oValue, // gojq expression (unverified: may read env via $ENV/env)
			"--json": oValue,                       // fields
			"-t":     oValue, "--template": oValue, // Go template
			"-w": oDeny, "--web": oDeny, // opens a browser
			"-R": oValue, "--repo": oValue, // [HOST/]OWNER/REPO
			"--help": oFlag,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"gh issue view": {
		style: styleGNU,
		opts: map[string]optKind{
			"-c": oFlag, "--comments": oFlag,
			"-q": oValue, "--jq": oValue, // gojq expression (unverified: may read env via $ENV/env)
			"--json": oValue,                       // fields
			"-t":     oValue, "--template": oValue, // Go template
			"-w": oDeny, "--web": oDeny, // opens a browser
			"-R": oValue, "--repo": oValue, // [HOST/]OWNER/REPO
			"--help": oFlag,
		},
		operands:    opNone,
		maxOperands: 1,
	},
	"gh pr checks": {
		style: styleGNU,
		opts: map[string]optKind{
			"-i": oValue, "--interval": oValue, // seconds
			"--required": oFlag,
			"--watch":    oFlag,                 // loops until checks finish
			"-w":         oDeny, "--web": oDeny, // opens a browser
			"-R": oValue, "--repo": oValue, // [HOST/]OWNER/REPO
			"--help": oFlag,
		},
		operands:    opNone,
		maxOperands: 1,
	},
	"gh pr diff": {
		style: styleGNU,
		opts: map[string]optKind{
			"--color":     oValue,
			"--name-only": oFlag, "--patch": oFlag,
			"-w": oDeny, "--web": oDeny, // opens a browser
			"-R": oValue, "--repo": oValue, // [HOST/]OWNER/REPO
			"--help": oFlag,
		},
		operands:    opNone,
		maxOperands: 1,
	},
	"gh pr list": {
		style: styleGNU,
		opts: map[string]optKind{
			"--app": oValue, "-a": oValue, "--assignee": oValue, "-A": oValue, "--author": oValue, "-B": oValue, "--base": oValue, "-H": oValue, "--head": oValue, "-l": oValue, "--label": oValue, "-L": oValue, "--limit": oValue, "-S": oValue, "--search": oValue, "-s": oValue, "--state": oValue,
			"-d": oFlag, "--draft": oFlag,
			"-q": oValue, "--jq": oValue, // gojq expression (unverified: may read env via $ENV/env)
			"--json": oValue,                       // fields
			"-t":     oValue, "--template": oValue, // Go template
			"-w": oDeny, "--web": oDeny, // opens a browser
			"-R": oValue, "--repo": oValue, // [HOST/]OWNER/REPO
			"--help": oFlag,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"gh pr status": {
		style: styleGNU,
		opts: map[string]optKind{
			"-c": oFlag, "--conflict-status": oFlag,
			"-q": oValue, "--jq": oValue, // gojq expression (unverified: may read env via $ENV/env)
			"--json": oValue,                       // fields
			"-t":     oValue, "--template": oValue, // Go template
			"-R": oValue, "--repo": oValue, // [HOST/]OWNER/REPO
			"--help": oFlag,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"gh pr view": {
		style: styleGNU,
		opts: map[string]optKind{
			"-c": oFlag, "--comments": oFlag,
			"-q": oValue, "--jq": oValue, // gojq expression (unverified: may read env via $ENV/env)
			"--json": oValue,                       // fields
			"-t":     oValue, "--template": oValue, // Go template
			"-w": oDeny, "--web": oDeny, // opens a browser
			"-R": oValue, "--repo": oValue, // [HOST/]OWNER/REPO
			"--help": oFlag,
		},
		operands:    opNone,
		maxOperands: 1,
	},
	"gh repo view": {
		style: styleGNU,
		opts: map[string]optKind{
			"-b": oValue, "--branch": oValue,
			"-q": oValue, "--jq": oValue, // gojq expression (unverified: may read env via $ENV/env)
			"--json": oValue,                       // fields
			"-t":     oValue, "--template": oValue, // Go template
			"-w": oDeny, "--web": oDeny, // opens a browser
			"--help": oFlag,
		},
		operands:    opNone,
		maxOperands: 1,
	},
	"gh status": {
		style: styleGNU,
		opts: map[string]optKind{
			"-e": oValue, "--exclude": oValue, "-o": oValue, "--org": oValue,
			"--help": oFlag,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"git": {
		// global options stop at the subcommand; git handle_options has no abbreviations
		style: stylePOSIX,
		opts: map[string]optKind{
			"-C":           oRead,                       // run as if started in PATH: must stay inside the working directory
			"-c":           oDeny,                       // sets any configuration (core.fsmonitor, core.pager, diff.external ...)
			"--config-env": oDeny,                       // sets configuration from an environment variable (verified: --config-env=core.fsmonitor=VAR ran it)
			"--exec-path":  oDeny,                       // with a value: runs git-* helpers from PATH; without: prints the path
			"--git-dir":    oDeny, "--work-tree": oDeny, // another repository/work tree (its config runs code)
			"--namespace": oDeny, "--super-prefix": oDeny,
			"--bare": oDeny,
			"-p":     oDeny, "--paginate": oDeny, // forces the pager (runs core.pager/$PAGER when stdout is a tty)
			"-P": oFlag, "--no-pager": oFlag,
			"--no-replace-objects": oFlag, "--literal-pathspecs": oFlag, "--glob-pathspecs": oFlag, "--noglob-pathspecs": oFlag, "--icase-pathspecs": oFlag, "--no-optional-locks": oFlag, // --no-optional-locks stops the index write and post-index-change hook of status/diff (verified)
			"--html-path": oFlag, "--man-path": oFlag, "--info-path": oFlag, // print a path and exit
			"-v": oFlag, "--version": oFlag, // git -v prints the version like --version (2.39, verified)
			"-h": oDeny, "--help": oDeny, // runs man/man.<viewer>.cmd/a browser (repo config can name the command, verified)
			"--list-cmds": oValue,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git annotate": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                           // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                           // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                           // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                           // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                           // runs gpg.program (verified)
			"--contents":       oRead, "--ignore-revs-file": oRead, "-S": oRead, // blame: reads FILE
			"--no-ext-diff": oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git blame": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                           // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                           // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                           // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                           // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                           // runs gpg.program (verified)
			"--contents":       oRead, "--ignore-revs-file": oRead, "-S": oRead, // blame: reads FILE
			"--no-ext-diff": oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git branch": {
		// with operands and without -l/--list it creates a branch
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                                                                                                                                                                                                                                                                                                     // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                                                                                                                                                                                                                                                                                                     // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                                                                                                                                                                                                                                                                                                     // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                                                                                                                                                                                                                                                                                                     // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                                                                                                                                                                                                                                                                                                     // runs gpg.program (verified)
			"-d":               oDeny, "-D": oDeny, "--delete": oDeny, "-m": oDeny, "-M": oDeny, "--move": oDeny, "-c": oDeny, "-C": oDeny, "--copy": oDeny, "-f": oDeny, "--force": oDeny, "-u": oDeny, "--set-upstream-to": oDeny, "--unset-upstream": oDeny, "--track": oDeny, "--no-track": oDeny, "--create-reflog": oDeny, "--edit-description": oDeny, "-t": oDeny, // writes refs/config or opens an editor
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git cat-file": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                   // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                   // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                   // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                   // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                   // runs gpg.program (verified)
			"--filters":        oDeny,                                                   // runs filter.<driver>.smudge/process (verified)
			"--batch":          oFlag, "--batch-check": oFlag, "--batch-command": oFlag, // reads object names from stdin
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git check-attr": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git check-ignore": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git cherry": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git config": {
		// read-only only with --get/--get-all/--get-regexp/--get-urlmatch/--list/-l (or the get/list subcommands of
		// 2.46+)
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,              // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,              // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,              // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,              // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,              // runs gpg.program (verified)
			"--edit":           oDeny, "-e": oDeny, // opens an editor
			"--add": oDeny, "--replace-all": oDeny, "--unset": oDeny, "--unset-all": oDeny, "--rename-section": oDeny, "--remove-section": oDeny, // writes configuration
			"-f": oRead, "--file": oRead, "--blob": oRead, // reads a config file/blob (prints it with --list)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git count-objects": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git describe": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git diff": {
		// runs diff.external and diff.<driver>.command unless --no-ext-diff, textconv unless --no-textconv, filter clean
		// always, fsmonitor, post-index-change hook (verified)
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                       // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                       // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                       // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                       // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                       // runs gpg.program (verified)
			"--no-ext-diff":    oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "-S": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git diff-files": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                       // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                       // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                       // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                       // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                       // runs gpg.program (verified)
			"--no-ext-diff":    oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "-S": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git diff-index": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                       // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                       // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                       // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                       // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                       // runs gpg.program (verified)
			"--no-ext-diff":    oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "-S": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git diff-tree": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                       // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                       // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                       // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                       // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                       // runs gpg.program (verified)
			"--no-ext-diff":    oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "-S": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git for-each-ref": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git grep": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                 // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                 // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                 // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                 // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                 // runs gpg.program (verified)
			"-O":               oDeny, "--open-files-in-pager": oDeny, // runs a pager/editor on the matching files (verified --open-files-in-p=true ran)
			"--no-index": oDeny, "--untracked": oDeny, // --no-index searches outside the repository (reads any path)
			"-f": oRead, // patterns read from FILE
			"-e": oValue,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git log": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                       // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                       // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                       // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                       // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                       // runs gpg.program (verified)
			"--no-ext-diff":    oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "-S": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git ls-files": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git ls-tree": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git merge-base": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git name-rev": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git reflog": {
		// read-only: show (default); expire and delete write
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                       // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                       // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                       // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                       // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                       // runs gpg.program (verified)
			"--no-ext-diff":    oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "-S": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git remote": {
		// read-only: no args, -v, get-url, show -n (show without -n contacts the network)
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git rev-list": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                       // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                       // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                       // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                       // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                       // runs gpg.program (verified)
			"--no-ext-diff":    oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "-S": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git rev-parse": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git shortlog": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                       // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                       // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                       // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                       // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                       // runs gpg.program (verified)
			"--no-ext-diff":    oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "-S": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git show": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                       // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                       // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                       // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                       // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                       // runs gpg.program (verified)
			"--no-ext-diff":    oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "-S": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git show-branch": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git show-ref": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git stash list": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                       // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                       // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                       // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                       // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                       // runs gpg.program (verified)
			"--no-ext-diff":    oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "-S": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git stash show": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                       // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                       // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                       // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                       // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                       // runs gpg.program (verified)
			"--no-ext-diff":    oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "-S": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git status": {
		// runs core.fsmonitor, filter.<driver>.clean and (when it refreshes the index) the post-index-change hook (all
		// verified); use --no-optional-locks and -c core.fsmonitor=false
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
			"--porcelain":      oFlag, "-s": oFlag, "--short": oFlag, "-b": oFlag, "--branch": oFlag, "--long": oFlag, "-v": oFlag, "--verbose": oFlag, "-z": oFlag, "--ignored": oFlag, "--no-renames": oFlag, "--ahead-behind": oFlag, "--no-ahead-behind": oFlag, "--show-stash": oFlag,
			"-u": oOptValue, "--untracked-files": oOptValue, "--ignore-submodules": oOptValue, "--column": oOptValue, "--find-renames": oOptValue,
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git tag": {
		// with operands and without -l/--list it creates a tag
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                                                                                                                                                                                                                                              // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                                                                                                                                                                                                                                              // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                                                                                                                                                                                                                                              // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                                                                                                                                                                                                                                              // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                                                                                                                                                                                                                                              // runs gpg.program (verified)
			"-a":               oDeny, "--annotate": oDeny, "-s": oDeny, "--sign": oDeny, "-u": oDeny, "--local-user": oDeny, "-m": oDeny, "--message": oDeny, "-F": oDeny, "--file": oDeny, "-d": oDeny, "--delete": oDeny, "-f": oDeny, "--force": oDeny, "-e": oDeny, "--edit": oDeny, "--create-reflog": oDeny, // creates/deletes tags or opens an editor
			"-v": oDeny, "--verify": oDeny, // runs gpg.program
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git version": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git whatchanged": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny,                                                       // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny,                                                       // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny,                                                       // runs diff.<driver>.textconv (verified)
			"--help":           oDeny,                                                       // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny,                                                       // runs gpg.program (verified)
			"--no-ext-diff":    oFlag, "--no-textconv": oFlag, "--no-show-signature": oFlag, // neutralisers
			"--format": oOptValue, "--pretty": oOptValue, // =value only; refuse a value containing %G with optional -, + or space between (%G?, %+G?, "% GK" ran gpg, verified) or naming a pretty.<alias>
			"--oneline": oFlag, "--stat": oFlag, "--shortstat": oFlag, "--numstat": oFlag, "--name-only": oFlag, "--name-status": oFlag, "--graph": oFlag, "--decorate": oFlag, "--all": oFlag, "--reverse": oFlag, "--follow": oFlag, "--first-parent": oFlag, "--merges": oFlag, "--no-merges": oFlag, "--abbrev-commit": oFlag, "--no-abbrev-commit": oFlag, "--patch": oFlag, "-p": oFlag, "-u": oFlag, "--no-patch": oFlag, "-s": oFlag, "--raw": oFlag, "--summary": oFlag, "--cc": oFlag, "-m": oFlag, "--date-order": oFlag, "--topo-order": oFlag, "--full-history": oFlag, "--simplify-merges": oFlag, "--left-right": oFlag, "--cherry-pick": oFlag, "--boundary": oFlag, "--walk-reflogs": oFlag, "-g": oFlag, "--use-mailmap": oFlag, "--no-color": oFlag, "--word-diff": oFlag, "--color-words": oFlag, "--ignore-all-space": oFlag, "-w": oFlag, "--full-diff": oFlag, "--dirstat": oFlag, "--no-renames": oFlag, "-M": oFlag, "-C": oFlag, "--find-renames": oFlag, "--find-copies": oFlag, "-z": oFlag, "--relative": oFlag, "--exit-code": oFlag, "--quiet": oFlag, "--check": oFlag, // read-only display options
			"-n": oValue, "--max-count": oValue, "--skip": oValue, "--since": oValue, "--after": oValue, "--until": oValue, "--before": oValue, "--author": oValue, "--committer": oValue, "--grep": oValue, "--date": oValue, "--abbrev": oValue, "--color": oValue, "--diff-filter": oValue, "-U": oValue, "--unified": oValue, "-G": oValue, "-S": oValue, "--stat-width": oValue, "-L": oValue, "--encoding": oValue, "--decorate-refs": oValue, "--decorate-refs-exclude": oValue, "--branches": oValue, "--tags": oValue, "--remotes": oValue, "--glob": oValue, "--exclude": oValue,
			"-O":         oRead, // diff orderfile read (in git grep, -O is --open-files-in-pager: deny there)
			"--no-index": oDeny, // diff: compares arbitrary paths outside the repository
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"git worktree list": {
		style: styleGNU,
		opts: map[string]optKind{
			"--output":         oDeny, // writes FILE (verified git log --output FILE / git diff --output=FILE)
			"--ext-diff":       oDeny, // runs diff.external / diff.<driver>.command (verified)
			"--textconv":       oDeny, // runs diff.<driver>.textconv (verified)
			"--help":           oDeny, // runs man.<viewer>.cmd / help.browser from config (verified)
			"--show-signature": oDeny, // runs gpg.program (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"go": {
		// go -C dir subcommand is refused
		style: styleGo,
		opts: map[string]optKind{
			"-C": oDeny, // go -C DIR (global, before the subcommand)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"go env": {
		// Go flag package: -x and --x are the same, -x=BOOL, options stop at the first operand (go env GOFLAGS -w ... is
		// an error)
		style: styleGo,
		opts: map[string]optKind{
			"-json":    oFlag,
			"-changed": oFlag,
			"-w":       oDeny, // writes the go env file; also --w, -w=true, -w=1, -w=t, --w=true (verified)
			"-u":       oDeny, // unsets in the go env file; also --u (verified)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"go version": {
		// operands are binaries or directories walked recursively; with GOTOOLCHAIN=auto a go.mod/go.work toolchain line
		// makes even "go version" download and run another toolchain (verified)
		style: styleGo,
		opts: map[string]optKind{
			"-m":    oFlag, // module info
			"-v":    oFlag, // reports unrecognized files
			"-json": oFlag, // requires -m
		},
		operands:    opFiles,
		maxOperands: -1,
		recursive:   []string{"*"},
	},
	"npm list": {
		// alias of npm ls
		style: styleGNU,
		opts: map[string]optKind{
			"-a": oFlag, "--all": oFlag, "--json": oFlag, "-l": oFlag, "--long": oFlag, "-p": oFlag, "--parseable": oFlag, "-g": oFlag, "--global": oFlag, "--link": oFlag, "--package-lock-only": oFlag, "--unicode": oFlag, "--no-unicode": oFlag, "--workspaces": oFlag, "-ws": oFlag, "--include-workspace-root": oFlag, "--install-links": oFlag,
			"--depth": oValue, "--omit": oValue, "--include": oValue, "-w": oValue, "--workspace": oValue,
			"--logs-dir": oDeny,                                                                                                                                   // writes the debug log into DIR (verified, also abbreviated --logs-d=DIR)
			"--cache":    oDeny, "--userconfig": oDeny, "--globalconfig": oDeny, "--prefix": oDeny, "--registry": oDeny, "--loglevel": oDeny, "--logs-max": oDeny, // any npm config key is accepted as --key[=v]; refuse all but the listed ones
			"--help": oFlag, // prints usage (npm help ls opens man/browser: refuse npm help)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"npm ls": {
		// nopt: --key=value, --key value, --no-key, abbreviations (verified); operands are package specs; writes
		// ~/.npm/_logs/*.log and may contact the registry (update notifier) unless npm_config_logs_max=0
		// npm_config_update_notifier=false (verified)
		style: styleGNU,
		opts: map[string]optKind{
			"-a": oFlag, "--all": oFlag, "--json": oFlag, "-l": oFlag, "--long": oFlag, "-p": oFlag, "--parseable": oFlag, "-g": oFlag, "--global": oFlag, "--link": oFlag, "--package-lock-only": oFlag, "--unicode": oFlag, "--no-unicode": oFlag, "--workspaces": oFlag, "-ws": oFlag, "--include-workspace-root": oFlag, "--install-links": oFlag,
			"--depth": oValue, "--omit": oValue, "--include": oValue, "-w": oValue, "--workspace": oValue,
			"--logs-dir": oDeny,                                                                                                                                   // writes the debug log into DIR (verified, also abbreviated --logs-d=DIR)
			"--cache":    oDeny, "--userconfig": oDeny, "--globalconfig": oDeny, "--prefix": oDeny, "--registry": oDeny, "--loglevel": oDeny, "--logs-max": oDeny, // any npm config key is accepted as --key[=v]; refuse all but the listed ones
			"--help": oFlag, // prints usage (npm help ls opens man/browser: refuse npm help)
		},
		operands:    opNone,
		maxOperands: -1,
	},
	"pip freeze": {
		// optparse: unique prefixes of long options are accepted (--outd = --outdated, --pyth = --python, verified);
		// config files (PIP_CONFIG_FILE, ~/.config/pip/pip.conf, sys.prefix/pip.conf of a venv) and PIP_* env can set
		// log=FILE (verified)
		style: styleGNU,
		opts: map[string]optKind{
			"--log": oDeny, "--log-file": oDeny, "--local-log": oDeny, // --log FILE appends a verbose log to FILE (verified; --log-file/--local-log are hidden aliases)
			"--python":   oDeny, // runs pip under another interpreter; only valid before the subcommand (pip --python X list), refuse anywhere
			"--isolated": oFlag, "-q": oFlag, "--quiet": oFlag, "-v": oFlag, "--verbose": oFlag, "--no-input": oFlag, "--no-color": oFlag, "--disable-pip-version-check": oFlag, "--require-virtualenv": oFlag, "--no-cache-dir": oFlag, "-h": oFlag, "--help": oFlag, "-V": oFlag, "--version": oFlag, "--debug": oFlag, "--no-python-version-warning": oFlag,
			"--proxy": oDeny, "--retries": oDeny, "--timeout": oDeny, "--exists-action": oDeny, "--trusted-host": oDeny, "--cert": oDeny, "--client-cert": oDeny, "--cache-dir": oDeny, "--use-feature": oDeny, "--use-deprecated": oDeny, "--keyring-provider": oDeny, "--root-user-action": oDeny, // network/cache/TLS settings: refuse
			"-r": oRead, "--requirement": oRead, // requirements file read
			"-l": oFlag, "--local": oFlag, "--user": oFlag, "--all": oFlag, "--exclude-editable": oFlag,
			"--path":    oRead,
			"--exclude": oValue,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"pip list": {
		// optparse: unique prefixes of long options are accepted (--outd = --outdated, --pyth = --python, verified);
		// config files (PIP_CONFIG_FILE, ~/.config/pip/pip.conf, sys.prefix/pip.conf of a venv) and PIP_* env can set
		// log=FILE (verified)
		style: styleGNU,
		opts: map[string]optKind{
			"--log": oDeny, "--log-file": oDeny, "--local-log": oDeny, // --log FILE appends a verbose log to FILE (verified; --log-file/--local-log are hidden aliases)
			"--python":   oDeny, // runs pip under another interpreter; only valid before the subcommand (pip --python X list), refuse anywhere
			"--isolated": oFlag, "-q": oFlag, "--quiet": oFlag, "-v": oFlag, "--verbose": oFlag, "--no-input": oFlag, "--no-color": oFlag, "--disable-pip-version-check": oFlag, "--require-virtualenv": oFlag, "--no-cache-dir": oFlag, "-h": oFlag, "--help": oFlag, "-V": oFlag, "--version": oFlag, "--debug": oFlag, "--no-python-version-warning": oFlag,
			"--proxy": oDeny, "--retries": oDeny, "--timeout": oDeny, "--exists-action": oDeny, "--trusted-host": oDeny, "--cert": oDeny, "--client-cert": oDeny, "--cache-dir": oDeny, "--use-feature": oDeny, "--use-deprecated": oDeny, "--keyring-provider": oDeny, "--root-user-action": oDeny, // network/cache/TLS settings: refuse
			"-o": oDeny, "--outdated": oDeny, "-u": oDeny, "--uptodate": oDeny, // queries the package index (network)
			"-i": oDeny, "--index-url": oDeny, "--extra-index-url": oDeny, "--no-index": oDeny, "-f": oDeny, "--find-links": oDeny, "--pre": oDeny, // index options (network)
			"-e": oFlag, "--editable": oFlag, "-l": oFlag, "--local": oFlag, "--user": oFlag, "--not-required": oFlag, "--exclude-editable": oFlag, "--include-editable": oFlag,
			"--path":   oRead, // site directory read
			"--format": oValue, "--exclude": oValue,
		},
		operands:    opNone,
		maxOperands: 0,
	},
	"pip show": {
		// operands are package names; optparse: unique prefixes of long options are accepted (--outd = --outdated,
		// --pyth = --python, verified); config files (PIP_CONFIG_FILE, ~/.config/pip/pip.conf, sys.prefix/pip.conf of a
		// venv) and PIP_* env can set log=FILE (verified)
		style: styleGNU,
		opts: map[string]optKind{
			"--log": oDeny, "--log-file": oDeny, "--local-log": oDeny, // --log FILE appends a verbose log to FILE (verified; --log-file/--local-log are hidden aliases)
			"--python":   oDeny, // runs pip under another interpreter; only valid before the subcommand (pip --python X list), refuse anywhere
			"--isolated": oFlag, "-q": oFlag, "--quiet": oFlag, "-v": oFlag, "--verbose": oFlag, "--no-input": oFlag, "--no-color": oFlag, "--disable-pip-version-check": oFlag, "--require-virtualenv": oFlag, "--no-cache-dir": oFlag, "-h": oFlag, "--help": oFlag, "-V": oFlag, "--version": oFlag, "--debug": oFlag, "--no-python-version-warning": oFlag,
			"--proxy": oDeny, "--retries": oDeny, "--timeout": oDeny, "--exists-action": oDeny, "--trusted-host": oDeny, "--cert": oDeny, "--client-cert": oDeny, "--cache-dir": oDeny, "--use-feature": oDeny, "--use-deprecated": oDeny, "--keyring-provider": oDeny, "--root-user-action": oDeny, // network/cache/TLS settings: refuse
			"-f": oFlag, "--files": oFlag,
		},
		operands:    opNone,
		maxOperands: -1,
	},
}
