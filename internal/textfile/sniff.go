package textfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Kind classifies a file for the Read tool.
type Kind int

const (
	Text   Kind = iota // anything else: read it as lines
	Binary             // a NUL byte in the first 8 KiB
	Image              // PNG, JPEG, GIF or WebP, by extension and content
)

func (k Kind) String() string {
	switch k {
	case Text:
		return "text"
	case Binary:
		return "binary"
	case Image:
		return "image"
	}
	return "Kind(?)"
}

// SniffLen is how much of a file [Sniff] reads.
const SniffLen = 8 << 10

// IsBinary reports whether head, the start of a file, contains a NUL byte in its first
// [SniffLen] bytes. This is the test git and grep use: text in UTF-8 and the legacy 8-bit
// encodings never contains NUL, while nearly every binary format does early on. (UTF-16 text
// counts as binary.)
func IsBinary(head []byte) bool {
	if len(head) > SniffLen {
		head = head[:SniffLen]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// images maps lower-case extensions to media types; the content must confirm it.
var images = map[string]string{
	".png":  "image/png",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".gif":  "image/gif",
	".webp": "image/webp",
}

// imageMagic reports whether head starts with the signature of mediaType.
func imageMagic(mediaType string, head []byte) bool {
	switch mediaType {
	case "image/png":
		return bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n"))
	case "image/jpeg":
		return bytes.HasPrefix(head, []byte("\xff\xd8\xff"))
	case "image/gif":
		return bytes.HasPrefix(head, []byte("GIF87a")) || bytes.HasPrefix(head, []byte("GIF89a"))
	case "image/webp":
		return len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP"
	}
	return false
}

// sniffBufs keeps the buffers of finished sniffs for the next ones, as readBufs those of
// reads: every Read sniffs its file first, and 8 KiB a call was most of what reading a small
// file still allocated. head never outlives Sniff (IsBinary and imageMagic only look at it).
var sniffBufs = sync.Pool{New: func() any { return new([SniffLen]byte) }}

// Sniff reads the first [SniffLen] bytes of path and classifies it. An image needs both a
// known extension (.png, .jpg, .jpeg, .gif, .webp, any case) and the matching signature; a
// file named x.png holding text is Text. mediaType is the image's type for Image,
// "text/plain; charset=utf-8" for Text and "application/octet-stream" for Binary.
func Sniff(path string) (kind Kind, mediaType string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, "", err
	}
	if !fi.Mode().IsRegular() {
		return 0, "", &os.PathError{Op: "sniff", Path: path, Err: ErrNotRegular}
	}
	buf := sniffBufs.Get().(*[SniffLen]byte)
	defer sniffBufs.Put(buf)
	head := buf[:]
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return 0, "", err
	}
	head = head[:n]
	if mt, ok := images[strings.ToLower(filepath.Ext(path))]; ok && imageMagic(mt, head) {
		return Image, mt, nil
	}
	if IsBinary(head) {
		return Binary, "application/octet-stream", nil
	}
	return Text, "text/plain; charset=utf-8", nil
}
