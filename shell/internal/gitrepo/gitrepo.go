// Package gitrepo finds the repositories a git command will use and judges
// what they hold: whether their configuration makes git run a program or
// read a file outside the working directories, whether a remote URL
// carries a token, whether the index tracks a secret.
//
// It is separate from package shell because it is not about the command
// line at all: it is about a repository on disk, found as git finds it
// and read as git reads it (its configuration through git config itself,
// its index by its format). Every look it takes goes through an
// [outside.Access]; its verdicts on configuration files, HEAD files and
// indexes are remembered process-wide, keyed by the file's version
// stamp, so that the many git commands an agent runs read an unchanged
// repository once.
package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/toolscope/toolscope/internal/pathpolicy"
	"github.com/toolscope/toolscope/shell/internal/outside"
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

// Candidate is a git directory discovery met.
type Candidate struct {
	Dir    string // the git directory
	common string // its common directory ("" until known)
	valid  bool   // git uses it (the last candidate, if any is valid)
}

// Repos judges the repositories of one command line's git commands: it
// remembers each discovery for the line's other git commands. Policy and
// Views must be set; Views.Access takes every look.
type Repos struct {
	Policy *pathpolicy.Policy
	Views  *outside.Views
	memo   []memo
}

// memo remembers a discovery.
type memo struct {
	dir, why string
	cands    []Candidate
}

func (r *Repos) access() outside.Access { return r.Views.Access }

// Check finds the repositories git may use from dir and reads their
// configuration (and their submodules') for settings that run code or read
// outside the working directories and that no environment can override.
// It returns why the repository makes git not read-only ("" if nothing
// does) and the git directories it checked (none: git runs outside any
// repository).
func (r *Repos) Check(dir string) (string, []Candidate) {
	for _, m := range r.memo {
		if m.dir == dir {
			return m.why, m.cands
		}
	}
	why, cands := r.discover(dir)
	r.memo = append(r.memo, memo{dir, why, cands})
	return why, cands
}

func (r *Repos) discover(dir string) (string, []Candidate) {
	var cands []Candidate
	for d := dir; ; {
		dot := d + "/.git"
		if d == "/" {
			dot = "/.git"
		}
		fi, err := r.access().Stat(dot, false)
		switch {
		case err == nil && fi.IsDir():
			common, v := r.validGitDir(dot, r.Views.View(dot))
			cands = append(cands, Candidate{dot, common, v})
			if v {
				return r.checkCandidates(cands)
			}
		case err == nil && fi.IsRegular():
			target, why := r.readGitFile(dot, d)
			if why != "" {
				return why, nil
			}
			// git stops here, with the repository the file names or an error.
			cands = append(cands, Candidate{target, "", true})
			return r.checkCandidates(cands)
		case err == nil:
			return dot + " is a link or a special file", nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return "cannot inspect " + dot, nil
		}
		if r.looksBare(d) {
			common, v := r.validGitDir(d, r.Views.View(d))
			cands = append(cands, Candidate{d, common, v})
			if v {
				return r.checkCandidates(cands)
			}
		}
		if d == "/" {
			return r.checkCandidates(cands)
		}
		d = filepath.Dir(d)
	}
}

// readSmall reads a regular file of at most max bytes, following links.
func (r *Repos) readSmall(path string, max int64) ([]byte, error) {
	return r.access().ReadFile(path, max, true)
}

// readGitFile reads a .git file ("gitdir: PATH").
func (r *Repos) readGitFile(dot, d string) (string, string) {
	b, err := r.readSmall(dot, 4096)
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
func (r *Repos) looksBare(d string) bool {
	fi, err := r.access().Stat(filepath.Join(d, "HEAD"), false)
	if err != nil || !fi.IsRegular() && fi.Type != fs.ModeSymlink {
		return false
	}
	return outside.IsDir(r.access(), filepath.Join(d, "objects")) || outside.IsDir(r.access(), filepath.Join(d, "refs"))
}

// validGitDir is git's is_git_directory: a HEAD that is a symbolic ref or
// an object name, and objects and refs directories (in the common
// directory, for a linked work tree).
func (r *Repos) validGitDir(d string, v outside.DirView) (common string, valid bool) {
	if v.Absent("HEAD") {
		return "", false
	}
	head := filepath.Join(d, "HEAD")
	b, err := r.readHead(head)
	switch {
	case errors.Is(err, syscall.ELOOP):
		t, err := r.access().Readlink(head)
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
	if v.Absent("commondir") {
		common = d
		return common, v.IsDir("objects") && v.IsDir("refs")
	}
	common = r.CommonDir(d)
	return common, outside.IsDir(r.access(), filepath.Join(common, "objects")) && outside.IsDir(r.access(), filepath.Join(common, "refs"))
}

// readHead reads a HEAD file without following a link (ELOOP says it is
// one).
func (r *Repos) readHead(path string) ([]byte, error) {
	// A HEAD that has not changed (one lstat says so) is not read again.
	fi, err := r.access().Stat(path, false)
	stamped := err == nil && fi.IsRegular() && fi.Stamped
	st := fi.Stamp
	if stamped {
		if v, ok := headCache.Load(path); ok && v.(headEntry).stamp == st {
			return []byte(v.(headEntry).content), nil
		}
	}
	b, err := r.readHeadFile(path)
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
	stamp   outside.Stamp
	content string
}

func (r *Repos) readHeadFile(path string) ([]byte, error) {
	// A HEAD holds a ref name or an object name: 255 bytes are plenty,
	// and a longer one is taken for invalid (the search goes on upward).
	b, err := r.access().ReadFile(path, 255, false)
	if errors.Is(err, outside.ErrNotSmallRegular) {
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

// CommonDir returns the directory a git directory's commondir file names,
// or the git directory itself.
func (r *Repos) CommonDir(gitDir string) string {
	b, err := r.readSmall(filepath.Join(gitDir, "commondir"), 4096)
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

// checkCandidates checks what discovery found: the repository git uses
// must lie in a working directory; every candidate's configuration (its
// own, its common directory's, its submodules') must set nothing that runs
// code.
func (r *Repos) checkCandidates(cands []Candidate) (string, []Candidate) {
	for _, c := range cands {
		dirs := []string{c.Dir}
		cd := c.common
		if cd == "" {
			cd = r.CommonDir(c.Dir)
		}
		if cd != c.Dir {
			dirs = append(dirs, cd)
		}
		for _, d := range dirs {
			x := r.Policy.Classify(d)
			if c.valid && (x.Err != nil || x.Inside == "") {
				return "git would use the repository " + d + ", outside the working directories", nil
			}
			if x.Err != nil || !x.Exists {
				continue
			}
			if why := r.configsCheck(x.Resolved.Path); why != "" {
				return why, nil
			}
			if why := r.alternates(x.Resolved.Path); why != "" {
				return why, nil
			}
		}
	}
	return "", cands
}

// alternates checks objects/info/alternates, which makes git read (and
// print) the objects of other repositories: they must lie in a working
// directory. http-alternates, for a fetch, is refused.
func (r *Repos) alternates(gitDir string) string {
	info := filepath.Join(gitDir, "objects", "info")
	if v := r.Views.View(info); v.Absent("http-alternates") && v.Absent("alternates") {
		return ""
	}
	if _, err := r.access().Stat(filepath.Join(info, "http-alternates"), false); err == nil {
		return gitDir + " has http-alternates"
	}
	b, err := r.readSmall(filepath.Join(info, "alternates"), 64<<10)
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
		if x := r.Policy.Classify(alt); x.Err != nil || x.Inside == "" || x.Secret {
			return gitDir + " reads objects from " + alt + ", outside the working directories"
		}
	}
	return ""
}

// maxModuleDirs bounds the submodule directories checked.
const maxModuleDirs = 256

// configsCheck checks a git directory's config and config.worktree, and
// those of the submodules kept in its modules directory (git status and
// git diff look into submodules, and run their filters).
func (r *Repos) configsCheck(gitDir string) string {
	check := func(dir string) string {
		v := r.Views.View(dir)
		for _, f := range []string{"config", "config.worktree"} {
			if v.Absent(f) {
				continue
			}
			why, worktree := r.configCheck(filepath.Join(dir, f))
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
				if x := r.Policy.Classify(worktree); x.Err != nil || x.Inside == "" {
					return filepath.Join(dir, f) + " moves the work tree to " + worktree + ", outside the working directories"
				}
			}
		}
		return ""
	}
	if why := check(gitDir); why != "" {
		return why
	}
	if r.Views.View(gitDir).Absent("modules") {
		return ""
	}
	left := maxModuleDirs
	var walk func(dir string) string
	walk = func(dir string) string {
		ents, err := r.access().ReadDir(dir)
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
	stamp         outside.Stamp
	why, worktree string
	creds         bool // a remote URL carries a password or a token
}

// configCheck reads one git config file for settings the hardened
// environment cannot override. worktree is the file's core.worktree, which
// the caller judges.
func (r *Repos) configCheck(path string) (why, worktree string) {
	v := r.configVerdict(path)
	return v.why, v.worktree
}

// ConfigCreds reports whether a config file's remote URLs carry a
// password or a token (https://user:token@host): git remote -v prints them.
func (r *Repos) ConfigCreds(path string) bool { return r.configVerdict(path).creds }

func (r *Repos) configVerdict(path string) gitConfigVerdict {
	fi, err := r.access().Stat(path, true)
	if errors.Is(err, fs.ErrNotExist) {
		return gitConfigVerdict{}
	}
	if err != nil || !fi.IsRegular() {
		return gitConfigVerdict{why: "cannot read " + path}
	}
	if fi.Stamped {
		if v, ok := gitConfigCache.Load(path); ok && v.(gitConfigVerdict).stamp == fi.Stamp {
			return v.(gitConfigVerdict)
		}
	}
	v := gitConfigVerdict{stamp: fi.Stamp}
	v.why, v.worktree, v.creds = r.configRead(path, fi.Size)
	if fi.Stamped {
		gitConfigCache.Store(path, v)
	}
	return v
}

// SignatureFormat matches a pretty format that asks for a signature (%G?,
// %GK, also %+G?, %-G?, % G?): git then runs gpg. A format in the
// configuration (format.pretty, pretty.NAME) or on the command line
// (--format) that matches is refused.
var SignatureFormat = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`%[-+ ]?G`) })

// urlCreds matches a URL with a password (scheme://user:secret@) or a long
// user name that is a token (https://ghp_...@github.com).
var urlCreds = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`://([^/@\s:]+:[^/@\s]+|[^/@\s:]{20,})@`) })

// configRead judges a config file as git itself reads it: git's own
// parser lists its entries (a byte-order mark, two sections on one line,
// quoting and continuation lines are read exactly as git reads them).
func (r *Repos) configRead(path string, size int64) (why, worktree string, creds bool) {
	if size > 1<<20 {
		return path + " is too large to check", "", false
	}
	entries, err := r.access().GitConfig(path)
	if err != nil {
		return path + " cannot be checked: " + err.Error(), "", false
	}
	for _, e := range entries {
		if (strings.HasSuffix(e.Key, ".url") || strings.HasSuffix(e.Key, ".pushurl")) && urlCreds().MatchString(e.Value) {
			creds = true
		}
		// Keys come as section[.subsection].name, section and name in
		// lower case; the subsection may hold dots.
		first := strings.IndexByte(e.Key, '.')
		last := strings.LastIndexByte(e.Key, '.')
		if first < 0 {
			return path + " has a malformed key " + e.Key, "", false
		}
		section, name, sub := e.Key[:first], e.Key[last+1:], ""
		if last > first {
			sub = e.Key[first+1 : last]
		}
		switch {
		case section == "include" || section == "includeif":
			return path + " includes other configuration files", "", false
		case section == "diff" && sub != "" && (name == "textconv" || name == "command"):
			return path + " sets diff." + sub + "." + name + ", which git runs", "", false
		case section == "filter" && sub != "":
			return path + " sets a filter driver, which git runs", "", false
		case section == "core" && name == "worktree":
			worktree = e.Value
			if worktree == "" {
				worktree = "."
			}
		case section == "diff" && sub == "" && name == "external":
			return path + " sets diff.external, which git diff runs", "", false
		case (section == "format" && name == "pretty" || section == "pretty") && SignatureFormat().MatchString(e.Value):
			return path + " defines a format that shows signatures, which runs gpg", "", false
		case section == "extensions" && name == "partialclone", name == "promisor" && gitTrue(e.Value), name == "vcs":
			return path + " makes git fetch missing objects from a remote, which reaches the network and runs its transport", "", false
		case RunsProgram(section, name):
			return path + " sets " + e.Key + ", a program git may run", "", false
		case ReadsFile(section, name) && e.Value != "":
			return path + " sets " + e.Key + ", a file git reads and may print", "", false
		}
		// core.fsmonitor, core.pager, pager.*, core.hooksPath, gpg.* and
		// log.showSignature are overridden by the hardened environment.
	}
	return "", worktree, creds
}

// RunsProgram reports configuration keys that name a program or a command
// line git runs (core.sshCommand, remote.x.uploadpack,
// core.alternateRefsCommand, credential.helper, uploadpack.packObjectsHook,
// core.gitProxy, core.askPass, man.x.cmd, ...). Those the hardened
// environment overrides (core.fsmonitor, core.pager, core.hooksPath,
// gpg.*.program) are left to it.
func RunsProgram(section, name string) bool {
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

// ReadsFile reports configuration keys that name a file git reads and may
// show in its output or errors (blame.ignoreRevsFile prints the first line
// it cannot parse; mailmap.file maps names): a secret could be named.
func ReadsFile(section, name string) bool {
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

// TrackedSecret returns a secret path the index of a git directory tracks
// ("" if none), or a reason the index cannot be read.
func (r *Repos) TrackedSecret(gitDir string) string {
	x := r.Policy.Classify(gitDir)
	if x.Err != nil || !x.Exists {
		return ""
	}
	names, err := r.indexNames(filepath.Join(x.Resolved.Path, "index"))
	if err != nil {
		return "its index (" + err.Error() + ")"
	}
	for _, n := range names {
		if sec, _ := r.Policy.Spelling(n); sec {
			return n
		}
	}
	return ""
}

// indexCache remembers the secret-looking names of index files by stamp.
var indexCache sync.Map // path -> indexVerdict

type indexVerdict struct {
	stamp outside.Stamp
	names []string
	err   error
}

// maxIndexSize bounds the index files read (a repository of about a
// million files).
const maxIndexSize = 128 << 20

// indexNames returns the paths an index file lists whose spelling may be
// sensitive (all of them would be too many to keep); a missing index lists
// nothing.
func (r *Repos) indexNames(path string) ([]string, error) {
	fi, err := r.access().Stat(path, true)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if !fi.IsRegular() || fi.Size > maxIndexSize {
		return nil, errors.New("not a regular file of a readable size")
	}
	if v, ok := indexCache.Load(path); ok && fi.Stamped && v.(indexVerdict).stamp == fi.Stamp {
		return v.(indexVerdict).names, v.(indexVerdict).err
	}
	b, err := r.access().ReadFile(path, maxIndexSize, true) // never waits on a FIFO put there since the stat
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
	if fi.Stamped {
		indexCache.Store(path, indexVerdict{fi.Stamp, names, err})
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
