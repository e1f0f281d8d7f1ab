package host

import (
	"bytes"
	"io"
	"os"
	"sync"
)

// readIfChanged returns the content of the file at path, and whether it
// is prev, byte for byte: then prev itself is returned, and the file was
// compared with it a chunk at a time instead of read into a new buffer of
// its size (a state file of 2 MB read again after the load, to tell
// whether another run saved meanwhile, costs no 2 MB of new memory).
func readIfChanged(path string, prev []byte) ([]byte, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if prev == nil || fi.Size() != int64(len(prev)) {
		return readRest(f, nil, fi.Size())
	}
	bp := chunks.Get().(*[]byte)
	defer chunks.Put(bp)
	chunk := *bp
	for off := 0; ; {
		n, err := io.ReadFull(f, chunk[:min(len(chunk), len(prev)-off+1)])
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return nil, false, err
		}
		switch {
		case off+n > len(prev) || !bytes.Equal(chunk[:n], prev[off:off+n]):
			// Changed: what was read, then the rest.
			b := make([]byte, 0, max(fi.Size(), int64(off+n))+512)
			b = append(append(b, prev[:off]...), chunk[:n]...)
			if err != nil {
				return b, false, nil // at its end
			}
			return readRest(f, b, 0)
		case err != nil: // at the end
			if off+n == len(prev) {
				return prev, true, nil
			}
			return append(append([]byte(nil), prev[:off]...), chunk[:n]...), false, nil
		}
		off += n
	}
}

// chunks are readIfChanged's buffers.
var chunks = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// readRest appends the rest of f to b (size: the expected size, for the
// buffer) and returns it.
func readRest(f *os.File, b []byte, size int64) ([]byte, bool, error) {
	if b == nil {
		b = make([]byte, 0, size+512)
	}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}
