package textfile

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"sync"
	"time"
	"unicode/utf8"
)

// Defaults of [ReadOptions].
const (
	DefaultLimit        = 2000
	DefaultMaxLineChars = 2000
	DefaultHashLimit    = 32 << 20 // 32 MiB
)

// readBufSize is the size of the read buffer: it, plus the lines of the slice, is all that
// [ReadLines] keeps in memory.
var readBufSize = 64 << 10 // a variable so that tests can exercise buffer boundaries

// readBufs keeps the read buffers of finished reads for the next ones. A fresh buffer per
// read cost 64 KiB whatever the file's size: sixteen times a 4 KB file, and most of what a
// Read through the MCP server allocated. A buffer is in the pool only between reads: nothing
// of a read outlives it (the lines are copied out), and the garbage collector may empty the
// pool at any time, so it holds no memory for long once reads stop.
var readBufs sync.Pool // of *[]byte

// getReadBuf returns a buffer of readBufSize bytes, from the pool when it has one; give it
// back with readBufs.Put once done.
func getReadBuf() *[]byte {
	if b, _ := readBufs.Get().(*[]byte); b != nil && len(*b) == readBufSize {
		return b
	}
	b := make([]byte, readBufSize)
	return &b
}

// ErrNotRegular is returned for directories, devices, pipes and sockets: only regular files
// are read.
var ErrNotRegular = errors.New("not a regular file")

// Line is one line of a [Slice].
type Line struct {
	Number    int    // 1-based line number in the file
	Text      string // content without its line ending, invalid UTF-8 replaced by U+FFFD
	Truncated bool   // Text was cut to MaxLineChars runes
}

// Slice is the result of [ReadLines]: the requested lines plus what was learned about the
// file on the way.
type Slice struct {
	Lines []Line
	// More reports whether at least one line follows the last line of Lines (or, when Lines
	// is empty because Offset is past the end, always false).
	More bool
	// TotalLinesKnown reports whether the scan reached the end of the file, in which case
	// TotalLines is the number of lines in the file.
	TotalLinesKnown bool
	TotalLines      int
	// Size and ModTime come from the open file's stat, taken before reading.
	Size    int64
	ModTime time.Time
	// SHA256 is the hash of the whole file content when Hashed is true (Size ≤ HashLimit).
	SHA256 [32]byte
	Hashed bool
	// Whole reports that Lines is the entire file: Offset was 1 and nothing followed.
	Whole bool
}

// Fingerprint returns the identity of the file as it was when the slice was read.
func (s *Slice) Fingerprint() Fingerprint {
	return Fingerprint{Size: s.Size, ModTime: s.ModTime, SHA256: s.SHA256, Hashed: s.Hashed}
}

// ReadOptions configures [ReadLines]. The zero value (or nil) reads lines 1 to
// [DefaultLimit], cut at [DefaultMaxLineChars] runes, and hashes files up to
// [DefaultHashLimit].
type ReadOptions struct {
	Offset       int // first line, 1-based; values below 1 mean 1
	Limit        int // number of lines; 0 or less means DefaultLimit
	MaxLineChars int // runes kept per line; 0 or less means DefaultMaxLineChars
	// HashLimit: when the file is no larger than this, ReadLines reads it to the end and
	// hashes all of it, so the slice carries a content fingerprint. 0 means DefaultHashLimit;
	// a negative value disables hashing.
	HashLimit int64
}

// ReadLines streams the regular file at path and returns the lines [Offset, Offset+Limit).
//
// A line ends at "\n", "\r\n" or a lone "\r"; the ending is not part of [Line.Text]. A final
// line without an ending is still a line, and an empty file has no lines. Bytes that are not
// valid UTF-8 become U+FFFD, one per byte.
//
// Memory follows the slice, not the file: the file is read through one fixed buffer, lines
// before the slice are only counted, and of a line in the slice at most about 4·MaxLineChars
// bytes are kept however long it is. Reading the last lines of a multi-gigabyte file costs
// the time to scan it but not the memory.
//
// Reading stops right after the slice (having looked at one more byte to set More), unless the
// file is small enough to hash (see [ReadOptions.HashLimit]), in which case it continues to
// the end, hashing and counting lines.
func ReadLines(path string, opts *ReadOptions) (*Slice, error) {
	var o ReadOptions
	if opts != nil {
		o = *opts
	}
	if o.Offset < 1 {
		o.Offset = 1
	}
	if o.Limit <= 0 {
		o.Limit = DefaultLimit
	}
	if o.MaxLineChars <= 0 {
		o.MaxLineChars = DefaultMaxLineChars
	}
	if o.HashLimit == 0 {
		o.HashLimit = DefaultHashLimit
	}

	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	s, err := readSlice(f, fi.Size(), &o)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	s.ModTime = fi.ModTime()
	return s, nil
}

// readSlice does the work of ReadLines on r, whose size is size, with normalised options.
func readSlice(r io.Reader, size int64, o *ReadOptions) (*Slice, error) {
	s := &Slice{Size: size}
	buf := getReadBuf()
	defer readBufs.Put(buf)
	sc := &scanner{r: r, buf: *buf}
	if o.HashLimit > 0 && size <= o.HashLimit {
		sc.h, sc.hashMax = sha256.New(), o.HashLimit
	}

	n := 0 // lines consumed
	for n < o.Offset-1 {
		if _, _, ok := sc.line(false, 0); !ok {
			break
		}
		n++
	}
	if n == o.Offset-1 {
		maxBytes := o.MaxLineChars*utf8.UTFMax + utf8.UTFMax
		for len(s.Lines) < o.Limit {
			raw, over, ok := sc.line(true, maxBytes)
			if !ok {
				break
			}
			n++
			text, cut := decode(raw, o.MaxLineChars)
			s.Lines = append(s.Lines, Line{Number: n, Text: text, Truncated: cut || over})
		}
		s.More = len(s.Lines) == o.Limit && sc.more()
	}
	if sc.err != nil {
		return nil, sc.err
	}
	for sc.h != nil { // hashing: on to the end, unless the file grows past the limit
		if _, _, ok := sc.line(false, 0); !ok {
			break
		}
		n++
	}
	if sc.err != nil {
		return nil, sc.err
	}
	if sc.h != nil {
		sc.h.Sum(s.SHA256[:0])
		s.Hashed = true
	}
	if sc.eof && sc.start == sc.end {
		s.TotalLinesKnown = true
		s.TotalLines = n
	}
	s.Whole = o.Offset == 1 && !s.More && s.TotalLinesKnown
	return s, nil
}

// decode converts raw line bytes to a string of at most maxRunes runes, replacing each invalid
// byte with U+FFFD, and reports whether runes were dropped.
func decode(raw []byte, maxRunes int) (string, bool) {
	if utf8.Valid(raw) {
		if len(raw) <= maxRunes || utf8.RuneCount(raw) <= maxRunes {
			return string(raw), false
		}
	}
	out := make([]rune, 0, min(len(raw), maxRunes))
	for len(raw) > 0 {
		if len(out) == maxRunes {
			return string(out), true
		}
		r, size := utf8.DecodeRune(raw)
		out = append(out, r) // RuneError for an invalid byte
		raw = raw[size:]
	}
	return string(out), false
}

// scanner splits a reader into lines ending in LF, CRLF or CR, through a fixed buffer.
type scanner struct {
	r          io.Reader
	buf        []byte
	start, end int  // unread bytes are buf[start:end]
	eof        bool // r returned io.EOF (or an error, kept in err)
	err        error
	skipLF     bool      // the last line ended with '\r'; a '\n' that follows belongs to it
	h          hash.Hash // hashes every byte read, while read ≤ hashMax
	hashMax    int64
	read       int64
	line0      []byte // the current line when collecting
}

// fill reads more bytes when the buffer is empty; it reports whether bytes are available.
func (s *scanner) fill() bool {
	for s.start == s.end {
		if s.eof {
			return false
		}
		n, err := s.r.Read(s.buf)
		s.start, s.end = 0, n
		if n > 0 && s.h != nil {
			s.read += int64(n)
			if s.read > s.hashMax {
				s.h = nil // the file grew while being read; give up hashing
			} else {
				s.h.Write(s.buf[:n])
			}
		}
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.err = err
			}
		}
	}
	return true
}

// skipPendingLF consumes the '\n' of a CRLF split across reads.
func (s *scanner) skipPendingLF() {
	if s.skipLF && s.fill() && s.buf[s.start] == '\n' {
		s.start++
	}
	s.skipLF = false
}

// more reports whether another line starts at the current position.
func (s *scanner) more() bool {
	s.skipPendingLF()
	return s.fill()
}

// line consumes one line. When collect is set it returns the line's content without its
// ending, holding at most maxBytes bytes of it (over reports that more bytes were dropped).
// ok is false at the end of the input.
func (s *scanner) line(collect bool, maxBytes int) (raw []byte, over, ok bool) {
	s.skipPendingLF()
	if !s.fill() {
		return nil, false, false
	}
	raw = s.line0[:0]
	for s.fill() {
		chunk := s.buf[s.start:s.end]
		i := indexEOL(chunk)
		part := chunk
		if i >= 0 {
			part = chunk[:i]
		}
		if collect {
			if room := maxBytes - len(raw); len(part) > room {
				raw = append(raw, part[:room]...)
				over = true
			} else {
				raw = append(raw, part...)
			}
		}
		if i < 0 {
			s.start = s.end
			continue
		}
		s.start += i + 1
		if chunk[i] == '\r' {
			if s.start < s.end {
				if s.buf[s.start] == '\n' {
					s.start++
				}
			} else {
				s.skipLF = true
			}
		}
		break
	}
	if collect {
		s.line0 = raw[:0]
	}
	return raw, over, true
}

// indexEOL returns the index of the first '\n' or '\r' in b, or -1.
func indexEOL(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	j := b
	if i >= 0 {
		j = b[:i]
	}
	if k := bytes.IndexByte(j, '\r'); k >= 0 {
		return k
	}
	return i
}
