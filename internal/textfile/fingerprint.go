package textfile

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"time"
)

// Fingerprint identifies a version of a file for staleness checks: a tool that read a file
// records its fingerprint, and before writing it compares with a fresh one. Size and
// modification time catch most changes; the content hash catches the rest (a same-size
// rewrite within the file system's timestamp granularity, or a restored mtime).
type Fingerprint struct {
	Size    int64
	ModTime time.Time
	SHA256  [32]byte
	Hashed  bool
}

// Same reports whether f and g describe the same file content: equal sizes and modification
// times, and equal hashes when both are hashed. When only one is hashed the hash is not
// compared; callers that need content certainty should hash both with the same limit.
func (f Fingerprint) Same(g Fingerprint) bool {
	if f.Size != g.Size || !f.ModTime.Equal(g.ModTime) {
		return false
	}
	return !(f.Hashed && g.Hashed) || f.SHA256 == g.SHA256
}

// FingerprintFile stats the regular file at path and, when its size is at most hashLimit
// (0 means [DefaultHashLimit], negative never), reads and hashes it; the content read is
// returned so that a caller about to edit the file need not read it twice. Size and ModTime
// are taken from the open file before reading.
func FingerprintFile(path string, hashLimit int64) (Fingerprint, []byte, error) {
	if hashLimit == 0 {
		hashLimit = DefaultHashLimit
	}
	f, err := os.Open(path)
	if err != nil {
		return Fingerprint{}, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Fingerprint{}, nil, err
	}
	if !fi.Mode().IsRegular() {
		return Fingerprint{}, nil, &os.PathError{Op: "fingerprint", Path: path, Err: ErrNotRegular}
	}
	fp := Fingerprint{Size: fi.Size(), ModTime: fi.ModTime()}
	if hashLimit < 0 || fi.Size() > hashLimit {
		return fp, nil, nil
	}
	// Read to EOF (files in /proc report size 0), but no further than the limit allows.
	data, err := io.ReadAll(io.LimitReader(f, hashLimit+1))
	if err != nil {
		return Fingerprint{}, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(data)) > hashLimit {
		// The file grew past the limit while being read: report it unhashed.
		return fp, nil, nil
	}
	fp.SHA256 = sha256.Sum256(data)
	fp.Hashed = true
	return fp, data, nil
}
