package textfile

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFingerprint(t *testing.T) {
	p := writeTemp(t, "hello world\n")
	mtime := time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	fp, data, err := FingerprintFile(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !fp.Hashed || string(data) != "hello world\n" || fp.Size != 12 || !fp.ModTime.Equal(mtime) {
		t.Fatalf("got %+v, %q", fp, data)
	}
	if again, _, _ := FingerprintFile(p, 0); !fp.Same(again) {
		t.Error("unchanged file: not Same")
	}
	s, err := ReadLines(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Fingerprint().Same(fp) || s.Fingerprint() != fp {
		t.Errorf("ReadLines fingerprint %+v differs from %+v", s.Fingerprint(), fp)
	}

	rewrite := func(content string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}

	// Size only: same mtime, different length.
	rewrite("hello world!\n")
	now, _, _ := FingerprintFile(p, -1)
	if fp.Same(now) {
		t.Error("size change not detected")
	}

	// Content only: same size, same mtime. Only the hash can tell.
	rewrite("HELLO WORLD\n")
	now, data, _ = FingerprintFile(p, 0)
	if fp.Same(now) {
		t.Error("content change with the same size and mtime not detected")
	}
	if string(data) != "HELLO WORLD\n" {
		t.Errorf("content %q", data)
	}
	unhashed, data, _ := FingerprintFile(p, -1)
	if unhashed.Hashed || data != nil || !fp.Same(unhashed) {
		t.Error("without a hash, size and mtime are all that is compared")
	}

	// Mtime only.
	rewrite("hello world\n")
	later := mtime.Add(time.Second)
	os.Chtimes(p, later, later)
	if now, _, _ := FingerprintFile(p, 0); fp.Same(now) {
		t.Error("mtime change not detected")
	}

	// Above the hash limit: stat only.
	if big, data, _ := FingerprintFile(p, 5); big.Hashed || data != nil {
		t.Error("hashed a file over the limit")
	}
	if _, _, err := FingerprintFile(t.TempDir(), 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: %v", err)
	}
}

func TestSniff(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var pngB, jpgB, gifB bytes.Buffer
	png.Encode(&pngB, img)
	jpeg.Encode(&jpgB, img, nil)
	gif.Encode(&gifB, img, nil)
	webp := append([]byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00"), make([]byte, 14)...)

	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		content []byte
		kind    Kind
		media   string
	}{
		{"a.png", pngB.Bytes(), Image, "image/png"},
		{"A.PNG", pngB.Bytes(), Image, "image/png"},
		{"a.jpg", jpgB.Bytes(), Image, "image/jpeg"},
		{"a.jpeg", jpgB.Bytes(), Image, "image/jpeg"},
		{"a.gif", gifB.Bytes(), Image, "image/gif"},
		{"a.webp", webp, Image, "image/webp"},
		{"png-named-bin.bin", pngB.Bytes(), Binary, "application/octet-stream"},
		{"jpeg-named-png.png", jpgB.Bytes(), Binary, "application/octet-stream"},
		{"text.png", []byte("not an image\n"), Text, "text/plain; charset=utf-8"},
		{"a.go", []byte("package main\n"), Text, "text/plain; charset=utf-8"},
		{"empty", nil, Text, "text/plain; charset=utf-8"},
		{"nul.txt", []byte("abc\x00def"), Binary, "application/octet-stream"},
		{"late-nul.txt", append(bytes.Repeat([]byte("a"), SniffLen), 0), Text, "text/plain; charset=utf-8"},
		{"latin1.txt", []byte("caf\xe9\n"), Text, "text/plain; charset=utf-8"},
	} {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, tc.content, 0o644)
		kind, media, err := Sniff(p)
		if err != nil || kind != tc.kind || media != tc.media {
			t.Errorf("Sniff(%s) = %v, %q, %v; want %v, %q", tc.name, kind, media, err, tc.kind, tc.media)
		}
	}
	if _, _, err := Sniff(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: %v", err)
	}
	if _, _, err := Sniff(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if !IsBinary([]byte{'a', 0}) || IsBinary([]byte("abc")) || IsBinary(append(bytes.Repeat([]byte("a"), SniffLen), 0)) {
		t.Error("IsBinary")
	}
}
