package outside

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/toolscope/toolscope/internal/dirsnap"
)

// Views remembers, for one command line, the listings of the directories
// it looked into (git discovery looks for the same few names in the same
// directories for every git command of a line). The zero Views, with its
// Access set, is ready.
type Views struct {
	Access Access
	list   []DirView
}

// View returns the current listing of d, read once per Views.
func (vs *Views) View(d string) DirView {
	for _, v := range vs.list {
		if v.dir == d {
			return v
		}
	}
	v := vs.read(d)
	vs.list = append(vs.list, v)
	return v
}

func (vs *Views) read(d string) DirView {
	l, err := vs.Access.List(d, 4096)
	if err != nil {
		return DirView{dir: d, a: vs.Access, Missing: errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)}
	}
	v := DirView{dir: d, a: vs.Access, Listing: l, ASCII: true}
	for _, n := range l.Names {
		for i := 0; i < len(n); i++ {
			if n[i] >= utf8.RuneSelf {
				v.ASCII = false
			}
		}
	}
	return v
}

// A DirView is a current listing of a directory (package dirsnap: one
// stat checks a remembered one), to learn without a system call each that
// the files looked for are not there.
type DirView struct {
	dir     string
	a       Access
	Listing *dirsnap.Listing // nil: the directory could not be listed
	ASCII   bool             // every name is ASCII
	Missing bool             // the directory does not exist: nothing is in it
}

// Absent reports a name surely not in the directory. A case-folding
// directory would open "CONFIG" for "config" (and, with Unicode folding,
// names that are not ASCII): only a listing of ASCII names with no
// case-insensitive match is sure.
func (v DirView) Absent(name string) bool {
	if v.Missing {
		return true
	}
	if v.Listing == nil || !v.ASCII {
		return false
	}
	for _, n := range v.Listing.Names {
		if strings.EqualFold(n, name) {
			return false
		}
	}
	return true
}

// IsDir reports whether name is a directory, following a link.
func (v DirView) IsDir(name string) bool {
	if v.Listing != nil {
		if t, ok := v.Listing.Type(name); ok && t&fs.ModeSymlink == 0 {
			return t.IsDir()
		}
	}
	return IsDir(v.a, filepath.Join(v.dir, name))
}

// IsDir reports whether p is a directory, following links.
func IsDir(a Access, p string) bool {
	i, err := a.Stat(p, true)
	return err == nil && i.IsDir()
}
