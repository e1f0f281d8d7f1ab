// Package textfile holds the file primitives under the Read, Write and Edit tools: streaming
// line reads, file fingerprints for staleness checks, binary and image sniffing, atomic
// writes, and line-ending conversion.
//
// # Reading
//
// [ReadLines] returns a window of lines, numbered from 1, the way an agent reads a file: a
// page at a time.
//
//	s, err := textfile.ReadLines(path, &textfile.ReadOptions{Offset: 1001, Limit: 50})
//	for _, l := range s.Lines {
//		fmt.Printf("%6d\t%s\n", l.Number, l.Text)
//	}
//	if s.More { /* tell the model there is more */ }
//
// It streams: whatever the file's size, memory holds one 64 KiB buffer and the requested
// lines, each capped at MaxLineChars runes. "\n", "\r\n" and a lone "\r" all end a line and
// none is part of the text. Files up to HashLimit bytes are read to the end so the result
// carries their SHA-256 and line count.
//
// # Staleness
//
// A tool that edits a file it read earlier must make sure nobody changed it in between.
// [Fingerprint] is the identity used for that: size, modification time and, for files up to
// the hash limit, the content hash. Record [Slice.Fingerprint] at read time and before writing
// compare it with [FingerprintFile], which also returns the current content:
//
//	now, data, err := textfile.FingerprintFile(path, 0)
//	if !now.Same(recorded) { /* ask the model to read the file again */ }
//
// The modification time alone is not enough: file systems with coarse timestamps, or a tool
// that restores the mtime, make a changed file look unchanged.
//
// # Writing
//
// [WriteAtomic] replaces a file through a temporary file and a rename, so that readers and
// crashes see the old or the new content, never half of one. The mode (and, for root, the
// owner) of the existing file is kept, symbolic links are written through, and on failure
// nothing changes on disk.
//
// # Classifying
//
// [Sniff] tells text from binary (a NUL byte in the first 8 KiB, as git does) and recognises
// PNG, JPEG, GIF and WebP images by extension and signature together.
//
// # Line endings
//
// Editing works on LF text. [DetectCRLF] tells whether a file is predominantly CRLF, [ToLF]
// normalises the text for editing and [ToCRLF] restores CRLF endings before writing, so that a
// Windows file stays a Windows file.
package textfile
