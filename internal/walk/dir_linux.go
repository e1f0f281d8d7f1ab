//go:build linux && (amd64 || arm64)

package walk

import (
	"io/fs"
	"syscall"
	"time"
	"unsafe"

	"github.com/toolscope/toolscope/internal/fsys"
)

// On Linux a directory is read with getdents64 into a buffer that the
// worker reuses: the names are looked at in place (each is copied once,
// into the entry's relative path, and only if the entry is kept), and their
// types come from d_type. Files are statted with fstatat relative to the
// open directory, with the name's bytes in that buffer (already
// NUL-terminated): no path is built and the kernel resolves one component.

// dirHandle is an open directory whose entries are in the scratch buffer.
type dirHandle struct{ fd int }

// readNames opens the directory at path and lists its entries in
// sc.ents, whose names point into sc.buf.
func readNames(path string, sc *scratch) (dirHandle, error) {
	sc.ents = sc.ents[:0]
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return dirHandle{-1}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if cap(sc.buf) < 32<<10 {
		sc.buf = make([]byte, 32<<10)
	}
	buf := sc.buf[:cap(sc.buf)]
	filled := 0
	for {
		if len(buf)-filled < 4<<10 { // room for at least one more record
			buf = append(buf[:filled], make([]byte, len(buf))...)
			buf = buf[:cap(buf)]
		}
		n, err := syscall.ReadDirent(fd, buf[filled:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			sc.buf = buf
			parse(buf[:filled], sc)
			return dirHandle{fd}, &fs.PathError{Op: "readdirent", Path: path, Err: err}
		}
		if n <= 0 {
			break
		}
		filled += n
	}
	sc.buf = buf
	parse(buf[:filled], sc)
	return dirHandle{fd}, nil
}

// parse lists the linux_dirent64 records in b:
//
//	d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name NUL-terminated
func parse(b []byte, sc *scratch) {
	for len(b) >= 19 {
		reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
		if reclen < 19 || reclen > len(b) {
			return
		}
		rec := b[:reclen]
		b = b[reclen:]
		if *(*uint64)(unsafe.Pointer(&rec[0])) == 0 {
			continue // a deleted entry
		}
		name := rec[19:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) == 0 || name[0] == '.' && (len(name) == 1 || len(name) == 2 && name[1] == '.') {
			continue
		}
		var typ fs.FileMode
		switch rec[18] {
		case syscall.DT_REG:
			typ = 0
		case syscall.DT_DIR:
			typ = fs.ModeDir
		case syscall.DT_LNK:
			typ = fs.ModeSymlink
		case syscall.DT_UNKNOWN:
			typ = modeUnknown
		default:
			typ = fs.ModeIrregular // devices, sockets, pipes: skipped
		}
		// The name stays NUL-terminated in the buffer, for fstatat.
		sc.ents = append(sc.ents, rawEnt{name: unsafe.String(&name[0], len(name)), typ: typ})
	}
}

// close closes the directory.
func (h dirHandle) close() {
	if h.fd >= 0 {
		syscall.Close(h.fd)
	}
}

// lstat returns the status of an entry without following a link.
func (h dirHandle) lstat(dir string, e *rawEnt) (syscall.Stat_t, error) {
	var st syscall.Stat_t
	for {
		_, _, errno := syscall.Syscall6(sysFstatat, uintptr(h.fd), uintptr(unsafe.Pointer(unsafe.StringData(e.name))),
			uintptr(unsafe.Pointer(&st)), atSymlinkNofollow, 0, 0)
		switch errno {
		case 0:
			return st, nil
		case syscall.EINTR:
			continue
		}
		return st, &fs.PathError{Op: "lstat", Path: dir + "/" + e.name, Err: errno}
	}
}

// atSymlinkNofollow is AT_SYMLINK_NOFOLLOW.
const atSymlinkNofollow = 0x100

// typeOf returns the type of an entry that d_type left unknown.
func (h dirHandle) typeOf(dir string, e *rawEnt) fs.FileMode {
	st, err := h.lstat(dir, e)
	if err != nil {
		return fs.ModeIrregular
	}
	return fsys.Type(st.Mode)
}

// modTime returns a file's modification time (lstat), zero when it cannot
// be had.
func (h dirHandle) modTime(dir string, e *rawEnt) time.Time {
	st, err := h.lstat(dir, e)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(st.Mtim.Unix())
}
