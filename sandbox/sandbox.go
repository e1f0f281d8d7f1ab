package sandbox

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/toolscope/toolscope/internal/pathpolicy"
)

// Protection names, as [Status] and the Bash tool's result metadata report
// them.
const (
	// FilesystemWrites: writes only to the working directories, the
	// configured extra paths, the private temporary directory and the
	// sandbox's cache (Landlock).
	FilesystemWrites = "filesystem-writes"
	// ProtectedPaths: the members of the protected class (the repository's
	// .git, nested ones too, .claude, .vscode, .envrc, *.pth, ...) in the
	// writable directories, at any depth, are read-only and cannot be
	// renamed away (read-only bind mounts in a private mount namespace);
	// the protected directories at the top that did not exist cannot be
	// made; [Run.Quarantine] moves aside the others the command made.
	// Missing when a writable directory holds more directories than a scan
	// reads (50 000).
	ProtectedPaths = "protected-paths"
	// ReadOnlyRoot: every mount but the writable paths is read-only, so
	// chmod, chown, timestamps and extended attributes cannot change
	// outside them either (Landlock does not restrict those).
	ReadOnlyRoot = "read-only-root"
	// HomeReads: the home directories cannot be read, but for the working
	// directories, toolchains and their caches ([DefaultHomeReads]) and
	// [Config.AllowRead] (Landlock). Their entries can still be listed.
	HomeReads = "home-reads"
	// SecretReads: the secret paths (~/.ssh, ~/.aws, ~/.netrc, .env, ...)
	// cannot be read: each is covered by an empty directory or by a socket
	// inode that open(2) refuses.
	SecretReads = "secret-reads"
	// Network: no network at all; the command has a private loopback, so
	// its own servers on 127.0.0.1 work while the host's are unreachable
	// (a network namespace).
	Network = "network"
	// NetworkProxy: the network is limited to [Config.AllowedDomains]:
	// the command is in a network namespace of its own with no route out
	// (a private loopback), and a proxy outside, which its HTTP_PROXY,
	// HTTPS_PROXY and ALL_PROXY name, connects only to the allowed hosts.
	NetworkProxy = "network-proxy"
	// NetworkTCP: TCP connect and bind fail (Landlock ABI 4), the fallback
	// where network namespaces are not available; UDP is not covered.
	NetworkTCP = "network-tcp"
	// UnixSockets: socket(AF_UNIX) fails, so pathname sockets outside the
	// sandbox (Docker's, systemd's, an SSH agent) are out of reach (seccomp).
	UnixSockets = "unix-sockets"
	// Signals: signals and abstract sockets cannot reach processes outside
	// the sandbox (Landlock ABI 6 scopes).
	Signals = "signals"
	// SyscallFilter: no 32-bit syscalls, no io_uring, no mount calls, no new
	// mount or user namespaces, no file handles, keyrings, bpf or module
	// loading (seccomp).
	SyscallFilter = "syscall-filter"
	// NoNewPrivileges: setuid programs gain nothing.
	NoNewPrivileges = "no-new-privileges"
	// UserNamespace: the command's root (if any) has no privilege over the
	// host.
	UserNamespace = "user-namespace"
	// PIDNamespace: no process of the command outlives it (the kernel
	// ends them all when the command's shell, the namespace's init, exits).
	PIDNamespace = "pid-namespace"
	// PrivateProc: /proc shows only the command's own processes, not the
	// host's command lines (which can hold passwords).
	PrivateProc = "private-proc"
	// NoCapabilities: the command runs with no capabilities, and no exec
	// gives it any (empty bounding set, locked securebits): root without
	// a user namespace is an ordinary user that owns root's files, and
	// root in one holds no capability there either.
	NoCapabilities = "no-capabilities"
	// MountLock: the command holds no capability over its mounts and
	// cannot make or change mounts, so the mounts that make
	// [ProtectedPaths], [ReadOnlyRoot] and [SecretReads] hold, as root
	// too (the helper drops every capability in the user namespace that
	// owns the mount namespace; seccomp refuses the mount calls besides).
	MountLock = "mount-lock"
)

// Config says what a sandboxed command may do. The zero value is the
// strictest useful sandbox: write only to the working directories and a
// private temporary directory, no network, no Unix sockets, secrets
// hidden. Field names follow Claude Code's sandbox settings where they
// exist.
type Config struct {
	// Required refuses to run a command when a protection the Config asks
	// for is not in force here (instead of running it with what there is).
	Required bool
	// AllowWrite are extra absolute paths the command may write beneath.
	AllowWrite []string
	// DenyRead are extra absolute paths the command may not read, besides
	// the secret list.
	DenyRead []string
	// ProtectedPaths are absolute paths kept read-only, with everything
	// below them, where they lie in a writable directory (toolscope's own
	// state and configuration files, say), besides the protected names,
	// the directories on the command's $PATH and the directory a
	// repository's core.hooksPath names, which are always.
	ProtectedPaths []string
	// AllowRead are absolute paths inside the home directory the command
	// may read (with everything below them), besides the working
	// directories and [DefaultHomeReads]. The rest of the home directory
	// cannot be read: credentials are too many to list.
	AllowRead []string
	// Network is "" or "off" (no network; a private loopback), or "on"
	// (the host's network, unrestricted).
	Network string
	// AllowedDomains, when not empty (and Network is not "on"), let the
	// command reach these hosts, and only these, through a proxy this
	// process runs: the command stays in a network namespace with no
	// route out, and its HTTP_PROXY, HTTPS_PROXY, ALL_PROXY (and the
	// lower-case ones) name the proxy, which listens on the command's
	// loopback; NO_PROXY is "localhost,127.0.0.1,::1", so the command's
	// own servers are reached directly. The proxy takes CONNECT (HTTPS,
	// or any TCP a client tunnels) and plain HTTP requests for absolute
	// URLs; a program that ignores the proxy variables reaches nothing.
	//
	// Entries are Claude Code's sandbox.network.allowedDomains patterns:
	// "example.com" (that host), "*.example.com" (its subdomains, not
	// example.com itself), "localhost" or an IP address ("192.0.2.7",
	// "[2001:db8::1]"), each with an optional ":port". The proxy resolves
	// names itself and connects to the address it checked; an address
	// that is not on the public Internet (loopback, private, link-local)
	// is reached only through an entry that names the host exactly, never
	// through a wildcard. A refused request gets status 403 and a text
	// that names the host and this setting.
	//
	// Where network namespaces are not available, an allow-list cannot be
	// enforced: the network is off instead (TCP blocked by Landlock), and
	// [Status] lists [NetworkProxy] missing.
	AllowedDomains []string
	// DeniedDomains are refused even when AllowedDomains match them (the
	// same patterns).
	DeniedDomains []string
	// AllowUnixSockets lets the command create Unix sockets (and so reach
	// pathname sockets outside the sandbox, such as Docker's).
	AllowUnixSockets bool
	// CacheDir is a writable directory for build caches private to
	// sandboxed commands (GOCACHE, XDG_CACHE_HOME and npm's cache point
	// into it, so a sandboxed command cannot poison the caches that
	// unsandboxed builds use). "" means the user cache directory's
	// toolscope/sandbox.
	CacheDir string
	// Home is where the secret list is looked up (~/.ssh, ...) and the
	// home directory whose files the command cannot read; "" means the
	// HOME of the command's environment, else os.UserHomeDir. The home
	// directory of the user in the password database is unreadable too.
	Home string
}

// Sandbox runs commands under a Config. It is safe for concurrent use.
type Sandbox struct {
	cfg Config

	probeOnce sync.Once
	level     level
	status    *Status
	probeErr  error

	tree treeCache // what the scans of the writable directories read

	allow, deny domainList // AllowedDomains and DeniedDomains, parsed
	lookup      lookupFunc // the proxy's resolver (tests set it); nil: the system's
}

// New returns a sandbox for cfg (nil means the zero Config). It fails on a
// Config it cannot honour.
func New(cfg *Config) (*Sandbox, error) {
	s := &Sandbox{}
	if cfg != nil {
		s.cfg = *cfg
	}
	switch s.cfg.Network {
	case "", "off", "on":
	default:
		return nil, fmt.Errorf("sandbox: network %q: use \"off\" or \"on\", or list the hosts in AllowedDomains", s.cfg.Network)
	}
	var err error
	if s.allow, err = parseDomainList("allowedDomains", s.cfg.AllowedDomains); err != nil {
		return nil, err
	}
	if s.deny, err = parseDomainList("deniedDomains", s.cfg.DeniedDomains); err != nil {
		return nil, err
	}
	if len(s.allow) > 0 && s.cfg.Network == "on" {
		return nil, errors.New("sandbox: network \"on\" and a list of allowed domains contradict each other: \"on\" allows every host; drop one")
	}
	for _, list := range [][]string{s.cfg.AllowWrite, s.cfg.DenyRead, s.cfg.AllowRead, s.cfg.ProtectedPaths} {
		for _, p := range list {
			if !filepath.IsAbs(p) {
				return nil, fmt.Errorf("sandbox: %q is not an absolute path", p)
			}
		}
	}
	if s.cfg.CacheDir == "" {
		if d, err := os.UserCacheDir(); err == nil {
			s.cfg.CacheDir = filepath.Join(d, "toolscope", "sandbox")
		}
	}
	return s, nil
}

// Config returns the sandbox's configuration.
func (s *Sandbox) Config() Config { return s.cfg }

func (s *Sandbox) networkOff() bool { return s.cfg.Network != "on" }

// proxied reports whether the network is an allow-list through the proxy.
func (s *Sandbox) proxied() bool { return s.networkOff() && len(s.allow) > 0 }

// Missing is a protection that is not in force, and why.
type Missing struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// Status lists the protections in force for a command, or, from
// [Sandbox.Status], for the commands this sandbox would run on this
// machine. It never names a protection that is not in force: each active
// entry is what the helper process reported after it had set it up.
type Status struct {
	Platform    string    `json:"platform"`
	LandlockABI int       `json:"landlock_abi"`
	Active      []string  `json:"active"`
	Missing     []Missing `json:"missing,omitempty"`
	// AllowedDomains are the hosts the command may reach through the
	// proxy, when [NetworkProxy] is active; DeniedDomains those refused
	// even so.
	AllowedDomains []string `json:"allowed_domains,omitempty"`
	DeniedDomains  []string `json:"denied_domains,omitempty"`
}

// Has reports whether protection name is in force.
func (st *Status) Has(name string) bool { return st != nil && slices.Contains(st.Active, name) }

// Confines reports whether the status bounds what a command can do well
// enough to run it without asking: writes confined to the writable paths,
// with the protected paths read-only, secrets hidden, the home directory
// unreadable, no network but the allowed domains (if any), and the
// mounts that do this out of the command's reach.
func (st *Status) Confines() bool {
	return st.Has(FilesystemWrites) && st.Has(ReadOnlyRoot) && st.Has(ProtectedPaths) && st.Has(SecretReads) &&
		st.Has(HomeReads) && (st.Has(Network) || st.Has(NetworkProxy)) && st.Has(MountLock)
}

// String is a one-line summary: "filesystem-writes, network, ...; missing:
// signals (needs Landlock ABI 6)".
func (st *Status) String() string {
	if st == nil {
		return "off"
	}
	s := strings.Join(st.Active, ", ")
	if len(st.Missing) > 0 {
		var m []string
		for _, x := range st.Missing {
			m = append(m, x.Name+" ("+x.Why+")")
		}
		s += "; missing: " + strings.Join(m, ", ")
	}
	return s
}

// ErrUnsupported is returned where the platform has no sandbox.
var ErrUnsupported = errors.New("sandbox: not supported on this platform")

// Run is one command's sandbox: its private temporary directory and the
// plan the helper carries out. Make one with [Sandbox.NewRun], attach it
// to an exec.Cmd with [Run.Wrap], start the command, call [Run.Report],
// and Close it after the command has been waited for.
type Run struct {
	s          *Sandbox
	dirs       []string
	tmp        string
	cmd        *exec.Cmd
	closers    []*os.File
	report     *os.File
	extra      []Missing
	level      level
	absent     []string      // protected paths that did not exist when the plan was made
	probing    bool          // the status probe: Required does not refuse
	scans      []*treeScan   // what the scan of each writable directory found before the command
	incomplete []string      // writable directories with more directories than a scan reads
	linked     []string      // Run.linkedDirs, once
	journal    string        // the placeholders' journal ("" until the first)
	places     []placeholder // the placeholders made for protected names that did not exist, and those adopted
	adopted    []string      // other runs' placeholders this run found and holds
	proxy      *proxy        // the allow-list's proxy, from Wrap to Close
}

// RefusedHosts returns the destinations ("host:port") the allow-list's
// proxy refused for the command so far (nil without an allow-list): a
// caller can tell the user which setting to change.
func (r *Run) RefusedHosts() []string {
	if r.proxy == nil {
		return nil
	}
	return r.proxy.refusedHosts()
}

// Created returns the members of the protected class (pathpolicy's:
// .git, .claude, .vscode, .envrc, .npmrc, *.pth, ... at any depth of a
// writable directory, up to the scan's bound) that were made while the
// command ran: paths that did not exist when the command was wrapped, or
// that are another file now (a parent renamed away and the path made
// again). Read-only binds keep the command from changing the ones that
// existed, and placeholders from creating the protected directories at
// the top, but nothing in the kernel keeps it from creating a name
// anywhere else; call Created, or [Run.Quarantine], after the command
// and before Close.
//
// Created cannot tell who made a path: someone outside the sandbox may
// have made it meanwhile.
func (r *Run) Created() []string {
	out, _ := r.created()
	return out
}

func (r *Run) created() (out, unchecked []string) {
	below, unchecked := r.createdBelow()
	for _, p := range append(r.absent, below...) {
		if _, err := os.Lstat(p); err == nil && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, unchecked
}

// Blocked is a protected path a sandboxed command made, moved aside so
// that nothing runs it or takes permissions from it.
type Blocked struct {
	Path    string `json:"path"`
	MovedTo string `json:"moved_to,omitempty"` // "" when it could not be moved
	Why     string `json:"why"`                // what runs it, or what it grants
	Error   string `json:"error,omitempty"`    // why it could not be moved
}

// QuarantineSuffix ends the name a protected path made in the sandbox is
// moved to, in its own directory: "x/.git~toolscope-blocked". No program
// reads a protected file under that name, and no pattern of the class
// matches it.
const QuarantineSuffix = "~toolscope-blocked"

// Quarantine moves aside what [Run.Created] returns, but for the paths
// keep says to keep (the caller's own approved writes made meanwhile, by
// a file tool outside the sandbox; nil keeps none): each is renamed, in
// its directory, to its name with [QuarantineSuffix] (and a random part
// when that name is taken). A command the sandbox let run without asking
// cannot leave behind a hook, a settings file or a start-up file that a
// program outside runs later; the user can move one back. Call it after
// the command has been waited for (nothing of it runs any more) and before
// Close. The error says where it could not look (a directory the command
// changed that this process cannot read and does not own, which it would
// give read permission back to; more directories than a scan reads): what
// is there was not checked.
func (r *Run) Quarantine(keep func(path string) bool) ([]Blocked, error) {
	var out []Blocked
	created, unchecked := r.created()
	for _, p := range created {
		if keep != nil && keep(p) {
			continue
		}
		b := Blocked{Path: p, Why: "a protected path"}
		if e, ok := pathpolicy.MemberOf(p); ok {
			b.Why = e.Why
		} else if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			b.Why = "a link into the sandbox's cache, which commands write without asking: what it leads to (an .envrc, a .git) would run as the project's"
		}
		to, err := moveAside(p)
		if err != nil {
			b.Error = err.Error()
		} else {
			b.MovedTo = to
		}
		out = append(out, b)
	}
	if len(unchecked) > 0 {
		return out, fmt.Errorf("sandbox: protected files the command made may remain unchecked in %s", strings.Join(unchecked, "; "))
	}
	return out, nil
}

// moveAside renames p to a free name ending in QuarantineSuffix: the
// plain one, or one with a random part, which a command cannot have taken
// in advance. A directory the command made read-only gets its owner's
// write permission back for the rename.
func moveAside(p string) (string, error) {
	var err error
	for i := 0; i < 8; i++ {
		to := p + QuarantineSuffix
		if i > 0 {
			to += "-" + rand.Text()[:10]
		}
		if _, lerr := os.Lstat(to); lerr == nil {
			continue
		}
		if err = os.Rename(p, to); err == nil {
			return to, nil
		}
		if errors.Is(err, os.ErrPermission) {
			if fi, serr := os.Stat(filepath.Dir(p)); serr == nil && fi.Mode().Perm()&0o300 != 0o300 {
				if os.Chmod(filepath.Dir(p), fi.Mode().Perm()|0o300) == nil {
					err = os.Rename(p, to)
					os.Chmod(filepath.Dir(p), fi.Mode().Perm())
					if err == nil {
						return to, nil
					}
				}
			}
		}
		return "", err
	}
	return "", fmt.Errorf("sandbox: no free name to move %s aside to", p)
}

// TempDir is the run's private temporary directory: writable, and the
// command's TMPDIR. Close removes it.
func (r *Run) TempDir() string { return r.tmp }

// Close removes the private temporary directory and releases the pipes;
// with an allow-list, it stops the proxy: the listener in the command's
// network namespace and every connection close, and Close returns when
// nothing of the proxy runs.
func (r *Run) Close() error {
	for _, f := range r.closers {
		f.Close()
	}
	r.closers = nil
	if r.proxy != nil {
		r.proxy.close()
	}
	if r.report != nil {
		r.report.Close()
		r.report = nil
	}
	r.closePlaceholders()
	if r.tmp == "" {
		return nil
	}
	err := os.RemoveAll(r.tmp)
	r.tmp = ""
	return err
}

// cacheEnv points the usual build caches into dir.
func cacheEnv(dir string) []string {
	return []string{
		"GOCACHE=" + filepath.Join(dir, "go-build"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "xdg"),
		"npm_config_cache=" + filepath.Join(dir, "npm"),
	}
}

// setEnv returns env with the given KEY=VALUE entries replacing any of the
// same keys.
func setEnv(env []string, kv ...string) []string {
	out := make([]string, 0, len(env)+len(kv))
	for _, e := range env {
		k, _, _ := strings.Cut(e, "=")
		if !slices.ContainsFunc(kv, func(x string) bool { return strings.HasPrefix(x, k+"=") }) {
			out = append(out, e)
		}
	}
	return append(out, kv...)
}

func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}
