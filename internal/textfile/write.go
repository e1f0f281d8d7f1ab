package textfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// WriteOptions configures [WriteAtomic]; nil means the zero value.
type WriteOptions struct {
	// Perm is the permission of a new file, before the umask; 0 means 0644. An existing file
	// keeps its own mode.
	Perm fs.FileMode
	// CreateDirs creates missing parent directories (mode 0755, before the umask).
	CreateDirs bool
}

// maxSymlinks bounds the symlink chain WriteAtomic follows, as the kernel does (ELOOP).
const maxSymlinks = 40

// testHook, when set by a test, is called before each step of WriteAtomic with the step's
// name ("write", "chmod", "sync", "close", "rename"); an error it returns fails that step.
var testHook func(step string) error

// WriteAtomic replaces the content of the file at path with data so that every reader sees
// either the old content or the new, never a mix, and a crash leaves one of the two on disk.
//
// It writes a temporary file in the same directory (named "." + the file's name + ".tmp" +
// a random number, so it is hidden and recognisable), fsyncs it, gives it the mode of the file
// it replaces (or opts.Perm for a new file), renames it over the target and fsyncs the
// directory. When path is a symbolic link the link's final target is replaced and the link
// stays a link. When the process may (it runs as root) the new file also keeps the old one's
// owner and group.
//
// On any error no temporary file remains and the original file is untouched. Two concurrent
// WriteAtomic calls on one file leave one of the two contents whole (the last rename wins).
//
// The rename gives the file a new inode: hard links to the old file keep the old content,
// and extended attributes and ACLs are not carried over. Directory fsync is best effort: it
// happens after the rename, when the new content is already in place, so its failure is not
// reported.
func WriteAtomic(path string, data []byte, opts *WriteOptions) error {
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

	fi, err := os.Stat(target)
	exists := err == nil
	switch {
	case exists && !fi.Mode().IsRegular():
		return &fs.PathError{Op: "write", Path: path, Err: ErrNotRegular}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return pathError("write", path, err)
	case !exists && o.CreateDirs:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return pathError("mkdir", dir, err)
		}
	}

	// An existing file's mode is set exactly by fchmod; a new file gets Perm through open, so
	// that the umask applies as it would for any new file.
	createPerm := o.Perm.Perm()
	if exists {
		createPerm = 0o600
	}
	tmp, err := createTemp(dir, filepath.Base(target), createPerm)
	if err != nil {
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
	err = step("write", func() error { _, err := tmp.Write(data); return err })
	if err == nil && exists {
		err = step("chmod", func() error {
			keepOwner(tmp, fi) // first: chown clears the set-user-ID bit
			return tmp.Chmod(fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky))
		})
	}
	if err == nil {
		err = step("sync", tmp.Sync)
	}
	if err == nil {
		err = step("close", tmp.Close)
	}
	if err == nil {
		err = step("rename", func() error { return os.Rename(tmpName, target) })
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmpName)
		return pathError("write", path, err)
	}
	syncDir(dir)
	return nil
}

// createTemp creates a new file ".<base>.tmp<random>" in dir with O_EXCL.
func createTemp(dir, base string, perm fs.FileMode) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(rand.Uint64()%1e12, 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
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
