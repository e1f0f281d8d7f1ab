package host

import (
	"bytes"
	"io"
	"os"
	"sync"
)

// fileImage is a file's bytes as read: head then rest. A sealed state or
// run file is read as its seal's header (head: {"toolscope_mac":"HEX",)
// and the rest, the rest into a buffer that starts with the "{" the
// sealed content starts with (body), so that the content is that buffer
// and not a copy of it. Any other file is rest alone.
type fileImage struct {
	head, rest []byte
	body       []byte // "{" then rest, in one buffer; nil when head is not a seal's
}

// sealHead is the length of a seal's header in a file: sealField, the
// MAC's 64 hexadecimal digits, the closing quote and the comma.
const sealHead = len(sealField) + 64 + 2

func (im fileImage) size() int { return len(im.head) + len(im.rest) }

// empty reports whether the file holds nothing but white space.
func (im fileImage) empty() bool {
	return len(bytes.TrimSpace(im.head)) == 0 && len(bytes.TrimSpace(im.rest)) == 0
}

// bytes returns the file's bytes in one slice (a copy when it is in two
// parts).
func (im fileImage) bytes() []byte {
	if len(im.head) == 0 {
		return im.rest
	}
	return append(append(make([]byte, 0, im.size()), im.head...), im.rest...)
}

// parts returns the file's bytes as parts to write one after the other.
func (im fileImage) parts() [][]byte { return [][]byte{im.head, im.rest} }

// equalAt reports whether p is the file's bytes from off on.
func (im fileImage) equalAt(off int, p []byte) bool {
	if off < len(im.head) {
		n := min(len(p), len(im.head)-off)
		if !bytes.Equal(p[:n], im.head[off:off+n]) {
			return false
		}
		p, off = p[n:], len(im.head)
	}
	off -= len(im.head)
	return off+len(p) <= len(im.rest) && bytes.Equal(p, im.rest[off:off+len(p)])
}

// readIfChanged reads the file at path, and reports whether it is prev,
// byte for byte: then prev itself is returned, and the file was compared
// with it a chunk at a time instead of read into a new buffer of its size
// (a state file of 2 MB read again after the load, to tell whether
// another run saved meanwhile, costs no 2 MB of new memory).
func readIfChanged(path string, prev fileImage) (fileImage, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileImage{}, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileImage{}, false, err
	}
	size := prev.size()
	if size == 0 || fi.Size() != int64(size) {
		im, err := readImage(f, fi.Size())
		return im, false, err
	}
	bp := chunks.Get().(*[]byte)
	defer chunks.Put(bp)
	chunk := *bp
	for off := 0; ; {
		n, err := io.ReadFull(f, chunk[:min(len(chunk), size-off+1)])
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return fileImage{}, false, err
		}
		if off+n > size || !prev.equalAt(off, chunk[:n]) || (err != nil && off+n < size) {
			// Changed: read it all again.
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return fileImage{}, false, err
			}
			im, err := readImage(f, fi.Size())
			return im, false, err
		}
		if err != nil { // at its end, the same
			return prev, true, nil
		}
		off += n
	}
}

// chunks are readIfChanged's buffers.
var chunks = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// readImage reads f from where it is (size: its expected size, for the
// buffer), a seal's header apart.
func readImage(f *os.File, size int64) (fileImage, error) {
	head := make([]byte, sealHead)
	n, err := io.ReadFull(f, head)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fileImage{rest: head[:n]}, nil
	}
	if err != nil {
		return fileImage{}, err
	}
	if !bytes.HasPrefix(head, []byte(sealField)) || head[sealHead-2] != '"' || head[sealHead-1] != ',' {
		b, err := readRest(f, append(make([]byte, 0, max(size, int64(n))+512), head...))
		return fileImage{rest: b}, err
	}
	buf, err := readRest(f, append(make([]byte, 0, max(size-int64(sealHead)+1, 1)+512), '{'))
	return fileImage{head: head, rest: buf[1:], body: buf}, err
}

// readRest appends the rest of f to b and returns it.
func readRest(f *os.File, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
