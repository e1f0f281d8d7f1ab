// Package pathpolicy is the one place that decides what a path is, for every
// permission check of toolscope: the shell analyser and the file tools ask it
// and never re-derive its answers.
//
// A path is judged twice, as written and where it really leads:
//
//   - [Resolve] follows symbolic links component by component, as the kernel
//     does: a ".." after a link goes to the parent of the link's target, so
//     a/root/../x with root -> ../.. is not a/x. Paths that do not exist yet
//     keep their missing tail; paths through /proc magic links (a process's
//     fd/, cwd, root) are flagged, since they lead anywhere.
//   - [Policy.Classify] says whether the resolved path lies inside a working
//     directory (comparing whole components: /srv/proj2 is not inside
//     /srv/proj), whether reading it could expose credentials (secret: ~/.ssh,
//     ~/.aws, .env files, /proc/*/environ, ...), whether writing it would
//     change something protected (.git, shell start-up files, a committed
//     bare repository's config or hooks, and every secret), and whether it is
//     one of the harmless system paths any command may read ([HarmlessReads]).
//     The secret and protected names are checked on the path as written and
//     on the resolved path, so a link such as awslink -> ~/.aws, or gl -> .git,
//     does not hide them.
//   - [Policy.Tree] says what a recursive read of a directory would reach: a
//     root that holds a well-known secret location (the home directory, /,
//     ~/.config) is secret; a root in a working directory is walked, bounded,
//     for secret names and for links out of the working directories.
//   - [Policy.Pattern] judges a bash glob by what it could match, now (by
//     expanding it against the tree with bash's rules) and later (by asking
//     whether any of its components could match a secret or protected name).
//
// What "protected" means is one table, [ProtectedClass]: files that a
// program runs or loads later, or that grant permissions (VCS hooks and
// configuration at any depth, hook managers, editor, devcontainer and CI
// definitions, direnv, interpreter start-up hooks such as *.pth, agent
// settings, .mcp.json, credentials), each with its shape (name, suffix,
// directory, glob), its effect and why. [DefaultProtectedFiles] and
// [DefaultProtectedDirs] are derived from it, and docs/protected-paths.md
// is generated from it. Beyond names a policy protects directories known
// by where they are: [Options.ProtectedPaths], the directories on $PATH
// ([Options.PathDirs]), the directory core.hooksPath names in the
// repository's git configuration, and a virtual environment's bin/ and
// site-packages (a directory holding pyvenv.cfg); [Policy.ProtectedPaths]
// lists the first three for the OS sandbox.
//
// Everything is bounded: paths longer than [MaxPathLen] bytes or needing more
// than [MaxLinks] links are errors, and callers fail closed on every error.
package pathpolicy
