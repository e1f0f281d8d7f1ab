// Package builtin provides the tools every coding agent needs: Bash, Read,
// Write, Edit, Glob and Grep, and TaskCreate, TaskGet, TaskList and
// TaskUpdate to plan and track work in the agent's state.
//
// Each tool is a [tool.Tool] with a Claude-Code-style description (embedded
// from a Markdown file next to its source) and its own permission logic:
//
//   - Bash judges every simple command of a compound with package shell:
//     read-only commands pass, dangerous ones ask even when a rule allows
//     them, and filesystem commands inside the working directories pass in
//     accept_edits mode. It runs commands in their own process group, streams
//     their output, bounds its memory, and keeps the working directory from
//     one call to the next. On Linux each command runs under a small helper
//     that is its child subreaper, so that nothing the command starts
//     (setsid, double forks, env -i) outlives the call, even when the
//     program is killed with SIGKILL. The helper is a second start of the
//     running program (/proc/self/exe) that the package's initialisation
//     turns into the helper before main runs; in a program of your own,
//     package init functions that run before toolscope's (those of packages
//     with no toolscope dependency) run in the helper too, so keep them free
//     of side effects such as connecting or writing files. Where the helper
//     cannot run, commands start directly, as before.
//   - Read streams a slice of a text file, returns images as data, refuses
//     binaries, and records what it saw in the agent's [tool.State].
//   - Write and Edit refuse to touch a file the agent has not read, or that
//     changed on disk since (size, mtime or content hash), write atomically,
//     keep CRLF files CRLF, and ask before touching sensitive files.
//   - Glob and Grep search the working directory, honouring .gitignore; Grep
//     runs ripgrep when it is installed and a pure-Go engine otherwise.
//
// # Background shells
//
// With [Options.Background], Bash takes run_in_background: the command is
// judged and run as any other (same analysis, environment and sandbox),
// but the call returns at once with a shell id ("bash_1"). [BashOutput]
// reads what it printed since the last read, its status and exit code;
// [KillShell] stops it with its whole process group. The shells belong to
// the agent: they live in the runtime part of its [tool.State]
// (tool.State.Runtime), in this process only; ids are per agent, so an
// agent can neither read nor kill another's. At most
// [MaxBackgroundShells] run at once per agent, and each keeps the last
// [MaxShellOutput] bytes of its output. tool.State.Close kills them all
// and returns once none of their processes is left: the owner of the
// state (a serve session, an agent loop) calls it when the agent ends.
// And since every shell runs under proc's helper (or in the sandbox's PID
// namespace), none outlives the process even when Close is never called.
//
// All tools share an [Options]: the project root, and the lists of files and
// directories no tool may change without asking.
package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/toolscope/toolscope/internal/clip"
	"github.com/toolscope/toolscope/internal/pathpolicy"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/sandbox"
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
	// ProtectedPaths are absolute paths that Write, Edit and Bash never
	// change without asking, each with everything below it (toolscope's
	// own state, configuration and run files).
	ProtectedPaths []string
	// PathDirs are the directories on the command search path, protected
	// like ProtectedPaths: a file written there is a program the next
	// command may run by name. nil means the absolute entries of PATH in
	// Env (or the process's environment). Bash commands run without the
	// relative entries of PATH (".", "", "bin", "./node_modules/.bin").
	PathDirs []string
	// Shell runs Bash commands; "" means bash from PATH, else /bin/sh.
	Shell string
	// Env is the environment of Bash commands; nil means the process's.
	Env []string
	// MaxOutput is how many bytes of a command's output the model gets
	// (head and tail, the middle dropped); 0 means 30000.
	MaxOutput int
	// GrepEngine is "auto" (ripgrep when on PATH, the default), "rg" or "go".
	GrepEngine string
	// Sandbox, when set, runs every Bash command inside this OS sandbox
	// (see package sandbox): it may write only beneath the working
	// directories, the sandbox's extra paths and a private temporary
	// directory, cannot read the secret list, and has no network. Bash
	// results then say in their metadata which protections were in force.
	// Where the sandbox confines a command fully, Bash allows without
	// asking a command the analyser only asks about because it is unknown
	// or writes (Claude Code's auto-allow when sandboxed), but never one
	// that a deny or ask rule matches, that the analyser judged dangerous,
	// or that does harm inside the sandbox (git push, rm -r, git reset,
	// git clean, ...).
	Sandbox *sandbox.Sandbox
	// ExcludedCommands are Bash rule contents ("docker:*", "gh pr create")
	// of commands that run outside the sandbox, and so are judged as
	// without one. A command runs outside when any of its simple commands
	// matches (wrappers such as env or sudo looked through).
	ExcludedCommands []string
	// NoSandboxAutoAllow keeps asking about commands the sandbox would
	// have let run (Claude Code's autoAllowBashIfSandboxed: false).
	NoSandboxAutoAllow bool
	// Background lets Bash run commands in the background
	// (run_in_background), and adds BashOutput and KillShell to [All].
	// A background shell belongs to the agent's [tool.State] and lives in
	// this process only: set Background only in a program that outlives
	// the call – a serve session, an agent loop – and closes each agent's
	// state (tool.State.Close) when the agent ends, which kills its
	// shells. Without it (toolscope call: one process per call), Bash
	// refuses run_in_background with an error telling the model to run
	// the command in the foreground.
	Background bool
}

// All returns the built-in tools: Bash, Read, Write, Edit, Glob and Grep,
// and the task tools (see [Tasks]); with Options.Background, BashOutput
// and KillShell too.
func All(opts *Options) []tool.Tool {
	tools := append([]tool.Tool{NewBash(opts), NewRead(opts), NewWrite(opts), NewEdit(opts), NewNotebookEdit(opts), NewGlob(opts), NewGrep(opts)}, Tasks()...)
	if opts != nil && opts.Background {
		tools = append(tools, NewBashOutput(), NewKillShell())
	}
	return tools
}

// config is the resolved Options shared by the tools.
type config struct {
	root                    string // absolute, as given
	dangerFiles, dangerDirs []string
	pathDirs                []string // the protected PATH directories
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
	// nil stays nil: the policy's defaults are the whole protected class
	// (its globs too).
	c.dangerFiles, c.dangerDirs = c.opts.DangerousFiles, c.opts.DangerousDirs
	c.pathDirs = c.opts.PathDirs
	if c.pathDirs == nil {
		env := c.opts.Env
		if env == nil {
			env = os.Environ()
		}
		c.pathDirs = []string{}
		for _, e := range env {
			if v, ok := strings.CutPrefix(e, "PATH="); ok {
				c.pathDirs = pathpolicy.SplitPathList(v)
			}
		}
	}
	return c
}

// abs makes p absolute against the root, expanding a leading ~, without
// cleaning it: ".." is resolved the way the kernel resolves it, after the
// links before it (see package pathpolicy).
func (c *config) abs(p string) string {
	p = expandHome(p)
	if p == "" {
		return c.root
	}
	if !filepath.IsAbs(p) {
		p = c.root + "/" + p
	}
	return p
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return h + p[1:]
		}
	}
	return p
}

// canonical is where the absolute path p really leads, links (dangling ones
// too: writing through a link to a missing file creates its target) and
// ".." after them resolved as the kernel resolves them. A path that cannot
// be resolved is returned cleaned.
func canonical(p string) string {
	r, err := pathpolicy.Resolve(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return r.Path
}

// workingDirs returns the working directories: the root and the
// permission context's.
func (c *config) workingDirs(pc *permission.Context) []string {
	dirs := []string{c.root}
	if pc != nil {
		for _, d := range pc.WorkingDirs {
			dirs = append(dirs, c.abs(d))
		}
	}
	return dirs
}

// policy returns the path policy for one decision (see package pathpolicy).
func (c *config) policy(pc *permission.Context) *pathpolicy.Policy {
	return pathpolicy.New(&pathpolicy.Options{WorkingDirs: c.workingDirs(pc), ProtectedFiles: c.dangerFiles, ProtectedDirs: c.dangerDirs,
		ProtectedPaths: c.opts.ProtectedPaths, PathDirs: c.pathDirs})
}

// classify judges path (absolute, or relative to the root) for pc.
func (c *config) classify(path string, pc *permission.Context) pathpolicy.Path {
	abs := c.abs(path)
	x := c.policy(pc).Classify(abs)
	if streamPath(abs) || streamPath(x.Resolved.Path) {
		// In a shell command /dev/stdin is the command's own input; for a
		// file tool it is a descriptor of the host process, which may be
		// any file it has open: judge it a secret.
		x.Harmless, x.Secret, x.Protected = false, true, true
	}
	return x
}

// streamPath reports the paths that name a process's descriptors:
// /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N and
// /proc/<pid>/fd/N.
func streamPath(p string) bool {
	if p == "" {
		return false
	}
	c := filepath.Clean(p)
	switch c {
	case "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd":
		return true
	}
	if strings.HasPrefix(c, "/dev/fd/") {
		return true
	}
	if rest, ok := strings.CutPrefix(c, "/proc/"); ok {
		parts := strings.SplitN(rest, "/", 3)
		return len(parts) >= 2 && (parts[1] == "fd" || parts[1] == "fdinfo")
	}
	return false
}

// inWorkingDir reports the working directory that holds path once links
// are resolved ("" if none): a link inside the project that points outside
// is outside.
func (c *config) inWorkingDir(path string, pc *permission.Context) string {
	return c.classify(path, pc).Inside
}

// checkEdit is the permission check of Write and Edit: op is the tool
// ("Write"), verb how messages name what it does ("writing").
func (c *config) checkEdit(op, verb, path string, pc *permission.Context) permission.Decision {
	if path == "" {
		return permission.Decision{Behavior: permission.Passthrough, Message: "No file path"}
	}
	x := c.classify(path, pc)
	switch {
	case x.Protected:
		return permission.Decision{Behavior: permission.Ask, BypassImmune: true,
			Message: "Permission required: " + op + " operation on sensitive file " + path,
			Reason:  "Safety check: protected or secret file or directory (checked as written and where its links lead)"}
	case x.Err != nil:
		return permission.Decision{Behavior: permission.Passthrough,
			Message: "Permission required for " + verb + " " + path + " (the path cannot be resolved: " + x.Err.Error() + ")",
			Reason:  "Path check: " + x.Err.Error()}
	}
	if pc != nil && (pc.Mode == permission.AcceptEdits || pc.Mode == permission.DontAsk) && filepath.IsAbs(path) && x.Inside != "" {
		return permission.Decision{Behavior: permission.Allow,
			Message: "Permission granted for " + verb + " " + path + " (in working directory)",
			Reason:  "Mode " + string(pc.Mode) + ": inside the working directory " + x.Inside}
	}
	return permission.Decision{Behavior: permission.Passthrough, Message: "Permission required for " + verb + " " + path}
}

// checkRead is the permission check of Read, Grep and Glob: reading a secret
// asks even when a rule allows it; reading outside the working directories
// (and the harmless system paths) needs the user's consent or a rule.
func (c *config) checkRead(op, path string, pc *permission.Context) permission.Decision {
	x := c.classify(path, pc)
	switch {
	case x.Secret:
		return permission.Decision{Behavior: permission.Ask, BypassImmune: true,
			Message: "Permission required: " + op + " of " + path + ", which may hold credentials",
			Reason:  "Safety check: secret path (checked as written and where its links lead)"}
	case x.Err != nil:
		return permission.Decision{Behavior: permission.Passthrough,
			Message: "Permission required for " + op + " of " + path + " (the path cannot be resolved: " + x.Err.Error() + ")",
			Reason:  "Path check: " + x.Err.Error()}
	case x.Inside == "" && !x.Harmless:
		return permission.Decision{Behavior: permission.Passthrough,
			Message: "Permission required for " + op + " of " + path + ", outside the working directories",
			Reason:  "Path check: outside the working directories"}
	}
	return permission.Decision{Behavior: permission.Passthrough, Message: op + " of " + path}
}

// readOK is the read-only judgment of Read, Grep and Glob: the path is in a
// working directory (or a harmless system path) and is not secret.
func (c *config) readOK(ctx context.Context, path string) bool {
	var pc *permission.Context
	if st := tool.StateFromContext(ctx); st != nil {
		pc = st.Permissions()
	}
	return c.classify(path, pc).ReadOK()
}

// matchPath matches a path rule against a path, with Claude Code's anchors:
// "//abs/path" is absolute, "~/path" is in the home directory, "/path" is
// relative to the project root, and "path" or "./path" relative to the
// working directory (the root, for the file tools). As in .gitignore, a
// pattern without a slash matches a name at any depth ("Read(.env)",
// "Edit(*.pem)"), and a pattern that matches a directory matches
// everything below it ("Read(~/.ssh)"). An allow rule must match the path
// both as given and where its links lead; a deny or ask rule matches if
// either does.
func (c *config) matchPath(rule permission.Rule, path string) bool {
	if path == "" {
		path = c.root
	}
	pattern := c.rulePattern(rule.Content)
	p := filepath.Clean(c.abs(path))
	given := matchOrParent(pattern, p)
	real := matchOrParent(pattern, canonical(c.abs(path)))
	if rule.Behavior == permission.Allow {
		return given && real
	}
	return given || real
}

// rulePattern turns a rule's content into an absolute doublestar pattern.
func (c *config) rulePattern(content string) string {
	var base, pat string
	switch {
	case strings.HasPrefix(content, "//"):
		base, pat = "/", content[2:]
	case content == "~" || strings.HasPrefix(content, "~/"):
		base, pat = expandHome("~"), strings.TrimPrefix(strings.TrimPrefix(content, "~"), "/")
	case strings.HasPrefix(content, "/"):
		base, pat = c.root, content[1:]
	default:
		base, pat = c.root, strings.TrimPrefix(content, "./")
	}
	pat = strings.TrimSuffix(pat, "/")
	if pat == "" {
		return filepath.ToSlash(base)
	}
	if !strings.Contains(pat, "/") && base != "/" {
		pat = "**/" + pat // gitignore: a name at any depth
	}
	return strings.TrimSuffix(filepath.ToSlash(base), "/") + "/" + pat
}

// matchOrParent reports whether pattern matches p or a directory above it.
func matchOrParent(pattern, p string) bool {
	for q := filepath.ToSlash(p); ; q = filepath.Dir(q) {
		if ok, _ := doublestar.Match(pattern, q); ok {
			return true
		}
		if q == "/" || q == "." {
			return false
		}
	}
}

// rulePath writes an absolute path as a rule's content ("//abs/**", or
// "/rel/**" under the root).
func (c *config) rulePath(abs string) string {
	if rel, err := filepath.Rel(c.root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		if rel == "." {
			return "/**"
		}
		return "/" + filepath.ToSlash(rel) + "/**"
	}
	return "/" + filepath.ToSlash(abs) + "/**"
}

// suggestDir proposes an allow rule for the directory of path, or, when
// that directory is too broad to grant (the root, a top-level directory,
// the home directory or one that holds a secret location, an ancestor of
// the project), for the file alone.
func (c *config) suggestDir(toolName, path string) []permission.Rule {
	abs := canonical(c.abs(path))
	dir, isDir := abs, true
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		dir, isDir = filepath.Dir(abs), false
	}
	content := c.rulePath(dir)
	if c.tooBroad(dir) {
		if isDir {
			return nil
		}
		content = c.rulePathExact(abs)
	}
	return []permission.Rule{{Tool: toolName, Content: content, Behavior: permission.Allow, Source: "suggested"}}
}

// tooBroad reports a directory no suggested rule should grant whole.
func (c *config) tooBroad(dir string) bool {
	if dir == "/" || strings.Count(dir, "/") < 2 {
		return true
	}
	if c.root != "" && pathpolicy.Within(c.root, dir) && c.root != dir {
		return true // an ancestor of the project
	}
	return c.policy(nil).HoldsSecret(dir)
}

// rulePathExact is the rule content naming exactly the file abs.
func (c *config) rulePathExact(abs string) string {
	if rel, err := filepath.Rel(c.root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return "/" + filepath.ToSlash(rel)
	}
	return "/" + filepath.ToSlash(abs)
}

// searchExcludes are the patterns Grep and Glob never search or list
// besides secretGlobs: every Read deny rule's, matched with their case, as
// the rules are.
func (c *config) searchExcludes(pc *permission.Context) []string {
	var out []string
	if pc == nil {
		return out
	}
	for _, r := range pc.Deny {
		if r.Tool != "Read" || r.Content == "" {
			continue
		}
		out = append(out, c.rulePattern(r.Content))
	}
	return out
}

// schemaProps holds the property names of the tools' input schemas: a
// schema is fixed, and decoding it again for every call (to tell the
// parameters a call should not have) cost more than a no-op call's tool.
var schemaProps struct {
	sync.Mutex
	m map[string]map[string]bool
}

// schemaProperties returns the names of schema's properties; ok is false
// when schema is not a JSON object.
func schemaProperties(schema json.RawMessage) (props map[string]bool, ok bool) {
	schemaProps.Lock()
	props, ok = schemaProps.m[string(schema)]
	schemaProps.Unlock()
	if ok {
		return props, true
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil, false
	}
	props = make(map[string]bool, len(s.Properties))
	for k := range s.Properties {
		props[k] = true
	}
	schemaProps.Lock()
	if schemaProps.m == nil || len(schemaProps.m) >= 64 {
		schemaProps.m = map[string]map[string]bool{}
	}
	schemaProps.m[string(schema)] = props
	schemaProps.Unlock()
	return props, true
}

// secretGlobs is the secret policy's exclusion list, made once (it is
// fixed): the search tools send it with every call as ExcludeFold,
// matched regardless of case, as Read judges names.
var secretGlobs = sync.OnceValue(pathpolicy.SecretGlobs)

// hints are a built-in tool's MCP annotations: whether it only reads,
// whether it may destroy data, whether calling it twice with the same input
// does nothing more than once, and whether it reaches beyond the machine's
// files (a shell command can).
func hints(readOnly, destructive, idempotent, openWorld bool) *tool.Annotations {
	return &tool.Annotations{ReadOnlyHint: &readOnly, DestructiveHint: &destructive, IdempotentHint: &idempotent, OpenWorldHint: &openWorld}
}

// noted streams seq, then, when the input has keys the schema does not
// know, a note naming them: models add stray parameters, and a call that
// ignores them beats one that fails, as long as the model hears of it.
func noted(schema, input json.RawMessage, seq iter.Seq2[*tool.Chunk, error]) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		for c, err := range seq {
			if !yield(c, err) || err != nil {
				return
			}
		}
		if note := unknownNote(schema, input); note != "" {
			yield(tool.Text(note), nil)
		}
	}
}

// unknownNote says which keys of input the schema's properties lack, and
// which it has; "" when there are none. It names at most maxUnknownNamed
// keys, each cut to maxKeyEcho bytes, and never a value: a note about
// stray parameters stays a line, whatever the model sent.
func unknownNote(schema, input json.RawMessage) string {
	var in map[string]skipValue
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	props, ok := schemaProperties(schema)
	if !ok {
		return ""
	}
	var unknown []string
	for k := range in {
		if !props[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	slices.Sort(unknown)
	more := ""
	if len(unknown) > maxUnknownNamed {
		more = fmt.Sprintf(" and %d more", len(unknown)-maxUnknownNamed)
		unknown = unknown[:maxUnknownNamed]
	}
	for i, k := range unknown {
		unknown[i] = clip.String(k, maxKeyEcho)
	}
	known := slices.Sorted(maps.Keys(props))
	return fmt.Sprintf("\n\nNote: the parameter(s) %s%s are not known to this tool and were ignored. It takes: %s.", strings.Join(unknown, ", "), more, strings.Join(known, ", "))
}

// How much of the unknown keys a note names.
const (
	maxUnknownNamed = 20
	maxKeyEcho      = 200
)

// skipValue decodes any JSON value into nothing: the keys of an input
// are read without a copy of its values (a Write's content).
type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }

// The built-in tools' input schemas are constants, which
// TestBuiltinSchemasCompile compiles: a Toolkit compiles each at the tool's
// first use ([tool.TestedSchema]), and a process that checks one call
// compiles one.
func (*Bash) SchemaTested()         {}
func (*Read) SchemaTested()         {}
func (*Write) SchemaTested()        {}
func (*Edit) SchemaTested()         {}
func (*Glob) SchemaTested()         {}
func (*Grep) SchemaTested()         {}
func (taskTool) SchemaTested()      {}
func (*BashOutput) SchemaTested()   {}
func (*KillShell) SchemaTested()    {}
func (*NotebookEdit) SchemaTested() {}
