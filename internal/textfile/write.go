package textfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// WriteOptions configures [WriteAtomic]; nil means the zero value.
type WriteOptions struct {
	// Perm is the permission of a new file, before the umask; 0 means 0644. An existing file
	// keeps its own mode.
	Perm fs.FileMode
	// CreateDirs creates missing parent directories (mode 0755, before the umask); if the
	// write then fails, the directories it created are removed again.
	CreateDirs bool
	// Locked is the caller's lock on the directory that holds the file (see [Lock]), taken
	// before it checked the file; nil makes WriteAtomic take that lock itself.
	Locked *DirLock
	// Verify, when set, is called under the lock once the new content is on disk in the
	// temporary file, right before the rename: an error it returns abandons the write (the
	// file is left as it was) and is returned as is. Writers use it to check once more that
	// the file is still the version they read.
	Verify func() error
}

// ErrOwner is wrapped by the error of [WriteAtomic] for a file whose owner or group the
// process may not give to the file that would replace it; see [OwnerError].
var ErrOwner = errors.New("the new file cannot keep the owner of the old one")

// An OwnerError reports a file that [WriteAtomic] refused to replace because the process may
// write it but may not give a new file its owner (or group): an atomic replace would have
// changed who owns the file.
type OwnerError struct {
	Path  string
	Owner string // "user NAME (uid N)" or "group NAME (gid N)"
	Err   error  // from chown(2)
}

func (e *OwnerError) Error() string {
	return fmt.Sprintf("%s belongs to %s, and this process (uid %d) cannot give that owner to a new file (%v); "+
		"an atomic replace would make it the file's owner, so it was left unchanged: ask its owner or an administrator to change it, or write a copy you own",
		e.Path, e.Owner, os.Geteuid(), e.Err)
}

func (e *OwnerError) Unwrap() []error { return []error{ErrOwner, e.Err} }

// maxSymlinks bounds the symlink chain WriteAtomic follows, as the kernel does (ELOOP).
const maxSymlinks = 40

// testHook, when set by a test, is called before each step of WriteAtomic with the step's
// name ("write", "chmod", "sync", "close", "rename"); an error it returns fails that step.
var testHook func(step string) error

// WriteAtomic replaces the content of the file at path with data so that every reader sees
// either the old content or the new, never a mix, and a crash leaves one of the two on disk.
//
// It writes a temporary file in the same directory (see [IsTempName] for its name: hidden,
// marked as toolscope's, with the writer's process id and a random part), fsyncs it, gives it
// the mode, owner and group of the file it replaces (or opts.Perm for a new file), renames it
// over the target and fsyncs the directory. When path is a symbolic link the link's final
// target is replaced and the link stays a link.
//
// A file the process may write but whose owner or group it cannot give to a new file (a
// group-writable file of another user, written by a user who is not root) is refused with
// [ErrOwner]: the rename would make the writer its owner.
//
// On any error no temporary file remains, the directories it created are removed, and the
// original file is untouched. It holds the directory's lock (see [Lock]) from before it looks
// at the file until after the rename; under it, it also removes the temporary files that
// toolscope writers killed before their rename left behind, and nothing else (see
// [IsTempName]). Two concurrent WriteAtomic calls on one
// file leave one of the two contents whole (the last rename wins); a writer that must not
// overwrite a change it did not see takes the lock itself, checks, and passes it as
// WriteOptions.Locked, with a last check in WriteOptions.Verify.
//
// The rename gives the file a new inode: hard links to the old file keep the old content,
// and extended attributes and ACLs are not carried over. Directory fsync is best effort: it
// happens after the rename, when the new content is already in place, so its failure is not
// reported.
func WriteAtomic(path string, data []byte, opts *WriteOptions) error {
	return WriteAtomicParts(path, [][]byte{data}, opts)
}

// WriteAtomicParts is [WriteAtomic] of the parts one after the other, as
// one content, without joining them first (a big file's header and body).
func WriteAtomicParts(path string, parts [][]byte, opts *WriteOptions) error {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	if o.Perm == 0 {
		o.Perm = 0o644
	}
	if path == "" {
		return &fs.PathError{Op: "write", Path: path, Err: fs.ErrNotExist}
	}
	target, err := resolveSymlinks(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)

	var created []string // directories made here, deepest last
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) && o.CreateDirs {
		if created, err = mkdirs(dir); err != nil {
			return pathError("mkdir", dir, err)
		}
	}
	lock := o.Locked
	if lock == nil || lock.Dir() != canonicalDir(dir) {
		if lock, err = Lock(dir); err != nil {
			removeDirs(created)
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				return pathError("write", path, err)
			}
			return err
		}
		defer lock.Unlock()
	}
	if lock.shared {
		sweepTemps(dir)
	}

	fi, err := os.Stat(target)
	exists := err == nil
	switch {
	case exists && !fi.Mode().IsRegular():
		removeDirs(created)
		return &fs.PathError{Op: "write", Path: path, Err: ErrNotRegular}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		removeDirs(created)
		return pathError("write", path, err)
	}

	// An existing file's mode is set exactly by fchmod; a new file gets Perm through open, so
	// that the umask applies as it would for any new file.
	createPerm := o.Perm.Perm()
	if exists {
		createPerm = 0o600
	}
	tmp, err := createTemp(dir, filepath.Base(target), createPerm)
	if err != nil {
		removeDirs(created)
		return pathError("write", path, err)
	}
	tmpName := tmp.Name()
	step := func(name string, fn func() error) error {
		if testHook != nil {
			if err := testHook(name); err != nil {
				return err
			}
		}
		return fn()
	}
	err = step("write", func() error {
		for _, data := range parts {
			if _, err := tmp.Write(data); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && exists {
		err = step("chmod", func() error {
			if err := keepOwner(tmp, fi); err != nil { // first: chown clears the set-user-ID bit
				return err
			}
			return tmp.Chmod(fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky))
		})
	}
	if err == nil {
		err = step("sync", tmp.Sync)
	}
	if err == nil {
		err = step("close", tmp.Close)
	}
	var verr error
	if err == nil && o.Verify != nil {
		verr = o.Verify()
		err = verr
	}
	if err == nil {
		err = step("rename", func() error { return os.Rename(tmpName, target) })
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmpName)
		removeDirs(created)
		if verr != nil {
			return verr
		}
		if oe, ok := errors.AsType[*OwnerError](err); ok {
			oe.Path = path
			return oe
		}
		return pathError("write", path, err)
	}
	syncDir(dir)
	return nil
}

// mkdirs creates dir and its missing parents, returning those it made,
// outermost first.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			removeDirs(created)
			return nil, err
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// removeDirs removes the directories a failed write created, deepest
// first; one that another writer has put something in stays.
func removeDirs(created []string) {
	for i := len(created) - 1; i >= 0; i-- {
		os.Remove(created[i])
	}
}

// maxSweep bounds the directory entries sweepTemps looks at.
const maxSweep = 20000

// tempPrefix starts the name of every temporary file WriteAtomic makes.
const tempPrefix = ".toolscope-"

// sweepTemps removes the temporary files that toolscope writers killed
// before their rename left in dir. It runs under the directory's lock,
// which every writer holds while its temporary file exists, and only when
// that lock holds across processes (flock); it removes a file only when
// its name is of createTemp's form (see [IsTempName]) and the process that
// the name records is gone. Files of any other name are never touched.
func sweepTemps(dir string) {
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	defer f.Close()
	seen := 0
	for seen < maxSweep {
		names, err := f.Readdirnames(512)
		for _, n := range names {
			pid, ok := tempOwner(n)
			if !ok || processAlive(pid) {
				continue
			}
			p := filepath.Join(dir, n)
			if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
				os.Remove(p)
			}
		}
		seen += len(names)
		if err != nil || len(names) == 0 {
			return
		}
	}
}

// IsTempName reports whether name is that of a temporary file of
// [WriteAtomic]: ".toolscope-PID-RANDOM-NAME.tmp", where PID is the
// writer's process id in decimal, RANDOM 16 lowercase hexadecimal digits
// and NAME (at most 64 bytes) the start of the name of the file it
// replaces. Other programs' temporary files (".notes.tmp2024",
// "x.swp", "~$doc") never have this form.
func IsTempName(name string) bool {
	_, ok := tempOwner(name)
	return ok
}

// tempOwner parses a temporary file's name, returning the writer's pid.
func tempOwner(n string) (int, bool) {
	rest, ok := strings.CutPrefix(n, tempPrefix)
	if !ok || !strings.HasSuffix(rest, ".tmp") {
		return 0, false
	}
	digits, rest, ok := strings.Cut(rest, "-")
	if !ok || len(digits) == 0 || len(digits) > 10 {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 || digits[0] == '0' {
		return 0, false
	}
	if len(rest) < 17+1+4 || rest[16] != '-' {
		return 0, false
	}
	for i := 0; i < 16; i++ {
		if c := rest[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return 0, false
		}
	}
	if base := rest[17 : len(rest)-4]; len(base) > maxTempBase {
		return 0, false
	}
	return pid, true
}

// maxTempBase bounds the part of the target's name a temporary file's
// name repeats, so that the name stays within NAME_MAX (255 bytes).
const maxTempBase = 64

// tempName is the name of a new temporary file for a file named base.
func tempName(base string) string {
	if len(base) > maxTempBase {
		base = base[:maxTempBase]
	}
	return tempPrefix + strconv.Itoa(os.Getpid()) + "-" + fmt.Sprintf("%016x", rand.Uint64()) + "-" + base + ".tmp"
}

// CreateTemp creates a new, empty file in dir (mode 0600) named as
// WriteAtomic names its temporary files ([IsTempName]), for base. A caller
// that removes it when done, and is killed before, leaves a file that the
// next WriteAtomic in dir removes once the caller's process is gone.
func CreateTemp(dir, base string) (*os.File, error) {
	return createTemp(dir, base, 0o600)
}

// createTemp creates a new file named by tempName in dir with O_EXCL.
func createTemp(dir, base string, perm fs.FileMode) (*os.File, error) {
	for range 100 {
		f, err := os.OpenFile(filepath.Join(dir, tempName(base)), os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, errors.New("cannot create a temporary file")
}

// resolveSymlinks follows path while it is a symbolic link and returns the final target,
// which need not exist (a dangling link is written through, creating its target).
func resolveSymlinks(path string) (string, error) {
	for range maxSymlinks {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil // a missing file, or an error the caller will meet again
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", &fs.PathError{Op: "write", Path: path, Err: syscall.ELOOP}
}

// pathError reports err, unwrapped from the *PathError or *LinkError of a temporary file, as
// an error about path.
func pathError(op, path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

// syncDir fsyncs a directory so that a rename in it is durable; errors are ignored.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
