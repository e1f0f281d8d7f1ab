package dirsnap

import (
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"github.com/toolscope/toolscope/internal/fsys"
)

type stamp struct {
	dev, ino, nlink uint64
	size            int64
	mtime, ctime    syscall.Timespec
}

// statDir stats dir and says whether its file system keeps directory
// change times that a cached listing may rely on.
func statDir(dir string) (stamp, bool, error) {
	var st syscall.Stat_t
	if err := fsys.Stat(dir, &st); err != nil {
		return stamp{}, false, &os.PathError{Op: "stat", Path: dir, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return stamp{}, false, &os.PathError{Op: "open", Path: dir, Err: syscall.ENOTDIR}
	}
	return stampOf(&st), true, nil
}

// stampOf is the stamp in a stat's answer.
func stampOf(st *syscall.Stat_t) stamp {
	return stamp{uint64(st.Dev), uint64(st.Ino), uint64(st.Nlink), st.Size, st.Mtim, st.Ctim}
}

// StampOf is the stamp of the directory that a stat or an lstat just
// described in st, as Stat would read it (an lstat of a directory is its
// stat), for Cached; not ok unless st is a directory's.
func StampOf(st *syscall.Stat_t) Stamp {
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return Stamp{}
	}
	return Stamp{stampOf(st), true}
}

// The file systems whose directories' change times move with every change
// of their entries, as statfs names them.
var stableFS = map[int64]bool{
	0xEF53:     true, // ext2, ext3, ext4
	0x58465342: true, // xfs
	0x9123683E: true, // btrfs
	0x01021994: true, // tmpfs
	0x794C7630: true, // overlayfs
	0xF2F52010: true, // f2fs
	0x2FC12FC1: true, // zfs
	0xCA451A4E: true, // bcachefs
}

// settledStamp stats the open directory f: its stamp is usable (ok) when
// the file system keeps change times, and the change time is old enough
// that a later change cannot carry the same one. exact reports that the
// directory matches names byte for byte (see Listing.Exact).
func settledStamp(f *os.File) (s Stamp, exact bool) {
	var fst syscall.Stat_t
	sc, err := f.SyscallConn()
	if err != nil {
		return Stamp{}, false
	}
	var serr, ferr error
	var fsst syscall.Statfs_t
	err = sc.Control(func(fd uintptr) {
		serr = syscall.Fstat(int(fd), &fst)
		if serr == nil {
			ferr = syscall.Fstatfs(int(fd), &fsst)
		}
		if serr == nil && ferr == nil && exactFS[int64(fsst.Type)] {
			exact = !caseFolding(fd)
		}
	})
	if err != nil || serr != nil || ferr != nil {
		return Stamp{}, false
	}
	if !stableFS[int64(fsst.Type)] {
		return Stamp{}, exact
	}
	st := stampOf(&fst)
	if !settled(st) {
		return Stamp{}, exact
	}
	return Stamp{st, true}, exact
}

// The file systems whose only way to match a name other than byte for
// byte is the per-directory case-folding flag (FS_CASEFOLD_FL), which
// FS_IOC_GETFLAGS reports. xfs (ascii-ci, chosen at mkfs), zfs (a dataset
// property), overlayfs and the rest are never taken to be exact.
var exactFS = map[int64]bool{
	0xEF53:     true, // ext2, ext3, ext4
	0x9123683E: true, // btrfs
	0x01021994: true, // tmpfs
	0xF2F52010: true, // f2fs
	0xCA451A4E: true, // bcachefs
}

// fsCasefoldFL is FS_CASEFOLD_FL in the inode flags.
const fsCasefoldFL = 0x40000000

// caseFolding reports whether the directory open as fd may fold case:
// true unless FS_IOC_GETFLAGS answers and the flag is clear.
func caseFolding(fd uintptr) bool {
	req := getFlagsRequest()
	if req == 0 {
		return true
	}
	var flags [2]int32 // the kernel writes an int; room for a long
	for {
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(unsafe.Pointer(&flags[0])))
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return true
		}
		return flags[0]&fsCasefoldFL != 0
	}
}

// getFlagsRequest is FS_IOC_GETFLAGS, _IOR('f', 1, long), on the
// architectures whose ioctl numbers use the generic layout (0 elsewhere:
// no directory is taken to be exact).
func getFlagsRequest() uintptr {
	switch runtime.GOARCH {
	case "amd64", "arm64", "riscv64", "loong64", "s390x":
		return 0x80086601
	case "386", "arm":
		return 0x80046601
	}
	return 0
}

func settled(st stamp) bool {
	ct := time.Unix(st.ctime.Sec, st.ctime.Nsec)
	if time.Since(ct) < time.Second {
		return false
	}
	mt := time.Unix(st.mtime.Sec, st.mtime.Nsec)
	return time.Since(mt) >= time.Second
}

// openDir opens a directory for reading; O_DIRECTORY makes the open fail
// at once for anything else (a FIFO would block).
func openDir(path string) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}
