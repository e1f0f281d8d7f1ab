package dirsnap

import (
	"os"
	"syscall"
	"time"
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
	for {
		err := syscall.Stat(dir, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return stamp{}, false, &os.PathError{Op: "stat", Path: dir, Err: err}
		}
		break
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return stamp{}, false, &os.PathError{Op: "open", Path: dir, Err: syscall.ENOTDIR}
	}
	return stamp{uint64(st.Dev), uint64(st.Ino), uint64(st.Nlink), st.Size, st.Mtim, st.Ctim}, true, nil
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
// that a later change cannot carry the same one.
func settledStamp(f *os.File) Stamp {
	var fst syscall.Stat_t
	sc, err := f.SyscallConn()
	if err != nil {
		return Stamp{}
	}
	var serr, ferr error
	var fsst syscall.Statfs_t
	err = sc.Control(func(fd uintptr) {
		serr = syscall.Fstat(int(fd), &fst)
		if serr == nil {
			ferr = syscall.Fstatfs(int(fd), &fsst)
		}
	})
	if err != nil || serr != nil || ferr != nil || !stableFS[int64(fsst.Type)] {
		return Stamp{}
	}
	st := stamp{uint64(fst.Dev), uint64(fst.Ino), uint64(fst.Nlink), fst.Size, fst.Mtim, fst.Ctim}
	if !settled(st) {
		return Stamp{}
	}
	return Stamp{st, true}
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
