// Package archivelist reads the member list of a tar or zip archive (never
// the contents), the way tar -t would, within bounds: the shell analyser
// judges each member an extraction would write.
//
// It is separate from package shell because it knows archive formats, not
// command lines: package shell's archive.go reads tar's and unzip's
// options and judges the paths; this package only lists what an archive
// holds, through an [outside.Access].
package archivelist

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path"
	"strings"

	"github.com/toolscope/toolscope/shell/internal/outside"
)

const (
	// MaxMembers bounds the members read.
	MaxMembers = 4096
	// maxArchiveRead bounds the bytes read from a compressed archive,
	// which must be decompressed to reach its headers (about a
	// millisecond of gzip per 300 KB); an uncompressed tar is read header
	// by header, seeking over the contents.
	maxArchiveRead = 2 << 20
)

// Member is one member's name and, for a link, its target.
type Member struct {
	Name     string
	Link     string
	Symlink  bool
	Hardlink bool
}

// ErrTooLarge is the error for an archive past the bounds.
var ErrTooLarge = errors.New("archive too large to inspect")

// Members reads the member list of the archive at p.
func Members(a outside.Access, p string) ([]Member, error) {
	f, fi, err := a.Open(p) // never waits on a FIFO named like an archive
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var magic [262]byte
	n, _ := io.ReadFull(f, magic[:])
	head := magic[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return zipMembers(f, fi.Size)
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(&budgetReader{r: bufio.NewReader(f), left: maxArchiveRead})
		if err != nil {
			return nil, err
		}
		return tarMembers(zr)
	case bytes.HasPrefix(head, []byte("BZh")):
		return tarMembers(bzip2.NewReader(&budgetReader{r: bufio.NewReader(f), left: maxArchiveRead}))
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		return tarMembers(f) // a File seeks over the contents
	}
	return nil, errors.New("compression or format not inspected")
}

func zipMembers(f io.ReaderAt, size int64) ([]Member, error) {
	zr, err := zip.NewReader(f, size)
	if err != nil {
		return nil, err
	}
	if len(zr.File) > MaxMembers {
		return nil, ErrTooLarge
	}
	var out []Member
	for _, zf := range zr.File {
		m := Member{Name: zf.Name}
		if zf.Mode()&os.ModeSymlink != 0 {
			// The target is the member's content: read it, bounded.
			m.Symlink = true
			if zf.UncompressedSize64 > 4096 {
				return nil, ErrTooLarge
			}
			rc, err := zf.Open()
			if err != nil {
				return nil, err
			}
			b, err := io.ReadAll(io.LimitReader(rc, 4097))
			rc.Close()
			if err != nil {
				return nil, err
			}
			m.Link = string(b)
		}
		out = append(out, m)
	}
	return out, nil
}

func tarMembers(r io.Reader) ([]Member, error) {
	tr := tar.NewReader(r)
	var out []Member
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return nil, err
			}
			return nil, err
		}
		if len(out) >= MaxMembers {
			return nil, ErrTooLarge
		}
		m := Member{Name: h.Name, Link: h.Linkname}
		switch h.Typeflag {
		case tar.TypeSymlink:
			m.Symlink = true
		case tar.TypeLink:
			m.Hardlink = true
		}
		out = append(out, m)
	}
}

// budgetReader fails with errArchiveTooLarge after left bytes.
type budgetReader struct {
	r    io.Reader
	left int
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, ErrTooLarge
	}
	if len(p) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= n
	return n, err
}

// Path returns where a member lands relative to the extraction
// directory, and whether it stays below it (a member named ../x or, unless
// kept with -P, /etc/x as tar strips the slash).
func Path(name string, strip int, abs bool) (rel string, absolute string, inside bool) {
	if strings.HasPrefix(name, "/") {
		if abs {
			return "", path.Clean(name), false
		}
		name = strings.TrimLeft(name, "/")
	}
	parts := strings.Split(name, "/")
	var kept []string
	for _, p := range parts {
		if p == "" || p == "." {
			continue
		}
		kept = append(kept, p)
	}
	if strip > 0 {
		if strip >= len(kept) {
			return "", "", true // dropped
		}
		kept = kept[strip:]
	}
	depth := 0
	for _, p := range kept {
		if p == ".." {
			if depth--; depth < 0 {
				return "", "", false
			}
		} else {
			depth++
		}
	}
	return path.Clean(strings.Join(kept, "/")), "", true
}

// LinkLeadsOut reports whether a link member at rel, with target t, leads
// out of the extraction directory.
func LinkLeadsOut(rel, t string) bool {
	if t == "" {
		return false
	}
	if strings.HasPrefix(t, "/") {
		return true
	}
	_, _, in := Path(path.Join(path.Dir(rel), t), 0, false)
	return !in || strings.HasPrefix(path.Clean(path.Join(path.Dir(rel), t)), "..")
}
