//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/toolscope/toolscope/internal/pathpolicy"
	"github.com/toolscope/toolscope/internal/proc"
	"github.com/toolscope/toolscope/internal/sbinit"
)

type level int

const (
	levelNone   level = iota // Landlock, seccomp and no_new_privs only
	levelUserNS              // also a user, mount and (network off) network namespace
)

// Capabilities the helper needs in its user namespace (linux/capability.h).
const (
	capSetpcap  = 8
	capNetAdmin = 12
	capSysAdmin = 21
)

// forceLevel, set by tests, makes the probe start at a lower level (what a
// machine without user namespaces gets).
var forceLevel *level

// devices the command may open for writing.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// maxSpec keeps the spec within a pipe's buffer, so it can be written
// before the helper starts.
const maxSpec = 60 << 10

// Status probes this machine once (it runs the helper with an empty shell
// command, about as long as one sandboxed command takes to start) and
// reports the protections the sandbox's commands run under. The error is
// set only when the helper cannot run at all.
func (s *Sandbox) Status(ctx context.Context) (*Status, error) {
	s.probeOnce.Do(s.probe)
	return s.status, s.probeErr
}

func (s *Sandbox) probe() {
	sh := "/bin/sh"
	try := func(l level) (*Status, error) {
		r, err := s.newRun(nil, l)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		r.probing = true
		cmd := proc.Command(context.Background(), sh, "-c", ":")
		cmd.Dir = "/"
		if err := r.Wrap(cmd); err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		st, rerr := r.Report()
		werr := cmd.Wait()
		if rerr != nil {
			return st, rerr
		}
		if werr != nil {
			return st, fmt.Errorf("sandbox: the probe command failed: %w", werr)
		}
		return st, nil
	}
	first := levelUserNS
	if forceLevel != nil {
		first = *forceLevel
	}
	st, err := try(first)
	s.level = first
	var nsErr bool
	if err != nil && first == levelUserNS {
		var pe *os.SyscallError
		var errno syscall.Errno
		nsErr = errors.As(err, &pe) || errors.As(err, &errno)
	}
	if err != nil && nsErr {
		// User namespaces refused (a sysctl, AppArmor's restriction, a
		// container without them): Landlock and seccomp only.
		why := "user namespaces are not available: " + err.Error()
		s.level = levelNone
		st, err = try(levelNone)
		if st != nil {
			for i, m := range st.Missing {
				if m.Name == UserNamespace {
					st.Missing[i].Why = why
				}
			}
		}
	}
	s.status, s.probeErr = st, err
}

// NewRun prepares a sandbox for one command that may write beneath
// workingDirs (absolute). It creates the private temporary directory.
func (s *Sandbox) NewRun(workingDirs []string) (*Run, error) {
	s.probeOnce.Do(s.probe)
	if s.probeErr != nil {
		return nil, s.probeErr
	}
	return s.newRun(workingDirs, s.level)
}

func (s *Sandbox) newRun(dirs []string, l level) (*Run, error) {
	tmp, err := os.MkdirTemp("", "toolscope-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: private temporary directory: %w", err)
	}
	if t, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = t
	}
	r := &Run{s: s, dirs: dirs, tmp: tmp, level: l}
	if l == levelNone {
		r.extra = append(r.extra,
			Missing{UserNamespace, "user namespaces are not available (kernel.unprivileged_userns_clone, user.max_user_namespaces or AppArmor's restriction)"},
			Missing{PIDNamespace, "needs a user namespace; a process that leaves the process group and clears its environment can outlive the command"},
			Missing{ProtectedPaths, "needs a mount namespace (user namespaces are not available)"},
			Missing{ReadOnlyRoot, "needs a mount namespace (user namespaces are not available)"},
			Missing{SecretReads, "needs a mount namespace (user namespaces are not available)"},
			Missing{MountLock, "needs a mount namespace (user namespaces are not available)"})
		if s.networkOff() {
			r.extra = append(r.extra, Missing{Network, "needs a network namespace (user namespaces are not available); TCP is blocked by Landlock instead"})
		}
		if s.proxied() {
			r.extra = append(r.extra, Missing{NetworkProxy, "the allow-list needs a network namespace (user namespaces are not available): the network is off instead, and no allowed domain can be reached"})
		}
	}
	if !s.networkOff() {
		r.extra = append(r.extra, Missing{Network, "the configuration turns the network on"})
	}
	return r, nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// canonical resolves links, so Landlock and the mounts see the paths the
// kernel will.
func canonical(p string) (string, bool) {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	return r, true
}

// plan encodes what the helper does for cmd.
func (r *Run) plan(home string, env []string) ([]byte, int, error) {
	s := r.s
	r.linked = r.linkedDirs()
	var spec []byte
	flags := 0
	if s.networkOff() {
		if r.level == levelUserNS {
			flags |= sbinit.FlagNetNS
		} else {
			flags |= sbinit.FlagLandlockNet
		}
	}
	if !s.cfg.AllowUnixSockets {
		flags |= sbinit.FlagNoUnix
	}
	if s.cfg.Required && !r.probing {
		flags |= sbinit.FlagStrict
	}
	if r.level == levelUserNS {
		// The helper drops every capability before it executes the
		// command, which then holds none over the mounts that make the
		// sandbox (see MountLock).
		flags |= sbinit.FlagMountNS | sbinit.FlagPIDNS | sbinit.FlagDropCaps
	} else if os.Getuid() == 0 {
		flags |= sbinit.FlagDropCaps
	}
	// Reads: everything but /dev, whose disks and terminals are no file of
	// the command's (a raw disk holds every secret the masks hide), and
	// the home directories, which hold more credentials than any list
	// names; in /dev only the harmless devices, in the homes only the
	// toolchains (homeReads) and the working directories (their write
	// rules below). Every directory may be listed.
	spec = sbinit.Append(spec, sbinit.TagList, "/")
	homes := homesOf(home)
	reads, ok := readableExcept(append([]string{"/dev"}, homes...))
	if ok {
		flags |= sbinit.FlagHomeReads
		reads = append(reads, homeReads(homes, s.cfg.AllowRead, env)...)
	} else {
		// A home among too many entries (a HOME in a crowded /tmp):
		// reads are not confined there, and the status says so.
		reads, _ = readableExcept([]string{"/dev"})
		r.extra = append(r.extra, Missing{HomeReads, "the home directory's parent has too many entries to list"})
	}
	for _, p := range reads {
		spec = sbinit.Append(spec, sbinit.TagRead, p)
	}
	for _, d := range append(devices, "/dev/tty") {
		spec = sbinit.Append(spec, sbinit.TagRead, d)
	}
	if exists("/dev/shm") {
		spec = sbinit.Append(spec, sbinit.TagRead, "/dev/shm")
	}

	var roots []string // writable directories the user's work lives in
	for _, d := range append(append([]string(nil), r.dirs...), s.cfg.AllowWrite...) {
		if c, ok := canonical(d); ok {
			roots = append(roots, c)
		}
	}
	writable := append([]string{r.tmp}, roots...)
	if s.cfg.CacheDir != "" {
		if err := os.MkdirAll(s.cfg.CacheDir, 0o700); err == nil {
			if c, ok := canonical(s.cfg.CacheDir); ok {
				writable = append(writable, c)
			}
		}
	}
	for _, w := range writable {
		spec = sbinit.Append(spec, sbinit.TagWrite, w)
	}
	for _, d := range devices {
		spec = sbinit.Append(spec, sbinit.TagWriteFile, d)
	}
	if r.level == levelUserNS {
		if exists("/dev/shm") {
			spec = sbinit.Append(spec, sbinit.TagTmpfs, "/dev/shm")
			spec = sbinit.Append(spec, sbinit.TagWrite, "/dev/shm")
		}
		var masks []string
		protect := roots
		for _, root := range roots {
			if pathpolicy.Within(home, root) && home != root {
				// A home inside a writable directory: its start-up files
				// are protected like the project's.
				protect = append(slices.Clone(roots), home)
				break
			}
		}
		var want, adopt []placeholder
		handled := map[string]bool{} // the top's names, bound or masked by name
		for _, root := range protect {
			// The whole repository is read-only, not only hooks and config:
			// git takes code to run from more places a command could
			// create (.git/commondir pointing at a config of its own, the
			// hooks and config of .git/modules/* and .git/worktrees/*). Git
			// commands that write (add, commit, checkout) fail inside the
			// sandbox; they run outside it as excludedCommands, or asked
			// for. The read-only mount point cannot be moved either.
			//
			// A protected directory that does not exist gets an empty
			// placeholder, made read-only like the rest, so the command
			// cannot create it (a .claude/settings.local.json, a
			// .vscode/tasks.json or a .git/hooks that a tool outside would
			// run), and so do the files of placeholderFiles; Close removes
			// the placeholders, and the next run removes those of a run
			// that was killed before. (Empty directories are invisible to
			// git; the other protected files that did not exist are
			// reported by Created after the command.)
			for _, n := range append(append([]string(nil), pathpolicy.DefaultProtectedFiles...), pathpolicy.DefaultProtectedDirs...) {
				p := filepath.Join(root, n)
				handled[p] = true
				if !exists(p) {
					dir := slices.Contains(pathpolicy.DefaultProtectedDirs, n) && !slices.Contains(vcsDirs, n)
					if dir || slices.Contains(placeholderFiles, n) {
						want = append(want, placeholder{Path: p, Dir: dir})
					} else {
						r.absent = append(r.absent, p)
					}
					continue
				}
				if ph, ok := placeholderAt(p); ok {
					// Another run's placeholder: this run holds it too,
					// so that run's end does not remove it under this one.
					adopt = append(adopt, ph)
				}
				if pathpolicy.SecretName(filepath.Base(n)) {
					masks = append(masks, p)
				} else {
					spec = sbinit.Append(spec, sbinit.TagReadOnly, p)
				}
			}
			// Below the top, and the top's other members (a *.pth, an
			// .env.local): the scan finds them at any depth. A directory
			// below another (a home inside the project) is in that one's.
			if slices.ContainsFunc(protect, func(o string) bool { return o != root && pathpolicy.Within(root, o) }) {
				continue
			}
			ts := s.tree.scan(root, maxTreeDirs, r.linked...)
			r.scans = append(r.scans, ts)
			if !ts.complete {
				r.incomplete = append(r.incomplete, root)
			}
			for _, p := range ts.bind {
				if !handled[p] {
					spec = sbinit.Append(spec, sbinit.TagReadOnly, p)
				}
			}
			for _, p := range ts.secrets {
				if !handled[p] {
					masks = append(masks, p)
				}
			}
		}
		// The protected class beyond names: the directories on the
		// command's $PATH (a project's .venv/bin or node_modules/.bin,
		// whose programs the next command runs by name), the directory
		// core.hooksPath names, and Config.ProtectedPaths, where they
		// lie below a writable directory (elsewhere everything is
		// read-only already). One that holds a writable directory is
		// left out: it would make the project read-only.
		pol := pathpolicy.New(&pathpolicy.Options{WorkingDirs: roots, Home: home,
			PathDirs: pathpolicy.SplitPathList(envValue(env, "PATH")), ProtectedPaths: s.cfg.ProtectedPaths})
		for _, p := range pol.ProtectedPaths() {
			below, holds := false, false
			for _, root := range roots {
				below = below || pathpolicy.Within(p, root) && p != root
				holds = holds || pathpolicy.Within(root, p)
			}
			switch {
			case !below || holds:
			case exists(p):
				spec = sbinit.Append(spec, sbinit.TagReadOnly, p)
			default:
				// One the command makes (a .venv/bin on $PATH) is moved
				// aside after it.
				r.absent = append(r.absent, p)
			}
		}
		r.makePlaceholders(want, adopt)
		for _, x := range want {
			if r.isPlaceholder(x.Path) {
				spec = sbinit.Append(spec, sbinit.TagReadOnly, x.Path)
			} else {
				r.absent = append(r.absent, x.Path)
			}
		}
		for _, p := range append(pathpolicy.SecretPaths(home), s.cfg.DenyRead...) {
			if exists(p) {
				masks = append(masks, p)
			}
		}
		if keys, _ := filepath.Glob("/etc/ssh/ssh_host_*_key"); len(keys) > 0 {
			masks = append(masks, keys...)
		}
		if len(masks) > 0 {
			src := filepath.Join(r.tmp, ".mask")
			if err := syscall.Mknod(src, syscall.S_IFSOCK, 0); err != nil {
				return nil, 0, fmt.Errorf("sandbox: mask inode: %w", err)
			}
			spec = sbinit.Append(spec, sbinit.TagMaskSrc, src)
			for _, m := range masks {
				spec = sbinit.Append(spec, sbinit.TagMask, m)
			}
		}
	}
	// The flags go first: the helper reads them before the rest.
	spec = append(sbinit.Append(nil, sbinit.TagFlags, strconv.Itoa(flags)), spec...)
	return spec, flags, nil
}

// Wrap changes cmd, which must not have been started, so that it runs in
// the sandbox: cmd then starts the helper (this binary, re-executed), which
// sets the sandbox up and executes the original command. The command's
// TMPDIR is the run's private directory, and GOCACHE, XDG_CACHE_HOME and
// npm's cache point into the sandbox's cache. A process-group leader
// (Setpgid) becomes a session leader (Setsid), so it has no controlling
// terminal to inject input into.
func (r *Run) Wrap(cmd *exec.Cmd) error {
	if r.tmp == "" {
		return errors.New("sandbox: Wrap on a closed Run")
	}
	if r.cmd != nil {
		return errors.New("sandbox: a Run wraps one command")
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	home := r.s.cfg.Home
	if home == "" {
		home = envValue(env, "HOME")
	}
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if c, ok := canonical(home); ok {
		home = c
	}
	spec, flags, err := r.plan(home, env)
	if err != nil {
		return err
	}
	if r.s.cfg.Required && !r.probing {
		for _, m := range r.extra {
			if m.Name == Network && !r.s.networkOff() {
				continue
			}
			return fmt.Errorf("sandbox: required, but %s is not in force here: %s", m.Name, m.Why)
		}
	}
	// A relative Path is relative to cmd.Dir, where the helper runs too.
	spec = sbinit.Append(spec, sbinit.TagExec, cmd.Path)
	for _, a := range cmd.Args {
		spec = sbinit.Append(spec, sbinit.TagArgv, a)
	}
	base := 3 + len(cmd.ExtraFiles)
	var proxyEnd, proxyConn *os.File
	if r.level == levelUserNS && r.s.proxied() {
		// The helper sends the proxy's listener over this socket.
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("sandbox: the proxy's socket: %w", err)
		}
		proxyConn, proxyEnd = os.NewFile(uintptr(fds[0]), "proxy"), os.NewFile(uintptr(fds[1]), "proxy-helper")
		spec = sbinit.Append(spec, sbinit.TagProxy, strconv.Itoa(base+2))
	}
	closeProxy := func() {
		if proxyEnd != nil {
			proxyEnd.Close()
			proxyConn.Close()
		}
	}
	if len(spec) > maxSpec {
		closeProxy()
		return fmt.Errorf("sandbox: the plan is too large (%d bytes; too many paths)", len(spec))
	}
	specR, specW, err := os.Pipe()
	if err != nil {
		closeProxy()
		return fmt.Errorf("sandbox: %w", err)
	}
	_, werr := specW.Write(spec)
	specW.Close()
	if werr != nil {
		specR.Close()
		closeProxy()
		return fmt.Errorf("sandbox: writing the plan: %w", werr)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		specR.Close()
		closeProxy()
		return fmt.Errorf("sandbox: %w", err)
	}
	if proxyEnd != nil {
		p := newProxy(r.s.allow, r.s.deny, r.s.lookup)
		if err := p.receive(proxyConn); err != nil {
			specR.Close()
			repR.Close()
			repW.Close()
			proxyEnd.Close()
			return fmt.Errorf("sandbox: the proxy's socket: %w", err)
		}
		r.proxy = p
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, specR, repW)
	cmd.Path = "/proc/self/exe"
	cmd.Args = []string{sbinit.Arg0, strconv.Itoa(base), strconv.Itoa(base + 1)}
	kv := []string{"TMPDIR=" + r.tmp}
	if r.s.cfg.CacheDir != "" {
		kv = append(kv, cacheEnv(r.s.cfg.CacheDir)...)
	}
	cmd.Env = setEnv(env, kv...)
	attr := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		a := *cmd.SysProcAttr
		attr = &a
	}
	if attr.Setpgid && attr.Pgid == 0 {
		attr.Setpgid, attr.Setsid = false, true
	}
	if r.level == levelUserNS {
		// A PID namespace: when the command (its init) exits, the kernel
		// kills every process left in it, even one that left the process
		// group and cleared its environment.
		attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
		if flags&sbinit.FlagNetNS != 0 {
			attr.Cloneflags |= syscall.CLONE_NEWNET
		}
		uid, gid := os.Getuid(), os.Getgid()
		if uid == 0 {
			// Root maps every id to itself: files keep their owners, and
			// root keeps its access to them, but holds no capability over
			// the host.
			attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
			attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
			attr.GidMappingsEnableSetgroups = true
		} else {
			attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
			attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
			// Any uid but 0 loses its capabilities when it executes the
			// helper: these, ambient, survive that exec, for the mounts,
			// the loopback and dropping them all before the command.
			attr.AmbientCaps = []uintptr{capSysAdmin, capNetAdmin, capSetpcap}
		}
	}
	cmd.SysProcAttr = attr
	r.cmd = cmd
	r.closers = []*os.File{specR, repW}
	if proxyEnd != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, proxyEnd)
		r.closers = append(r.closers, proxyEnd)
	}
	r.report = repR
	return nil
}

// Report waits until the helper has set the sandbox up and executed the
// command, and returns the protections in force. Call it after cmd.Start.
// An error means the command was not executed: the helper exits with
// status 125 (the caller still waits for it).
func (r *Run) Report() (*Status, error) {
	if r.report == nil {
		return nil, errors.New("sandbox: Report before Wrap")
	}
	for _, f := range r.closers {
		f.Close()
	}
	r.closers = nil
	b, err := io.ReadAll(r.report)
	r.report.Close()
	r.report = nil
	if err != nil {
		return nil, fmt.Errorf("sandbox: reading the helper's report: %w", err)
	}
	st := &Status{Platform: "linux"}
	var failed string
	seen := false
	for len(b) > 0 {
		tag, data, rest, ok := sbinit.Next(b)
		if !ok {
			return nil, errors.New("sandbox: malformed report from the helper")
		}
		b = rest
		seen = true
		switch tag {
		case sbinit.RepActive:
			st.Active = append(st.Active, data)
		case sbinit.RepMissing:
			name, why, _ := strings.Cut(data, "\x00")
			st.Missing = append(st.Missing, Missing{name, why})
		case sbinit.RepABI:
			st.LandlockABI, _ = strconv.Atoi(data)
		case sbinit.RepError:
			failed = data
		}
	}
	if r.level == levelUserNS {
		st.Active = append(st.Active, UserNamespace, PIDNamespace)
	}
	st.Missing = append(st.Missing, r.extra...)
	if st.Has(NetworkProxy) {
		st.AllowedDomains, st.DeniedDomains = r.s.allow.strings(), r.s.deny.strings()
	}
	if len(r.incomplete) > 0 && st.Has(ProtectedPaths) {
		// Protected files deeper in were not found, so not made read-only.
		st.Active = slices.DeleteFunc(st.Active, func(a string) bool { return a == ProtectedPaths })
		st.Missing = append(st.Missing, Missing{ProtectedPaths, fmt.Sprintf("%s holds more than %d directories: protected files past them are not found (run the command outside the sandbox, asked for)", strings.Join(r.incomplete, ", "), maxTreeDirs)})
	}
	if failed != "" {
		return st, fmt.Errorf("sandbox: %s", failed)
	}
	if !seen {
		return nil, errors.New("sandbox: the helper exited without setting the sandbox up (is this binary's init hook linked? it is when the program imports the sandbox package)")
	}
	return st, nil
}

// maxListed bounds the entries of one directory readableExcept lists on
// the way to an excluded path.
const maxListed = 1024

// readableExcept returns the paths to grant reads beneath so that
// everything is readable but the excluded paths (absolute, resolved): at
// each directory on the way from / to an excluded path, every entry but
// the one leading on. A link is granted only when it leads neither into
// an excluded path nor above one (the grant follows it). ok is false when
// a directory on the way has more than maxListed entries.
func readableExcept(excluded []string) (out []string, ok bool) {
	leadsOn := func(p string) (into, above bool) {
		for _, x := range excluded {
			if pathpolicy.Within(p, x) {
				return true, false
			}
			if pathpolicy.Within(x, p) {
				above = true
			}
		}
		return false, above
	}
	ok = true
	var walk func(dir string)
	walk = func(dir string) {
		f, err := os.Open(dir)
		if err != nil {
			return
		}
		ents, err := f.ReadDir(maxListed + 1)
		f.Close()
		if len(ents) > maxListed {
			ok = false
			return
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			into, above := leadsOn(p)
			switch {
			case into:
			case e.Type()&os.ModeSymlink != 0:
				t, err := filepath.EvalSymlinks(p)
				if err != nil {
					continue
				}
				if in, ab := leadsOn(t); !in && !ab {
					out = append(out, p)
				}
			case above:
				if e.IsDir() {
					walk(p)
				}
			default:
				out = append(out, p)
			}
		}
	}
	walk("/")
	return out, ok
}

// postScanFactor: the scans after a command read up to this many times
// more directories than those before it, so a command cannot hide what it
// made past the bound by making directories; past that, what is left is
// reported unchecked.
const postScanFactor = 20

// createdBelow returns the members of the protected class that the
// scans after the command find and the scans before it did not, or found
// as another file, but for placeholders (this run's, or another's made
// meanwhile); and the placeholders of other runs this run held that are
// filled now. unchecked says where the scans could not look: past their
// bound, or a directory the command changed that cannot be read.
func (r *Run) createdBelow() (out, unchecked []string) {
	for _, p := range r.adopted {
		// Another run's placeholder this one held: filled, someone made
		// it (that run's command, or one outside).
		if _, still := placeholderAt(p); !still && exists(p) {
			out = append(out, p)
		}
	}
	var journals []journal // read at the first placeholder not this run's
	for _, pre := range r.scans {
		post := r.s.tree.scan(pre.root, maxTreeDirs*postScanFactor, r.linked...)
		if opened := openChanged(pre, post); opened {
			// A directory the command made unreadable (chmod 0 over what
			// it made) is readable by its owner again, and read.
			post = r.s.tree.scan(pre.root, maxTreeDirs*postScanFactor, r.linked...)
		}
		hidden := map[string]bool{} // the secret paths masked during the command
		for _, p := range pre.secrets {
			hidden[p] = true
		}
		for p, now := range post.prot {
			if was, ok := pre.prot[p]; ok && (was.id == now.id || was.bound && !pre.movedAbove(post, p)) {
				// The same file; or another, but where the command could
				// not have made it: a bound path it cannot remove, at the
				// same place (an editor outside saved it with a rename).
				continue
			}
			if r.level == levelUserNS && pre.underHidden(hidden, p) && !pre.movedAbove(post, p) {
				// In a secret directory that was masked, in its place:
				// the command saw an empty one, so someone outside
				// changed this (kubectl its .kube/config).
				continue
			}
			if r.journaledPlaceholder(p, &journals) {
				continue
			}
			out = append(out, p)
		}
		if pre.complete && !post.complete {
			unchecked = append(unchecked, fmt.Sprintf("%s: more than %d directories now", pre.root, maxTreeDirs*postScanFactor))
		}
		for _, d := range post.unread {
			if !pre.unreadBefore(post, d) {
				unchecked = append(unchecked, d+": cannot be read")
			}
		}
	}
	return out, unchecked
}

// linkedDirs are the places a command writes that no scan reads: the
// sandbox's cache, which outlives the run. A link into it made in a
// writable directory is taken for a member of the protected class.
func (r *Run) linkedDirs() []string {
	if r.s.cfg.CacheDir == "" {
		return nil
	}
	if c, ok := canonical(r.s.cfg.CacheDir); ok && c != r.s.cfg.CacheDir {
		return []string{r.s.cfg.CacheDir, c}
	}
	return []string{r.s.cfg.CacheDir}
}

// unreadBefore reports whether directory d, which post could not read,
// could not be read before the command either and is the same, unchanged.
func (ts *treeScan) unreadBefore(post *treeScan, d string) bool {
	was, now := ts.dirs[d], post.dirs[d]
	return was != nil && was.failed && was.ino == now.ino && was.ctime == now.ctime
}

// openChanged gives the owner read and search permission back on the
// directories post could not read that changed since pre (or are new),
// where it owns them; it reports whether it changed any.
func openChanged(pre, post *treeScan) bool {
	opened := false
	for _, d := range post.unread {
		if pre.unreadBefore(post, d) {
			continue // not the command's doing
		}
		var st syscall.Stat_t
		if syscall.Lstat(d, &st) != nil || int(st.Uid) != os.Geteuid() || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			continue
		}
		if os.Chmod(d, os.FileMode(st.Mode&0o777|0o500)) == nil {
			opened = true
		}
	}
	return opened
}

// underHidden reports whether a directory above p, below the root, is
// one of hidden.
func (ts *treeScan) underHidden(hidden map[string]bool, p string) bool {
	for d := filepath.Dir(p); d != ts.root && pathpolicy.Within(d, ts.root); d = filepath.Dir(d) {
		if hidden[d] {
			return true
		}
	}
	return false
}

// movedAbove reports whether a directory between the scan's root and p is
// another one in post than it was in the scan: a command can take a bound
// path away only by renaming such a parent, and then make the path anew.
func (ts *treeScan) movedAbove(post *treeScan, p string) bool {
	for d := filepath.Dir(p); d != ts.root && pathpolicy.Within(d, ts.root); d = filepath.Dir(d) {
		was, now := ts.dirs[d], post.dirs[d]
		if was == nil || now == nil || was.ino != now.ino {
			return true
		}
	}
	return false
}
