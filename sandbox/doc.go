// Package sandbox runs commands inside an OS sandbox, so that a command
// the permission engine let through (or that a rule, a mode or the user
// allowed) still cannot write outside the project, reach the network or
// read secrets. The analyser in package shell is the convenience layer:
// it decides what needs a human. The sandbox is the boundary: it bounds
// what any command can do, whatever the analyser concluded.
//
// # What a sandboxed command gets (Linux)
//
// The sandbox re-executes the running binary as a small helper (package
// internal/sbinit, linked by importing this package: no code in main is
// needed), in new user, mount, PID and network namespaces (no process of
// the command outlives it). The helper, before it executes the command:
//
//   - makes every mount read-only, then the writable paths writable again:
//     the working directories, [Config.AllowWrite], a private temporary
//     directory (the command's TMPDIR) and the sandbox's cache;
//   - keeps the repository (.git, all of it: git finds code to run in
//     hooks, config, commondir and the git dirs of submodules and
//     worktrees) and the other protected names at the top of each writable
//     directory read-only; git commands that change the repository fail
//     inside, and run outside the sandbox when excluded;
//   - lets the command read nothing in the home directories (the HOME of
//     its environment and the user's home in /etc/passwd) but the working
//     directories, [DefaultHomeReads] (toolchains and their caches) and
//     [Config.AllowRead]: credentials are more than any list names
//     (Landlock; entries can still be listed);
//   - hides the secret list (~/.ssh, ~/.aws, ~/.netrc, the project's .env,
//     ..., the same list the analyser uses) behind an empty directory or
//     a socket inode that open(2) refuses;
//   - mounts a /proc of its own PID namespace, and allows no reads under
//     /dev but of the harmless devices (null, zero, random, ...);
//   - brings up a private loopback: no network, but the command's own
//     servers on 127.0.0.1 work; with [Config.AllowedDomains], also the
//     allow-list's proxy (below);
//   - drops every capability it holds (bounding, ambient, inheritable,
//     permitted and effective sets) and locks the securebits, so that the
//     command holds none, whatever its uid, and no exec gives any back;
//   - restricts itself with Landlock (writes only beneath the writable
//     paths; from ABI 6 no signals to processes outside), sets
//     no_new_privs, and installs a seccomp filter: no AF_UNIX sockets
//     unless [Config.AllowUnixSockets], no io_uring, no 32-bit syscalls,
//     no mount calls (mount, umount2, the new mount API: open_tree,
//     mount_setattr, move_mount, fsopen and the rest), no pivot_root,
//     chroot or setns, no new mount or user namespace (unshare, clone;
//     clone3 fails with ENOSYS, so the C library falls back to clone), no
//     file handles (name_to_handle_at, open_by_handle_at), no keyrings,
//     bpf, perf_event_open, userfaultfd, module or kexec loading.
//
// # Network allow-list
//
// With [Config.AllowedDomains] (Claude Code's
// sandbox.network.allowedDomains: "registry.npmjs.org", "*.example.com"
// for its subdomains only, "localhost", an IP address, each with an
// optional ":port"), the command still has no route out of its network
// namespace. The helper, inside it, listens on 127.0.0.1 on a free port
// and sends the listening socket to this process over an inherited Unix
// socket (SCM_RIGHTS), keeping no descriptor of it; it sets HTTP_PROXY,
// HTTPS_PROXY, ALL_PROXY and their lower-case forms to that address, and
// NO_PROXY to the loopback. This process accepts on that socket and
// proxies: CONNECT tunnels (HTTPS, or any TCP a client tunnels) and plain
// HTTP requests for absolute URLs, to the allowed hosts only. It resolves
// names itself and connects to the address it checked (no second lookup
// to rebind); a wildcard never reaches a loopback, private or link-local
// address, only an entry naming the host exactly does. A refused request
// gets 403 and a text naming the host and the setting;
// [Run.RefusedHosts] lists them. Connections are bounded (64 at once, a
// 64 KiB header read within 30 s, 5 minutes idle); [Run.Close] closes the
// listener and every connection and returns when nothing of the proxy is
// left. A program that ignores the proxy variables reaches nothing, and
// UDP (DNS included: names resolve at the proxy) goes nowhere.
//
// # Root, and other users
//
// The mounts above (the read-only root, the read-only .git and protected
// names, the secret masks) are made by the helper inside the sandbox's
// user namespace, which owns its mount namespace: a process with
// CAP_SYS_ADMIN in that user namespace could undo them (mount_setattr
// clears the read-only flag; open_tree clones a directory without the
// masks below it). So the command must hold no capability there, and
// [MountLock] says it holds none:
//
//   - a user other than root runs the command as itself (its uid mapped
//     to itself). The helper needs CAP_SYS_ADMIN, CAP_NET_ADMIN and
//     CAP_SETPCAP in the namespace for its mounts, the loopback and the
//     drop; they are ambient capabilities, the only ones a non-root uid
//     keeps over the exec of the helper. It drops them all before the
//     command.
//   - root maps every id to itself (files keep their owners), so the
//     command is uid 0 in the namespace, which the kernel would give
//     every capability there at each exec. The helper empties the
//     capability sets and sets SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP,
//     SECBIT_NO_CAP_AMBIENT_RAISE and SECBIT_KEEP_CAPS off, each locked,
//     while it still holds CAP_SETPCAP: uid 0 then gains nothing on exec,
//     and nothing can undo that. Root in the sandbox is an ordinary user
//     who owns root's files: a file of another user is reached through
//     its mode bits only (no CAP_DAC_OVERRIDE), chown and mknod of a
//     device fail.
//
// With no capability in the owning user namespace, every mount operation
// fails (each checks CAP_SYS_ADMIN there), whether by mount(2) or the new
// mount API, and Landlock refuses mount, umount, pivot_root and
// move_mount besides. A new user namespace would give the command its
// capabilities back inside it, but a mount namespace made there copies
// every mount locked (MNT_LOCKED: no umount of one, no clearing of its
// read-only flag, no clone that leaves out what is mounted below), and
// seccomp refuses to make one anyway. The same holds without a user
// namespace (root's capabilities dropped; there are no mounts then).
//
// ptrace stays allowed, so strace and gdb work inside: the PID namespace
// leaves no process outside the sandbox to name, and Landlock forbids
// tracing a process outside the command's domain.
//
// Where a mechanism is missing (no user namespaces, an old kernel), the
// sandbox keeps what it can and says what is missing: [Status] lists the
// protections the helper reported after setting them up, never one that
// is not in force, and [Config.Required] refuses to run a command instead.
// Other platforms have no sandbox yet: [Sandbox.NewRun] fails there with
// [ErrUnsupported].
//
// # Known limits
//
// The members of the protected class (pathpolicy's) are read-only where
// they exist when the command starts, at any depth of each writable
// directory (and of a home inside one), up to 50 000 directories read
// (node_modules skipped); past that the run reports [ProtectedPaths]
// missing. Secret names are hidden within the same bounds. A protected
// directory (.claude, .vscode, .husky, ...) or .mcp.json or .envrc missing
// at the top gets an empty read-only placeholder for the command's time,
// so it cannot be created. Nothing in the kernel keeps a command from
// making a member anywhere else (a repository, an .npmrc, a nested
// .claude, a path made again under a renamed parent): [Run.Quarantine]
// finds those after the command, by the identity of each member and of
// the directories above it, and moves them aside; it cannot tell them from
// members someone outside made meanwhile, and a member made inside
// node_modules is not looked for.
// Names in the home directory can be listed, not read. Where network
// namespaces are not available, an allow-list cannot be enforced: the
// network is off instead and [NetworkProxy] is reported missing. The
// proxy connects directly, not through a proxy of the host's
// environment; hosts are allowed by name, so an allowed host that serves
// arbitrary content (a code host, a paste site) is a way out for data.
//
// # Use
//
// The Bash tool of package builtin takes a *Sandbox in its options; so
// does an MCP stdio server (mcp.ServerConfig.Sandbox). To run a command of
// your own, make a [Run], wrap the exec.Cmd, start it, and read the
// report:
//
//	sb, err := sandbox.New(nil) // nil: the strictest useful sandbox
//	run, err := sb.NewRun([]string{projectDir})
//	defer run.Close()
//	cmd := exec.Command("make", "test")
//	cmd.Dir = projectDir
//	err = run.Wrap(cmd)
//	err = cmd.Start()
//	status, err := run.Report() // what is in force; an error: it did not run
//	err = cmd.Wait()
package sandbox
