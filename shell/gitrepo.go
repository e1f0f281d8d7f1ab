package shell

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/toolscope/toolscope/internal/dirsnap"
)

// The repository a git command will use, and what its configuration and
// index say. Discovery follows git's (setup_git_directory_gently): in the
// directory and each parent, a .git file stops the search (git uses or
// refuses what it names), a .git directory counts only if it is a valid
// git directory (git skips an empty one and goes on upward), and so does
// the directory itself as a bare repository. Every candidate met on the
// way is checked, the valid one and those git would skip, so that a
// difference between git's idea of validity and ours only makes the check
// stricter.

// gitCandidate is a git directory discovery met.
type gitCandidate struct {
	dir    string // the git directory
	common string // its common directory ("" until known)
	valid  bool   // git uses it (the last candidate, if any is valid)
}

// gitRepoCheck finds the repositories git may use from dir and reads their
// configuration (and their submodules') for settings that run code or read
// outside the working directories and that no environment can override.
// It returns why the repository makes git not read-only ("" if nothing
// does) and the git directories it checked (none: git runs outside any
// repository).
func (an *analyzer) gitRepoCheck(dir string) (string, []gitCandidate) {
	for _, m := range an.gitRepos {
		if m.dir == dir {
			return m.why, m.cands
		}
	}
	why, cands := an.gitDiscover(dir)
	an.gitRepos = append(an.gitRepos, gitRepoMemo{dir, why, cands})
	return why, cands
}

// gitRepoMemo remembers a discovery for the other git commands of the same
// command line.
type gitRepoMemo struct {
	dir, why string
	cands    []gitCandidate
}

func (an *analyzer) gitDiscover(dir string) (string, []gitCandidate) {
	var cands []gitCandidate
	for d := dir; ; {
		dot := d + "/.git"
		if d == "/" {
			dot = "/.git"
		}
		mode, err := an.cfg.policy.Lstat(dot)
		switch {
		case err == nil && mode.IsDir():
			common, v := validGitDir(dot, an.view(dot))
			cands = append(cands, gitCandidate{dot, common, v})
			if v {
				return an.gitCheckCandidates(cands)
			}
		case err == nil && mode.IsRegular():
			target, why := readGitFile(dot, d)
			if why != "" {
				return why, nil
			}
			// git stops here, with the repository the file names or an error.
			cands = append(cands, gitCandidate{target, "", true})
			return an.gitCheckCandidates(cands)
		case err == nil:
			return dot + " is a link or a special file", nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return "cannot inspect " + dot, nil
		}
		if looksBare(d) {
			common, v := validGitDir(d, an.view(d))
			cands = append(cands, gitCandidate{d, common, v})
			if v {
				return an.gitCheckCandidates(cands)
			}
		}
		if d == "/" {
			return an.gitCheckCandidates(cands)
		}
		d = filepath.Dir(d)
	}
}

// readGitFile reads a .git file ("gitdir: PATH").
func readGitFile(dot, d string) (string, string) {
	b, err := readSmall(dot, 4096)
	if err != nil {
		return "", "cannot read " + dot
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", dot + " is not a git link"
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(d, target)
	}
	return target, ""
}

// looksBare reports a directory with the shape of a git directory: a HEAD
// file and objects and refs directories.
func looksBare(d string) bool {
	fi, err := os.Lstat(filepath.Join(d, "HEAD"))
	if err != nil || !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	return isDirPath(filepath.Join(d, "objects")) || isDirPath(filepath.Join(d, "refs"))
}

func isDirPath(p string) bool {
	fi, err := statFile(p)
	return err == nil && fi.dir
}

// validGitDir is git's is_git_directory: a HEAD that is a symbolic ref or
// an object name, and objects and refs directories (in the common
// directory, for a linked work tree).
func validGitDir(d string, v dirView) (common string, valid bool) {
	if v.absent("HEAD") {
		return "", false
	}
	head := filepath.Join(d, "HEAD")
	b, err := readHead(head)
	switch {
	case errors.Is(err, syscall.ELOOP):
		t, err := os.Readlink(head)
		if err != nil || !strings.HasPrefix(t, "refs/") {
			return "", false
		}
	case err != nil:
		return "", false
	default:
		s := strings.TrimRight(string(b), "\n")
		if r, ok := strings.CutPrefix(s, "ref:"); ok {
			if !strings.HasPrefix(strings.TrimLeft(r, " \t"), "refs/") {
				return "", false
			}
		} else if !isHexName(s) || len(s) != 40 && len(s) != 64 {
			return "", false
		}
	}
	if v.absent("commondir") {
		common = d
		return common, v.isDir("objects") && v.isDir("refs")
	}
	common = commonDir(d)
	return common, isDirPath(filepath.Join(common, "objects")) && isDirPath(filepath.Join(common, "refs"))
}

// dirView is a current listing of a directory (package dirsnap: one stat
// checks a remembered one), to learn without a system call each that the
// files git looks for are not there.
type dirView struct {
	dir     string
	l       *dirsnap.Listing
	ascii   bool // every name is ASCII
	missing bool // the directory does not exist: nothing is in it
}

// view is viewDir, once per directory and command line.
func (an *analyzer) view(d string) dirView {
	for _, v := range an.gitViews {
		if v.dir == d {
			return v
		}
	}
	v := viewDir(d)
	an.gitViews = append(an.gitViews, v)
	return v
}

func viewDir(d string) dirView {
	l, err := dirsnap.Read(d, 4096)
	if err != nil {
		return dirView{dir: d, missing: errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)}
	}
	v := dirView{dir: d, l: l, ascii: true}
	for _, n := range l.Names {
		for i := 0; i < len(n); i++ {
			if n[i] >= utf8.RuneSelf {
				v.ascii = false
			}
		}
	}
	return v
}

// absent reports a name surely not in the directory. A case-folding
// directory would open "CONFIG" for "config" (and, with Unicode folding,
// names that are not ASCII): only a listing of ASCII names with no
// case-insensitive match is sure.
func (v dirView) absent(name string) bool {
	if v.missing {
		return true
	}
	if v.l == nil || !v.ascii {
		return false
	}
	for _, n := range v.l.Names {
		if strings.EqualFold(n, name) {
			return false
		}
	}
	return true
}

// isDir reports whether name is a directory, following a link (as git
// does).
func (v dirView) isDir(name string) bool {
	if v.l != nil {
		if t, ok := v.l.Type(name); ok && t&fs.ModeSymlink == 0 {
			return t.IsDir()
		}
	}
	return isDirPath(filepath.Join(v.dir, name))
}

// readHead reads a HEAD file without following a link (ELOOP says it is
// one).
func readHead(path string) ([]byte, error) {
	// A HEAD that has not changed (one lstat says so) is not read again.
	st, stamped := regularStamp(path)
	if stamped {
		if v, ok := headCache.Load(path); ok && v.(headEntry).stamp == st {
			return []byte(v.(headEntry).content), nil
		}
	}
	b, err := readHeadFile(path)
	if err == nil && stamped {
		if headCacheSize.Add(1) > maxHeadCache {
			headCache.Clear()
			headCacheSize.Store(1)
		}
		headCache.Store(path, headEntry{st, string(b)})
	}
	return b, err
}

// headCache remembers HEAD files by path, with the stamp they had when
// they were last read: a change (a write in place moves the change time, a
// rename the inode) makes the stamp differ.
var (
	headCache     sync.Map // string -> headEntry
	headCacheSize atomic.Int64
)

const maxHeadCache = 1024

type headEntry struct {
	stamp   linkStamp
	content string
}

func readHeadFile(path string) ([]byte, error) {
	// A HEAD holds a ref name or an object name: 255 bytes are plenty,
	// and a longer one is taken for invalid (the search goes on upward).
	b, err := readRegular(path, 255, true)
	if errors.Is(err, errNotSmallRegular) {
		return nil, errors.New("HEAD is not a small regular file")
	}
	return b, err
}

func isHexName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// commonDir returns the directory a git directory's commondir file names,
// or the git directory itself.
func commonDir(gitDir string) string {
	b, err := readSmall(filepath.Join(gitDir, "commondir"), 4096)
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

// gitCheckCandidates checks what discovery found: the repository git uses
// must lie in a working directory; every candidate's configuration (its
// own, its common directory's, its submodules') must set nothing that runs
// code.
func (an *analyzer) gitCheckCandidates(cands []gitCandidate) (string, []gitCandidate) {
	for _, c := range cands {
		dirs := []string{c.dir}
		cd := c.common
		if cd == "" {
			cd = commonDir(c.dir)
		}
		if cd != c.dir {
			dirs = append(dirs, cd)
		}
		for _, d := range dirs {
			x := an.cfg.policy.Classify(d)
			if c.valid && (x.Err != nil || x.Inside == "") {
				return "git would use the repository " + d + ", outside the working directories", nil
			}
			if x.Err != nil || !x.Exists {
				continue
			}
			if why := an.gitConfigsCheck(x.Resolved.Path); why != "" {
				return why, nil
			}
			if why := an.gitAlternates(x.Resolved.Path); why != "" {
				return why, nil
			}
		}
	}
	return "", cands
}

// gitAlternates checks objects/info/alternates, which makes git read (and
// print) the objects of other repositories: they must lie in a working
// directory. http-alternates, for a fetch, is refused.
func (an *analyzer) gitAlternates(gitDir string) string {
	info := filepath.Join(gitDir, "objects", "info")
	if v := an.view(info); v.absent("http-alternates") && v.absent("alternates") {
		return ""
	}
	if _, err := os.Lstat(filepath.Join(info, "http-alternates")); err == nil {
		return gitDir + " has http-alternates"
	}
	b, err := readSmall(filepath.Join(info, "alternates"), 64<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		return "cannot read " + filepath.Join(info, "alternates")
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '"' {
			return gitDir + " names a quoted alternate object store"
		}
		alt := line
		if !filepath.IsAbs(alt) {
			alt = filepath.Join(gitDir, "objects", alt)
		}
		if x := an.cfg.policy.Classify(alt); x.Err != nil || x.Inside == "" || x.Secret {
			return gitDir + " reads objects from " + alt + ", outside the working directories"
		}
	}
	return ""
}

// maxModuleDirs bounds the submodule directories checked.
const maxModuleDirs = 256

// gitConfigsCheck checks a git directory's config and config.worktree, and
// those of the submodules kept in its modules directory (git status and
// git diff look into submodules, and run their filters).
func (an *analyzer) gitConfigsCheck(gitDir string) string {
	check := func(dir string) string {
		v := an.view(dir)
		for _, f := range []string{"config", "config.worktree"} {
			if v.absent(f) {
				continue
			}
			why, worktree := gitConfigCheck(filepath.Join(dir, f))
			if why != "" {
				return why
			}
			if worktree != "" {
				// core.worktree (every submodule has one) may name a work
				// tree in a working directory, relative to the git
				// directory.
				if !filepath.IsAbs(worktree) {
					worktree = filepath.Join(dir, worktree)
				}
				if x := an.cfg.policy.Classify(worktree); x.Err != nil || x.Inside == "" {
					return filepath.Join(dir, f) + " moves the work tree to " + worktree + ", outside the working directories"
				}
			}
		}
		return ""
	}
	if why := check(gitDir); why != "" {
		return why
	}
	if an.view(gitDir).absent("modules") {
		return ""
	}
	left := maxModuleDirs
	var walk func(dir string) string
	walk = func(dir string) string {
		ents, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return ""
		}
		if err != nil {
			return "cannot read " + dir
		}
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			if left--; left < 0 {
				return dir + " holds too many submodules to check"
			}
			sub := filepath.Join(dir, e.Name())
			if why := check(sub); why != "" {
				return why
			}
			// Nested submodules live in modules/ of their parent's git
			// directory; a submodule named a/b is kept in modules/a/b.
			if why := walk(sub); why != "" {
				return why
			}
		}
		return ""
	}
	return walk(filepath.Join(gitDir, "modules"))
}

// gitConfigCache remembers the verdicts on git config files, keyed by
// path, inode, size, modification and change time: a changed file (its
// ctime moves with every write, and cannot be set back) is read again.
var gitConfigCache sync.Map // string -> gitConfigVerdict

type gitConfigVerdict struct {
	stamp         linkStamp
	why, worktree string
	creds         bool // a remote URL carries a password or a token
}

// gitConfigCheck reads one git config file for settings the hardened
// environment cannot override. worktree is the file's core.worktree, which
// the caller judges.
func gitConfigCheck(path string) (why, worktree string) {
	v := gitConfigVerdictOf(path)
	return v.why, v.worktree
}

// gitConfigCreds reports whether a config file's remote URLs carry a
// password or a token (https://user:token@host): git remote -v prints them.
func gitConfigCreds(path string) bool { return gitConfigVerdictOf(path).creds }

func gitConfigVerdictOf(path string) gitConfigVerdict {
	fi, err := statFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return gitConfigVerdict{}
	}
	if err != nil || !fi.regular {
		return gitConfigVerdict{why: "cannot read " + path}
	}
	if fi.stamped {
		if v, ok := gitConfigCache.Load(path); ok && v.(gitConfigVerdict).stamp == fi.stamp {
			return v.(gitConfigVerdict)
		}
	}
	v := gitConfigVerdict{stamp: fi.stamp}
	v.why, v.worktree, v.creds = gitConfigRead(path, fi.size)
	if fi.stamped {
		gitConfigCache.Store(path, v)
	}
	return v
}

// urlCreds matches a URL with a password (scheme://user:secret@) or a long
// user name that is a token (https://ghp_...@github.com).
var urlCreds = regexp.MustCompile(`://([^/@\s:]+:[^/@\s]+|[^/@\s:]{20,})@`)

// gitConfigRead judges a config file as git itself reads it: git's own
// parser lists its entries (a byte-order mark, two sections on one line,
// quoting and continuation lines are read exactly as git reads them).
func gitConfigRead(path string, size int64) (why, worktree string, creds bool) {
	if size > 1<<20 {
		return path + " is too large to check", "", false
	}
	entries, err := gitConfigList(path)
	if err != nil {
		return path + " cannot be checked: " + err.Error(), "", false
	}
	for _, e := range entries {
		if (strings.HasSuffix(e.key, ".url") || strings.HasSuffix(e.key, ".pushurl")) && urlCreds.MatchString(e.val) {
			creds = true
		}
		// Keys come as section[.subsection].name, section and name in
		// lower case; the subsection may hold dots.
		first := strings.IndexByte(e.key, '.')
		last := strings.LastIndexByte(e.key, '.')
		if first < 0 {
			return path + " has a malformed key " + e.key, "", false
		}
		section, name, sub := e.key[:first], e.key[last+1:], ""
		if last > first {
			sub = e.key[first+1 : last]
		}
		switch {
		case section == "include" || section == "includeif":
			return path + " includes other configuration files", "", false
		case section == "diff" && sub != "" && (name == "textconv" || name == "command"):
			return path + " sets diff." + sub + "." + name + ", which git runs", "", false
		case section == "filter" && sub != "":
			return path + " sets a filter driver, which git runs", "", false
		case section == "core" && name == "worktree":
			worktree = e.val
			if worktree == "" {
				worktree = "."
			}
		case section == "diff" && sub == "" && name == "external":
			return path + " sets diff.external, which git diff runs", "", false
		case (section == "format" && name == "pretty" || section == "pretty") && gitSignatureFormat.MatchString(e.val):
			return path + " defines a format that shows signatures, which runs gpg", "", false
		case section == "extensions" && name == "partialclone", name == "promisor" && gitTrue(e.val), name == "vcs":
			return path + " makes git fetch missing objects from a remote, which reaches the network and runs its transport", "", false
		case runsProgram(section, name):
			return path + " sets " + e.key + ", a program git may run", "", false
		case readsFile(section, name) && e.val != "":
			return path + " sets " + e.key + ", a file git reads and may print", "", false
		}
		// core.fsmonitor, core.pager, pager.*, core.hooksPath, gpg.* and
		// log.showSignature are overridden by the hardened environment.
	}
	return "", worktree, creds
}

// runsProgram reports configuration keys that name a program or a command
// line git runs (core.sshCommand, remote.x.uploadpack,
// core.alternateRefsCommand, credential.helper, uploadpack.packObjectsHook,
// core.gitProxy, core.askPass, man.x.cmd, ...). Those the hardened
// environment overrides (core.fsmonitor, core.pager, core.hooksPath,
// gpg.*.program) are left to it.
func runsProgram(section, name string) bool {
	switch section + "." + name {
	case "core.fsmonitor", "core.pager", "core.hookspath":
		return false
	}
	if section == "gpg" || section == "pager" {
		return false
	}
	for _, suf := range []string{"command", "cmd", "program", "helper", "hook", "uploadpack", "receivepack", "askpass",
		"editor", "proxy", "viewer", "driver", "exec"} {
		if strings.HasSuffix(name, suf) {
			return true
		}
	}
	return false
}

// readsFile reports configuration keys that name a file git reads and may
// show in its output or errors (blame.ignoreRevsFile prints the first line
// it cannot parse; mailmap.file maps names): a secret could be named.
func readsFile(section, name string) bool {
	return strings.HasSuffix(name, "file") || section == "mailmap" && name == "blob"
}

// gitTrue reads a git boolean.
func gitTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false", "no", "off", "0":
		return false
	}
	return true
}

type gitConfigEntry struct{ key, val string }

var gitPath struct {
	once sync.Once
	path string
	err  error
}

// gitConfigList runs git config --file PATH --list -z: git's parser, on
// that file alone, without following includes (they are refused anyway),
// without any repository or user configuration.
func gitConfigList(path string) ([]gitConfigEntry, error) {
	gitPath.once.Do(func() { gitPath.path, gitPath.err = exec.LookPath("git") })
	if gitPath.err != nil {
		return nil, fmt.Errorf("git is not installed to read it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gitPath.path, "config", "--file", path, "--no-includes", "--list", "-z")
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_DIR=/nonexistent", "GIT_CEILING_DIRECTORIES=/"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(firstLine(msg))
	}
	var entries []gitConfigEntry
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		k, v, _ := bytes.Cut(rec, []byte{'\n'})
		entries = append(entries, gitConfigEntry{string(k), string(v)})
	}
	return entries, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// gitContentSubs print the content of files the repository tracks (or
// tracked): with a secret in the index, they print it.
var gitContentSubs = map[string]bool{
	"show": true, "diff": true, "grep": true, "cat-file": true, "blame": true, "annotate": true, "range-diff": true,
}

// gitPatchSubs print file contents only with a patch option.
var gitPatchSubs = map[string]bool{"log": true, "whatchanged": true, "reflog": true, "stash": true}

// printsContent reports whether git sub with args prints tracked files'
// contents.
func printsContent(sub string, args []word) bool {
	if gitContentSubs[sub] {
		return true
	}
	if !gitPatchSubs[sub] {
		return false
	}
	for _, a := range args {
		s := a.s
		if s == "--" {
			break
		}
		if strings.HasPrefix(s, "--") {
			for _, p := range []string{"--patch", "--cc", "--dd", "--word-diff", "--color-words", "--binary", "--unified",
				"--remerge-diff", "--full-diff", "--diff-merges", "--function-context", "--textconv", "--ext-diff"} {
				if strings.HasPrefix(s, p) {
					return true
				}
			}
			continue
		}
		if strings.HasPrefix(s, "-") && strings.ContainsAny(s[1:], "pucLUmW") {
			return true
		}
	}
	return false
}

// gitTrackedSecret returns a secret path the index of a git directory
// tracks ("" if none), or a reason the index cannot be read.
func (an *analyzer) gitTrackedSecret(gitDir string) string {
	x := an.cfg.policy.Classify(gitDir)
	if x.Err != nil || !x.Exists {
		return ""
	}
	names, err := indexNames(filepath.Join(x.Resolved.Path, "index"))
	if err != nil {
		return "its index (" + err.Error() + ")"
	}
	for _, n := range names {
		if sec, _ := an.cfg.policy.Spelling(n); sec {
			return n
		}
	}
	return ""
}

// indexCache remembers the secret-looking names of index files by stamp.
var indexCache sync.Map // path -> indexVerdict

type indexVerdict struct {
	stamp linkStamp
	names []string
	err   error
}

// maxIndexSize bounds the index files read (a repository of about a
// million files).
const maxIndexSize = 128 << 20

// indexNames returns the paths an index file lists whose spelling may be
// sensitive (all of them would be too many to keep); a missing index lists
// nothing.
func indexNames(path string) ([]string, error) {
	fi, err := statFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if !fi.regular || fi.size > maxIndexSize {
		return nil, errors.New("not a regular file of a readable size")
	}
	if v, ok := indexCache.Load(path); ok && fi.stamped && v.(indexVerdict).stamp == fi.stamp {
		return v.(indexVerdict).names, v.(indexVerdict).err
	}
	b, err := readRegular(path, maxIndexSize, false) // never waits on a FIFO put there since the stat
	if err != nil {
		return nil, err
	}
	var names []string
	keep := func(n string) {
		if maybeSensitiveName(n) {
			names = append(names, n)
		}
	}
	err = parseIndex(b, 20, keep)
	if err != nil {
		names = nil
		if err2 := parseIndex(b, 32, keep); err2 == nil {
			err = nil
		} else {
			names = nil
		}
	}
	if fi.stamped {
		indexCache.Store(path, indexVerdict{fi.stamp, names, err})
	}
	return names, err
}

// maybeSensitiveName is a cheap filter before the policy's judgment: every
// secret name has a dot or names a key (id_rsa), a credentials file or a
// secret directory.
func maybeSensitiveName(n string) bool {
	return strings.Contains(n, ".") || strings.Contains(n, "id_") || strings.Contains(n, "_netrc") ||
		strings.Contains(n, "credentials") || strings.Contains(n, "secrets")
}

// parseIndex walks the entries of a git index (versions 2, 3 and 4; see
// git's Documentation/gitformat-index.txt) with object names of hashLen
// bytes, calling fn with each path. An index that does not parse to the
// end of its entries, or whose paths are out of order, is an error.
func parseIndex(b []byte, hashLen int, fn func(string)) error {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return errors.New("not a git index")
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < 2 || version > 4 {
		return fmt.Errorf("index version %d", version)
	}
	n := binary.BigEndian.Uint32(b[8:12])
	off := 12
	prev := ""
	fixed := 40 + hashLen + 2
	for i := uint32(0); i < n; i++ {
		start := off
		if off+fixed > len(b) {
			return errors.New("truncated index")
		}
		flags := binary.BigEndian.Uint16(b[off+40+hashLen:])
		off += fixed
		if flags&0x4000 != 0 {
			if version < 3 {
				return errors.New("extended flags in a version 2 index")
			}
			off += 2
		}
		var name string
		if version == 4 {
			strip, k := indexVarint(b[off:])
			if k == 0 || strip > uint64(len(prev)) {
				return errors.New("bad path compression")
			}
			off += k
			end := bytes.IndexByte(b[off:], 0)
			if end < 0 {
				return errors.New("truncated index")
			}
			name = prev[:len(prev)-int(strip)] + string(b[off:off+end])
			off += end + 1
		} else {
			end := bytes.IndexByte(b[off:], 0)
			if end < 0 {
				return errors.New("truncated index")
			}
			name = string(b[off : off+end])
			// Entries are padded with NULs to a multiple of 8 bytes.
			off = start + (off-start+end+8)&^7
			if off > len(b) {
				return errors.New("truncated index")
			}
		}
		if name == "" || name < prev {
			return errors.New("index paths out of order")
		}
		prev = name
		fn(name)
	}
	// What follows the entries must be extensions and the checksum; a
	// split index keeps its entries elsewhere.
	for off+8 <= len(b)-hashLen {
		sig := string(b[off : off+4])
		size := int(binary.BigEndian.Uint32(b[off+4 : off+8]))
		if sig == "link" {
			return errors.New("a split index")
		}
		if size < 0 || off+8+size > len(b) {
			return errors.New("bad index extension")
		}
		off += 8 + size
	}
	if off != len(b)-hashLen {
		return errors.New("bad index end")
	}
	return nil
}

// indexVarint decodes git's offset varint; k is 0 on error.
func indexVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val := uint64(c & 127)
	k := 1
	for c&128 != 0 {
		if k >= len(b) || k > 9 {
			return 0, 0
		}
		val++
		c = b[k]
		k++
		val = val<<7 | uint64(c&127)
	}
	return val, k
}
