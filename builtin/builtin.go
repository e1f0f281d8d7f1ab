// Package builtin provides the tools every coding agent needs: Bash, Read,
// Write, Edit, Glob and Grep.
//
// Each tool is a [tool.Tool] with a Claude-Code-style description (embedded
// from a Markdown file next to its source) and its own permission logic:
//
//   - Bash judges every simple command of a compound with package shell:
//     read-only commands pass, dangerous ones ask even when a rule allows
//     them, and filesystem commands inside the working directories pass in
//     accept_edits mode. It runs commands in their own process group, streams
//     their output, bounds its memory, and keeps the working directory from
//     one call to the next.
//   - Read streams a slice of a text file, returns images as data, refuses
//     binaries, and records what it saw in the agent's [tool.State].
//   - Write and Edit refuse to touch a file the agent has not read, or that
//     changed on disk since (size, mtime or content hash), write atomically,
//     keep CRLF files CRLF, and ask before touching sensitive files.
//   - Glob and Grep search the working directory, honouring .gitignore; Grep
//     runs ripgrep when it is installed and a pure-Go engine otherwise.
//
// All tools share an [Options]: the project root, and the lists of files and
// directories no tool may change without asking.
package builtin

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/shell"
	"github.com/toolscope/toolscope/tool"
)

// Options configures the built-in tools. The zero value (or nil) works: the
// project root is the process's working directory.
type Options struct {
	// Root is the project directory: where Bash starts, where Glob and Grep
	// search by default, what relative rule patterns are relative to, and
	// always a working directory for accept_edits. "" means os.Getwd().
	Root string
	// DangerousFiles and DangerousDirs name files (".bashrc", ".env",
	// ".ssh/config") and directories (".git", ".ssh") that Write, Edit and
	// Bash never change without asking, in any mode but bypass. nil means
	// the defaults of package shell; an empty non-nil slice means none.
	DangerousFiles []string
	DangerousDirs  []string
	// Shell runs Bash commands; "" means bash from PATH, else /bin/sh.
	Shell string
	// Env is the environment of Bash commands; nil means the process's.
	Env []string
	// MaxOutput is how many bytes of a command's output the model gets
	// (head and tail, the middle dropped); 0 means 30000.
	MaxOutput int
	// GrepEngine is "auto" (ripgrep when on PATH, the default), "rg" or "go".
	GrepEngine string
}

// All returns the built-in tools: Bash, Read, Write, Edit, Glob and Grep.
func All(opts *Options) []tool.Tool {
	return []tool.Tool{NewBash(opts), NewRead(opts), NewWrite(opts), NewEdit(opts), NewGlob(opts), NewGrep(opts)}
}

// config is the resolved Options shared by the tools.
type config struct {
	root                    string
	dangerFiles, dangerDirs []string
	opts                    Options
}

func newConfig(opts *Options) *config {
	c := &config{}
	if opts != nil {
		c.opts = *opts
	}
	c.root = c.opts.Root
	if c.root == "" {
		c.root, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(c.root); err == nil {
		c.root = abs
	}
	c.dangerFiles, c.dangerDirs = c.opts.DangerousFiles, c.opts.DangerousDirs
	if c.dangerFiles == nil {
		c.dangerFiles = shell.DefaultDangerousFiles
	}
	if c.dangerDirs == nil {
		c.dangerDirs = shell.DefaultDangerousDirs
	}
	return c
}

// abs makes p absolute against the root (for judging; the tools themselves
// insist on absolute paths).
func (c *config) abs(p string) string {
	p = expandHome(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.root, p)
	}
	return filepath.Clean(p)
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[1:])
		}
	}
	return p
}

// canonical resolves the symbolic links of an absolute path: the file a
// write would really touch, even if it does not exist yet. Links are followed
// even when they dangle, since writing through a dangling link creates its
// target: a link inside the project to a missing file outside is outside.
func canonical(p string) string { return resolve(filepath.Clean(p), 0) }

func resolve(p string, hops int) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		if fi, err := os.Lstat(cur); err == nil && fi.Mode()&os.ModeSymlink != 0 && hops < 40 {
			if target, err := os.Readlink(cur); err == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(cur), target)
				}
				return resolve(filepath.Join(target, rest), hops+1)
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether path is dir or inside it, comparing path components.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// workingDirs returns the canonical working directories: the root and the
// permission context's.
func (c *config) workingDirs(pc *permission.Context) []string {
	dirs := []string{canonical(c.root)}
	if pc != nil {
		for _, d := range pc.WorkingDirs {
			dirs = append(dirs, canonical(c.abs(d)))
		}
	}
	return dirs
}

// inWorkingDir reports the working directory that holds path, once symbolic
// links are resolved ("" if none): a link inside the project that points
// outside is outside.
func (c *config) inWorkingDir(path string, pc *permission.Context) string {
	real := canonical(c.abs(path))
	for _, d := range c.workingDirs(pc) {
		if within(real, d) {
			return d
		}
	}
	return ""
}

// dangerous reports whether writing path would touch a sensitive file or
// directory, judging both the path as given and where its links lead.
func (c *config) dangerous(path string) bool {
	p := c.abs(path)
	for _, x := range []string{p, canonical(p)} {
		lower := strings.ToLower(filepath.ToSlash(x))
		for _, f := range c.dangerFiles {
			f = strings.ToLower(f)
			if strings.HasSuffix(lower, "/"+f) {
				return true
			}
		}
		for _, seg := range strings.Split(lower, "/") {
			for _, d := range c.dangerDirs {
				if seg == strings.ToLower(d) {
					return true
				}
			}
		}
	}
	return false
}

// checkEdit is the permission check of Write and Edit: op is the tool
// ("Write"), verb how messages name what it does ("writing").
func (c *config) checkEdit(op, verb, path string, pc *permission.Context) permission.Decision {
	if path == "" {
		return permission.Decision{Behavior: permission.Passthrough, Message: "No file path"}
	}
	if c.dangerous(path) {
		return permission.Decision{Behavior: permission.Ask, BypassImmune: true,
			Message: "Permission required: " + op + " operation on sensitive file " + path,
			Reason:  "Safety check: dangerous file or directory"}
	}
	if pc != nil && (pc.Mode == permission.AcceptEdits || pc.Mode == permission.DontAsk) && filepath.IsAbs(path) {
		if dir := c.inWorkingDir(path, pc); dir != "" {
			return permission.Decision{Behavior: permission.Allow,
				Message: "Permission granted for " + verb + " " + path + " (in working directory)",
				Reason:  "Mode " + string(pc.Mode) + ": inside the working directory " + dir}
		}
	}
	return permission.Decision{Behavior: permission.Passthrough, Message: "Permission required for " + verb + " " + path}
}

// matchPath matches a path rule ("src/**", "/etc/*", "~/notes/*") against a
// path. Relative patterns are relative to the root. An allow rule must match
// the path both as given and with links resolved; a deny or ask rule matches
// if either does.
func (c *config) matchPath(rule permission.Rule, path string) bool {
	if path == "" {
		path = c.root
	}
	pattern := expandHome(rule.Content)
	if !filepath.IsAbs(pattern) {
		pattern = filepath.Join(c.root, pattern)
	}
	p := c.abs(path)
	given, _ := doublestar.Match(filepath.ToSlash(pattern), filepath.ToSlash(p))
	real, _ := doublestar.Match(filepath.ToSlash(pattern), filepath.ToSlash(canonical(p)))
	if rule.Behavior == permission.Allow {
		return given && real
	}
	return given || real
}

// suggestDir proposes an allow rule for the directory of path.
func (c *config) suggestDir(toolName, path string) []permission.Rule {
	dir := c.abs(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	return []permission.Rule{{Tool: toolName, Content: filepath.ToSlash(dir) + "/**", Behavior: permission.Allow, Source: "suggested"}}
}
