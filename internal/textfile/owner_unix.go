//go:build unix

package textfile

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// keepOwner gives f the owner and group of the file described by old. It returns an error
// wrapping [ErrOwner] when they differ from the process's and it may not give them (it is not
// root, and the file belongs to another user or to a group it is not in).
func keepOwner(f *os.File, old fs.FileInfo) error {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	uid, gid := int(st.Uid), int(st.Gid)
	if uid == os.Geteuid() && gid == os.Getegid() {
		return nil
	}
	if err := f.Chown(uid, gid); err != nil {
		what := "user " + userName(uid)
		if uid == os.Geteuid() {
			what = "group " + groupName(gid)
		}
		if pe, ok := err.(*fs.PathError); ok {
			err = pe.Err
		}
		return &OwnerError{Owner: what, Err: err} // WriteAtomic names the path
	}
	return nil
}

// processAlive reports whether a process with this id exists (in this
// process's pid namespace). EPERM means it exists but belongs to another user.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}

func groupName(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil {
		return fmt.Sprintf("%s (gid %d)", g.Name, gid)
	}
	return fmt.Sprintf("gid %d", gid)
}
