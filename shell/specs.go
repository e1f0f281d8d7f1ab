package shell

// PROVISIONAL: replaced by the audited table.

func flags(kind optKind, names ...string) map[string]optKind {
	m := map[string]optKind{}
	for _, n := range names {
		m[n] = kind
	}
	return m
}

func merged(ms ...map[string]optKind) map[string]optKind {
	out := map[string]optKind{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

var progSpecs = map[string]*progSpec{
	"cat":  {opts: flags(oFlag, "-A", "-b", "-e", "-E", "-n", "-s", "-t", "-T", "-u", "-v", "--show-all", "--number-nonblank", "--show-ends", "--number", "--squeeze-blank", "--show-tabs", "--show-nonprinting", "--help", "--version"), maxOperands: -1},
	"head": {opts: merged(flags(oFlag, "-q", "-v", "-z", "--quiet", "--silent", "--verbose", "--zero-terminated", "--help", "--version"), flags(oValue, "-c", "-n", "--bytes", "--lines")), maxOperands: -1, numOpt: true},
	"tail": {opts: merged(flags(oFlag, "-f", "-F", "-q", "-v", "-z", "--retry", "--quiet", "--silent", "--verbose", "--zero-terminated", "--help", "--version"), flags(oValue, "-c", "-n", "-s", "--bytes", "--lines", "--max-unchanged-stats", "--pid", "--sleep-interval"), flags(oOptValue, "--follow")), maxOperands: -1, numOpt: true},
	"wc":   {opts: merged(flags(oFlag, "-c", "-m", "-l", "-L", "-w", "--bytes", "--chars", "--lines", "--max-line-length", "--words", "--help", "--version"), flags(oValue, "--total"), flags(oDeny, "--files0-from")), maxOperands: -1},
	"ls": {opts: merged(flags(oFlag, "-a", "-A", "-b", "-B", "-c", "-C", "-d", "-D", "-f", "-F", "-g", "-G", "-h", "-H", "-i", "-k", "-l", "-L", "-m", "-n", "-N", "-o", "-p", "-q", "-Q", "-r", "-R", "-s", "-S", "-t", "-u", "-U", "-v", "-x", "-X", "-Z", "-1",
		"--all", "--almost-all", "--author", "--escape", "--directory", "--dired", "--classify", "--file-type", "--full-time", "--no-group", "--human-readable", "--si", "--dereference-command-line", "--dereference-command-line-symlink-to-dir", "--inode", "--kibibytes", "--dereference", "--numeric-uid-gid", "--literal", "--indicator-style", "--hide-control-chars", "--show-control-chars", "--quote-name", "--reverse", "--recursive", "--size", "--context", "--help", "--version", "--group-directories-first", "--zero"),
		flags(oValue, "-I", "-T", "-w", "--block-size", "--format", "--hide", "--ignore", "--quoting-style", "--sort", "--tabsize", "--time", "--time-style", "--width"),
		flags(oOptValue, "--color", "--hyperlink", "--indicator-style")), maxOperands: -1, defaultDot: true, namesOnly: true, recursive: []string{"-R", "--recursive"}, hidden: []string{"*"}},
	"grep": {opts: merged(flags(oFlag, "-E", "-F", "-G", "-P", "-i", "-y", "-v", "-w", "-x", "-c", "-L", "-l", "-o", "-q", "-s", "-b", "-H", "-h", "-n", "-T", "-Z", "-z", "-a", "-I", "-r", "-R", "-U",
		"--extended-regexp", "--fixed-strings", "--basic-regexp", "--perl-regexp", "--ignore-case", "--no-ignore-case", "--invert-match", "--word-regexp", "--line-regexp", "--count", "--files-without-match", "--files-with-matches", "--only-matching", "--quiet", "--silent", "--no-messages", "--byte-offset", "--with-filename", "--no-filename", "--line-number", "--initial-tab", "--null", "--null-data", "--text", "--recursive", "--dereference-recursive", "--binary", "--line-buffered", "--help", "--version"),
		flags(oValue, "-e", "-m", "-A", "-B", "-C", "-d", "-D", "--regexp", "--max-count", "--label", "--after-context", "--before-context", "--context", "--binary-files", "--devices", "--directories", "--exclude", "--exclude-dir", "--include", "--group-separator"),
		flags(oRead, "-f", "--file", "--exclude-from"), flags(oOptValue, "--color", "--colour"), flags(oFlag, "--no-group-separator")),
		operands: opPatternThenFiles, patternOpts: []string{"-e", "-f", "--regexp", "--file"}, maxOperands: -1,
		recursive: []string{"-r", "-R", "--recursive", "--dereference-recursive"}, hidden: []string{"*"}, follow: []string{"-R", "--dereference-recursive"}, dotIfRecursive: true},
	"rg": {opts: merged(flags(oFlag, "-i", "-s", "-S", "-v", "-w", "-x", "-F", "-n", "-N", "-c", "-l", "-o", "-H", "-I", "-u", "-L", "-U", "-.", "-0", "-a", "-q", "-j", "--files", "--hidden", "--no-ignore", "--follow", "--json", "--count", "--files-with-matches", "--files-without-match", "--ignore-case", "--smart-case", "--case-sensitive", "--fixed-strings", "--line-number", "--no-line-number", "--multiline", "--heading", "--no-heading", "--vimgrep", "--trim", "--text", "--help", "--version", "--word-regexp", "--line-regexp", "--invert-match", "--only-matching", "--with-filename", "--no-filename", "--null", "--sort-files", "--stats", "--type-list", "--no-messages", "--quiet", "--pcre2", "--no-ignore-vcs", "--multiline-dotall", "--no-config"),
		flags(oValue, "-e", "-g", "-t", "-T", "-A", "-B", "-C", "-m", "-d", "-M", "-r", "--regexp", "--glob", "--iglob", "--type", "--type-not", "--after-context", "--before-context", "--context", "--max-count", "--max-depth", "--max-columns", "--replace", "--sort", "--sortr", "--type-add", "--color", "--colors", "--threads", "--max-filesize", "--encoding", "--engine", "--path-separator"),
		flags(oRead, "-f", "--file", "--ignore-file"), flags(oDeny, "-z", "--search-zip", "--pre", "--pre-glob", "--hostname-bin")),
		operands: opPatternThenFiles, patternOpts: []string{"-e", "-f", "--regexp", "--file"}, maxOperands: -1, recursive: []string{"*"}, hidden: []string{"--hidden", "-.", "-u"}, follow: []string{"-L", "--follow"}, defaultDot: true},
	"sort": {opts: merged(flags(oFlag, "-b", "-d", "-f", "-g", "-i", "-M", "-h", "-n", "-R", "-r", "-V", "-c", "-C", "-m", "-s", "-u", "-z", "--ignore-leading-blanks", "--dictionary-order", "--ignore-case", "--general-numeric-sort", "--ignore-nonprinting", "--month-sort", "--human-numeric-sort", "--numeric-sort", "--random-sort", "--reverse", "--version-sort", "--merge", "--stable", "--unique", "--zero-terminated", "--debug", "--help", "--version"),
		flags(oValue, "-k", "-t", "-S", "--key", "--field-separator", "--buffer-size", "--parallel", "--sort"), flags(oOptValue, "--check"), flags(oRead, "--random-source"), flags(oDeny, "-o", "--output", "-T", "--temporary-directory", "--compress-program", "--files0-from")), maxOperands: -1},
	"uniq":   {opts: merged(flags(oFlag, "-c", "-d", "-D", "-i", "-u", "-z", "--count", "--repeated", "--ignore-case", "--unique", "--zero-terminated", "--help", "--version"), flags(oValue, "-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"), flags(oOptValue, "--all-repeated", "--group")), maxOperands: 1},
	"base64": {opts: merged(flags(oFlag, "-d", "-i", "--decode", "--ignore-garbage", "--help", "--version"), flags(oValue, "-w", "--wrap")), maxOperands: 1},
	"xxd":    {style: styleXXD, opts: merged(flags(oFlag, "-a", "-autoskip", "-b", "-bits", "-C", "-capitalize", "-e", "-E", "-EBCDIC", "-h", "-help", "-i", "-include", "-p", "-ps", "-postscript", "-plain", "-u", "-uppercase", "-v", "-version", "-d", "-r", "-revert"), flags(oValue, "-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset", "-s", "-seek", "-n", "-name", "-R")), maxOperands: 1},
	"tree":   {style: styleTree, opts: merged(flags(oFlag, "-a", "-d", "-l", "-f", "-x", "-q", "-N", "-Q", "-p", "-u", "-g", "-s", "-h", "-D", "-F", "-v", "-t", "-c", "-U", "-r", "-C", "-n", "-A", "-S", "-i", "--noreport", "--inodes", "--device", "--dirsfirst", "--filesfirst", "--du", "--si", "--prune", "--matchdirs", "--ignore-case", "--gitignore", "--help", "--version", "--fflinks"), flags(oValue, "-L", "-P", "-I", "-T", "--filelimit", "--charset", "--timefmt", "--sort"), flags(oDeny, "-o", "-R", "-H", "-X", "-J", "--fromfile")), maxOperands: -1, defaultDot: true, namesOnly: true, recursive: []string{"*"}, hidden: []string{"-a"}, follow: []string{"-l"}},
	"date":   {opts: merged(flags(oFlag, "-u", "-R", "--utc", "--universal", "--rfc-email", "--debug", "--help", "--version"), flags(oValue, "-d", "--date", "--rfc-3339", "--resolution"), flags(oOptValue, "-I", "--iso-8601"), flags(oRead, "-f", "--file", "-r", "--reference"), flags(oDeny, "-s", "--set")), operands: opNone, maxOperands: -1},
	"jq":     {opts: merged(flags(oFlag, "-n", "-r", "-j", "-a", "-c", "-C", "-M", "-S", "-s", "-e", "-R", "--null-input", "--raw-input", "--slurp", "--compact-output", "--raw-output", "--join-output", "--ascii-output", "--sort-keys", "--color-output", "--monochrome-output", "--tab", "--exit-status", "--seq", "--stream", "--stream-errors", "--help", "--version", "--raw-output0"), flags(oValue, "--indent", "--arg", "--argjson", "-L"), flags(oValue2, "--arg", "--argjson"), flags(oRead2, "--rawfile", "--slurpfile"), flags(oRead, "-f", "--from-file")), operands: opPatternThenFiles, patternOpts: []string{"-f", "--from-file"}, maxOperands: -1},
	"ps":     {opts: flags(oFlag, "-A", "-e", "-f", "-F", "-l", "-j", "-a", "-x", "-u", "aux", "-ef", "--help"), operands: opNone, maxOperands: -1},
	"file":   {opts: merged(flags(oFlag, "-b", "-i", "-L", "-h", "-z", "-Z", "-k", "-N", "-n", "-r", "-s", "-E", "--brief", "--mime", "--mime-type", "--mime-encoding", "--dereference", "--no-dereference", "--help", "--version", "--keep-going", "--raw", "--special-files", "--uncompress", "--uncompress-noreport"), flags(oValue, "-e", "-F", "-P", "--exclude", "--separator", "--parameter"), flags(oRead, "-m", "-f", "--magic-file", "--files-from"), flags(oDeny, "-C", "--compile")), maxOperands: -1},
	"stat":   {opts: merged(flags(oFlag, "-L", "-f", "-t", "--dereference", "--file-system", "--terse", "--help", "--version"), flags(oValue, "-c", "--format", "--printf", "--cached")), maxOperands: -1, namesOnly: true},
	"du":     {opts: merged(flags(oFlag, "-0", "-a", "-b", "-c", "-D", "-H", "-h", "-k", "-L", "-l", "-m", "-P", "-S", "-s", "-x", "--all", "--apparent-size", "--bytes", "--total", "--human-readable", "--si", "--summarize", "--help", "--version", "--null", "--count-links", "--dereference", "--no-dereference", "--separate-dirs", "--one-file-system", "--inodes", "--dereference-args"), flags(oValue, "-B", "-d", "-t", "--block-size", "--max-depth", "--threshold", "--time-style", "--exclude"), flags(oOptValue, "--time"), flags(oRead, "-X", "--exclude-from"), flags(oDeny, "--files0-from")), maxOperands: -1, defaultDot: true, namesOnly: true, recursive: []string{"*"}, hidden: []string{"*"}},
	"diff": {opts: merged(flags(oFlag, "-q", "-s", "-c", "-u", "-e", "-n", "-y", "-p", "-t", "-T", "-l", "-r", "-N", "-i", "-E", "-Z", "-b", "-w", "-B", "-a", "-d", "--brief", "--report-identical-files", "--normal", "--ed", "--rcs", "--side-by-side", "--left-column", "--suppress-common-lines", "--show-c-function", "--expand-tabs", "--initial-tab", "--suppress-blank-empty", "--recursive", "--no-dereference", "--new-file", "--unidirectional-new-file", "--ignore-file-name-case", "--no-ignore-file-name-case", "--ignore-case", "--ignore-tab-expansion", "--ignore-trailing-space", "--ignore-space-change", "--ignore-all-space", "--ignore-blank-lines", "--text", "--strip-trailing-cr", "--minimal", "--speed-large-files", "--help", "--version"),
		flags(oValue, "-C", "-U", "-W", "-F", "-I", "-x", "-S", "--width", "--show-function-line", "--label", "--tabsize", "--ignore-matching-lines", "--line-format", "--old-line-format", "--new-line-format", "--unchanged-line-format", "--old-group-format", "--new-group-format", "--unchanged-group-format", "--changed-group-format", "--horizon-lines", "--starting-file", "--exclude", "--color", "--palette"), flags(oOptValue, "--context", "--unified"), flags(oRead, "-X", "--exclude-from", "--from-file", "--to-file")), maxOperands: -1, recursive: []string{"-r", "--recursive"}, hidden: []string{"*"}},
}

var subSpecs = map[string]*progSpec{
	"go version":     {style: styleGo, opts: flags(oFlag, "-m", "-v", "-json"), maxOperands: -1},
	"go env":         {style: styleGo, opts: merged(flags(oFlag, "-json", "-changed"), flags(oDeny, "-w", "-u")), operands: opNone, maxOperands: -1},
	"npm ls":         {opts: merged(flags(oFlag, "-a", "--all", "--json", "-l", "--long", "-p", "--parseable", "-g", "--global", "--link", "--package-lock-only", "--unicode", "--production", "--dev"), flags(oValue, "--depth", "--omit", "--include", "-w", "--workspace")), operands: opNone, maxOperands: -1},
	"npm list":       {opts: merged(flags(oFlag, "-a", "--all", "--json", "-l", "--long", "-p", "--parseable", "-g", "--global"), flags(oValue, "--depth", "--omit", "--include")), operands: opNone, maxOperands: -1},
	"pip list":       {opts: merged(flags(oFlag, "-l", "--local", "--user", "-e", "--editable", "--not-required", "--include-editable", "--exclude-editable", "-v", "-q", "--no-color", "--isolated", "--disable-pip-version-check"), flags(oValue, "--format", "--exclude")), operands: opNone, maxOperands: -1},
	"pip show":       {opts: flags(oFlag, "-f", "--files", "-v", "-q", "--no-color", "--isolated"), operands: opNone, maxOperands: -1},
	"pip freeze":     {opts: merged(flags(oFlag, "-l", "--local", "--user", "--all", "--exclude-editable", "-v", "-q", "--no-color", "--isolated"), flags(oValue, "--exclude")), operands: opNone, maxOperands: 0},
	"docker ps":      {opts: merged(flags(oFlag, "-a", "--all", "-l", "--latest", "--no-trunc", "-q", "--quiet", "-s", "--size"), flags(oValue, "-f", "--filter", "--format", "-n", "--last")), operands: opNone, maxOperands: 0},
	"docker images":  {opts: merged(flags(oFlag, "-a", "--all", "--digests", "--no-trunc", "-q", "--quiet"), flags(oValue, "-f", "--filter", "--format")), operands: opNone, maxOperands: 1},
	"docker inspect": {opts: merged(flags(oFlag, "-s", "--size"), flags(oValue, "-f", "--format", "--type")), operands: opNone, maxOperands: -1},
	"docker logs":    {opts: merged(flags(oFlag, "--details", "-f", "--follow", "-t", "--timestamps"), flags(oValue, "--since", "--until", "-n", "--tail")), operands: opNone, maxOperands: 1},
	"docker version": {opts: flags(oValue, "-f", "--format"), operands: opNone, maxOperands: 0},
	"docker info":    {opts: flags(oValue, "-f", "--format"), operands: opNone, maxOperands: 0},
}
