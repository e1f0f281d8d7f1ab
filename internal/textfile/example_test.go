package textfile_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/toolscope/toolscope/internal/textfile"
)

// Read a window of a file, as the Read tool does, and learn whether more follows.
func ExampleReadLines() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "notes.txt")
	os.WriteFile(path, []byte("alpha\r\nbeta\r\ngamma\r\ndelta\r\n"), 0o644)

	s, err := textfile.ReadLines(path, &textfile.ReadOptions{Offset: 2, Limit: 2})
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range s.Lines {
		fmt.Printf("%6d\t%s\n", l.Number, l.Text)
	}
	fmt.Println("more:", s.More, "total:", s.TotalLines, "hashed:", s.Hashed)
	// Output:
	//      2	beta
	//      3	gamma
	// more: true total: 4 hashed: true
}

// Edit a file safely: check it did not change since it was read, keep its line endings,
// and replace it atomically.
func ExampleWriteAtomic() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config.ini")
	os.WriteFile(path, []byte("[core]\r\nname = old\r\n"), 0o600)

	read, _ := textfile.ReadLines(path, nil) // what the model saw

	now, data, err := textfile.FingerprintFile(path, 0)
	if err != nil || !now.Same(read.Fingerprint()) {
		log.Fatal("file changed since it was read")
	}
	crlf := textfile.DetectCRLF(data)
	text := textfile.ToLF(string(data))
	text = text[:len(text)-len("old\n")] + "new\n"
	if crlf {
		text = textfile.ToCRLF(text)
	}
	if err := textfile.WriteAtomic(path, []byte(text), nil); err != nil {
		log.Fatal(err)
	}
	out, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	fmt.Printf("%q %v\n", out, fi.Mode())
	// Output:
	// "[core]\r\nname = new\r\n" -rw-------
}
