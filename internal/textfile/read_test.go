package textfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/toolscope/toolscope/internal/testproc"
)

func writeTemp(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// refLines is the reference split: LF, CRLF and lone CR end lines; invalid bytes become
// U+FFFD one by one.
func refLines(content string) []string {
	var out []string
	for s := content; s != ""; {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			out = append(out, string([]rune(s)))
			break
		}
		out = append(out, string([]rune(s[:i])))
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	return out
}

func texts(s *Slice) []string {
	var out []string
	for _, l := range s.Lines {
		out = append(out, l.Text)
	}
	return out
}

func TestReadLines(t *testing.T) {
	five := "one\ntwo\nthree\nfour\nfive\n"
	tests := []struct {
		name       string
		content    string
		opts       ReadOptions
		want       []string
		first      int // number of the first line
		more       bool
		totalKnown bool
		total      int
		whole      bool
	}{
		{"all", five, ReadOptions{}, []string{"one", "two", "three", "four", "five"}, 1, false, true, 5, true},
		{"first two", five, ReadOptions{Limit: 2, HashLimit: -1}, []string{"one", "two"}, 1, true, false, 0, false},
		{"first two hashed", five, ReadOptions{Limit: 2}, []string{"one", "two"}, 1, true, true, 5, false},
		{"middle", five, ReadOptions{Offset: 2, Limit: 3, HashLimit: -1}, []string{"two", "three", "four"}, 2, true, false, 0, false},
		{"last exactly", five, ReadOptions{Offset: 4, Limit: 2, HashLimit: -1}, []string{"four", "five"}, 4, false, true, 5, false},
		{"last, limit beyond", five, ReadOptions{Offset: 5, Limit: 10, HashLimit: -1}, []string{"five"}, 5, false, true, 5, false},
		{"offset past EOF", five, ReadOptions{Offset: 6, HashLimit: -1}, nil, 0, false, true, 5, false},
		{"offset far past EOF", five, ReadOptions{Offset: 1000}, nil, 0, false, true, 5, false},
		{"offset 0 means 1", five, ReadOptions{Offset: 0, Limit: 1, HashLimit: -1}, []string{"one"}, 1, true, false, 0, false},
		{"empty file", "", ReadOptions{}, nil, 0, false, true, 0, true},
		{"empty file offset 2", "", ReadOptions{Offset: 2}, nil, 0, false, true, 0, false},
		{"no final newline", "a\nb", ReadOptions{}, []string{"a", "b"}, 1, false, true, 2, true},
		{"no final newline, limit", "a\nb", ReadOptions{Limit: 1, HashLimit: -1}, []string{"a"}, 1, true, false, 0, false},
		{"only newline", "\n", ReadOptions{}, []string{""}, 1, false, true, 1, true},
		{"blank lines", "\n\n\n", ReadOptions{Offset: 2}, []string{"", ""}, 2, false, true, 3, false},
		{"crlf", "a\r\nb\r\n", ReadOptions{}, []string{"a", "b"}, 1, false, true, 2, true},
		{"lone cr", "a\rb\rc", ReadOptions{}, []string{"a", "b", "c"}, 1, false, true, 3, true},
		{"cr then crlf", "a\r\r\nb", ReadOptions{}, []string{"a", "", "b"}, 1, false, true, 3, true},
		{"lf cr", "a\n\rb", ReadOptions{}, []string{"a", "", "b"}, 1, false, true, 3, true},
		{"trailing cr", "a\r", ReadOptions{}, []string{"a"}, 1, false, true, 1, true},
		{"more after crlf", "a\r\nb", ReadOptions{Limit: 1, HashLimit: -1}, []string{"a"}, 1, true, false, 0, false},
		{"no more after trailing crlf", "a\r\n", ReadOptions{Limit: 1, HashLimit: -1}, []string{"a"}, 1, false, true, 1, true},
		{"invalid utf8", "a\xffb\xc3\n\xe2\x82", ReadOptions{}, []string{"a\ufffdb\ufffd", "\ufffd\ufffd"}, 1, false, true, 2, true},
		{"utf8 kept", "héllo, 世界\n", ReadOptions{}, []string{"héllo, 世界"}, 1, false, true, 1, true},
		{"nul bytes are text here", "a\x00b\n", ReadOptions{}, []string{"a\x00b"}, 1, false, true, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeTemp(t, tt.content)
			s, err := ReadLines(p, &tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, texts(s)); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			for i, l := range s.Lines {
				if l.Number != tt.first+i {
					t.Errorf("line %d numbered %d, want %d", i, l.Number, tt.first+i)
				}
				if l.Truncated {
					t.Errorf("line %d truncated", l.Number)
				}
			}
			got := [4]any{s.More, s.TotalLinesKnown, s.TotalLines, s.Whole}
			want := [4]any{tt.more, tt.totalKnown, tt.total, tt.whole}
			if got != want {
				t.Errorf("More, TotalLinesKnown, TotalLines, Whole = %v, want %v", got, want)
			}
			if s.Size != int64(len(tt.content)) {
				t.Errorf("Size = %d", s.Size)
			}
		})
	}
}

func TestReadLinesNilOptions(t *testing.T) {
	var b strings.Builder
	for i := range 2500 {
		b.WriteString(strconv.Itoa(i) + "\n")
	}
	s, err := ReadLines(writeTemp(t, b.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Lines) != DefaultLimit || !s.More || !s.Hashed || s.TotalLines != 2500 {
		t.Errorf("got %d lines, More %v, Hashed %v, TotalLines %d", len(s.Lines), s.More, s.Hashed, s.TotalLines)
	}
}

func TestReadLinesTruncate(t *testing.T) {
	long := strings.Repeat("世", 3000)
	p := writeTemp(t, "short\n"+long+"\n"+strings.Repeat("x", 2000)+"\nend")
	s, err := ReadLines(p, &ReadOptions{MaxLineChars: 2000})
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{
		{1, "short", false},
		{2, strings.Repeat("世", 2000), true},
		{3, strings.Repeat("x", 2000), false},
		{4, "end", false},
	}
	if diff := cmp.Diff(want, s.Lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// Default MaxLineChars, and invalid bytes counted one rune each.
	p = writeTemp(t, strings.Repeat("\xff", 2500))
	s, err = ReadLines(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := s.Lines[0]; l.Text != strings.Repeat("\ufffd", DefaultMaxLineChars) || !l.Truncated {
		t.Errorf("got %d runes, truncated %v", len([]rune(l.Text)), l.Truncated)
	}
}

// TestReadLinesHugeLine: a line much longer than the buffer is consumed without being kept.
func TestReadLinesHugeLine(t *testing.T) {
	p := writeTemp(t, "a\n"+strings.Repeat("y", 5<<20)+"\r\nb\n")
	s, err := ReadLines(p, &ReadOptions{MaxLineChars: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{{1, "a", false}, {2, "yyyyyyyyyy", true}, {3, "b", false}}
	if diff := cmp.Diff(want, s.Lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestReadLinesBufferBoundaries puts every kind of line ending across the buffer boundary.
func TestReadLinesBufferBoundaries(t *testing.T) {
	content := "ab\r\ncd\re\nf\r\r\ng\n\nh\r"
	want := refLines(content)
	for size := 1; size <= len(content)+1; size++ {
		setBufSize(t, size)
		s, err := ReadLines(writeTemp(t, content), nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, texts(s)); diff != "" {
			t.Errorf("buffer %d (-want +got):\n%s", size, diff)
		}
		s, err = ReadLines(writeTemp(t, content), &ReadOptions{Offset: 3, Limit: 2, HashLimit: -1})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want[2:4], texts(s)); diff != "" || !s.More {
			t.Errorf("buffer %d, offset 3 (-want +got):\n%s", size, diff)
		}
	}
}

func setBufSize(t testing.TB, n int) {
	old := readBufSize
	readBufSize = n
	t.Cleanup(func() { readBufSize = old })
}

func TestReadLinesHash(t *testing.T) {
	content := strings.Repeat("0123456789\n", 100) // 1100 bytes
	sum := sha256.Sum256([]byte(content))
	p := writeTemp(t, content)
	for _, tc := range []struct {
		limit  int64
		hashed bool
	}{
		{0, true}, {1100, true}, {1099, false}, {1, false}, {-1, false}, {1 << 40, true},
	} {
		s, err := ReadLines(p, &ReadOptions{Offset: 10, Limit: 3, HashLimit: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		if s.Hashed != tc.hashed || (s.Hashed && s.SHA256 != sum) || (!s.Hashed && s.SHA256 != [32]byte{}) {
			t.Errorf("HashLimit %d: Hashed %v, sum ok %v", tc.limit, s.Hashed, s.SHA256 == sum)
		}
		// Hashing reads to the end, so the total is known; otherwise the scan stopped early.
		if s.TotalLinesKnown != tc.hashed || (tc.hashed && s.TotalLines != 100) {
			t.Errorf("HashLimit %d: TotalLinesKnown %v, TotalLines %d", tc.limit, s.TotalLinesKnown, s.TotalLines)
		}
		if len(s.Lines) != 3 || s.Lines[0].Number != 10 || !s.More {
			t.Errorf("HashLimit %d: lines %+v, More %v", tc.limit, s.Lines, s.More)
		}
	}
}

func TestReadLinesErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadLines(dir, nil); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: %v", err)
	}
	if _, err := ReadLines(filepath.Join(dir, "missing"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := ReadLines("/dev/null", nil); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/null: %v", err)
	}
}

func FuzzReadLines(f *testing.F) {
	f.Add([]byte("a\nb\r\nc\rd"), 1, 2, 3, 4)
	f.Add([]byte(""), 0, 0, 0, 0)
	f.Add([]byte("\r\r\n\n\xff\xfe世界\r"), 2, 1, 1, 1)
	f.Fuzz(func(t *testing.T, content []byte, offset, limit, maxChars, bufSize int) {
		offset, limit, maxChars = 1+abs(offset)%12, 1+abs(limit)%12, 1+abs(maxChars)%8
		setBufSize(t, 1+abs(bufSize)%16)
		o := &ReadOptions{Offset: offset, Limit: limit, MaxLineChars: maxChars, HashLimit: int64(bufSize % 3)}
		// The reader returns short reads, so line endings fall across reads too.
		var r io.Reader = bytes.NewReader(content)
		if bufSize%2 == 0 {
			r = iotest.HalfReader(r)
		}
		s, err := readSlice(r, int64(len(content)), o)
		if err != nil {
			t.Fatal(err)
		}
		ref := refLines(string(content))
		var want []Line
		for i := offset - 1; i < len(ref) && i < offset-1+limit; i++ {
			r := []rune(ref[i])
			want = append(want, Line{Number: i + 1, Text: string(r[:min(len(r), maxChars)]), Truncated: len(r) > maxChars})
		}
		if diff := cmp.Diff(want, s.Lines); diff != "" {
			t.Fatalf("%q offset %d limit %d max %d (-want +got):\n%s", content, offset, limit, maxChars, diff)
		}
		if more := offset-1+limit < len(ref); s.More != more {
			t.Fatalf("More = %v, want %v", s.More, more)
		}
		if s.TotalLinesKnown && s.TotalLines != len(ref) {
			t.Fatalf("TotalLines = %d, want %d", s.TotalLines, len(ref))
		}
		if s.Whole != (offset == 1 && len(ref) <= limit) {
			t.Fatalf("Whole = %v", s.Whole)
		}
		if s.Hashed != (o.HashLimit > 0 && int64(len(content)) <= o.HashLimit) || (s.Hashed && s.SHA256 != sha256.Sum256(content)) {
			t.Fatal("wrong hash")
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // math.MinInt
			return 0
		}
		return -n
	}
	return n
}

// rssChildEnv switches the test binary into the child role of TestReadLinesRSS.
const rssChildEnv = "TEXTFILE_RSS_CHILD"

type rssResult struct {
	Lines []Line
	More  bool
	Err   string
}

// TestReadLinesRSS reads the last lines of a 2 GB file in a child process and checks that
// the child's peak resident memory stays small.
func TestReadLinesRSS(t *testing.T) {
	if spec := os.Getenv(rssChildEnv); spec != "" {
		path, off, _ := strings.Cut(spec, ":")
		offset, _ := strconv.Atoi(off)
		var res rssResult
		s, err := ReadLines(path, &ReadOptions{Offset: offset, Limit: 20})
		if err != nil {
			res.Err = err.Error()
		} else {
			res.Lines, res.More = s.Lines, s.More
		}
		json.NewEncoder(os.Stdout).Encode(res)
		testproc.PrintPeakRSS()
		return
	}
	if testing.Short() {
		t.Skip("writes a 2 GB file")
	}
	if raceEnabled {
		t.Skip("the race detector multiplies memory use; `make test` runs this test again without it")
	}
	const lineLen = 100
	const nLines = 2_000_000_000 / lineLen
	p := filepath.Join(t.TempDir(), "big.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	line := []byte(strings.Repeat("x", lineLen-1) + "\n")
	for i := 1; i <= nLines; i++ {
		copy(line, "line ")
		n := copy(line[5:], strconv.Itoa(i))
		line[5+n] = ' '
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestReadLinesRSS$")
	cmd.Env = append(os.Environ(), rssChildEnv+"="+p+":"+strconv.Itoa(nLines-19))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var res rssResult
	if err := json.Unmarshal(out[:strings.IndexByte(string(out), '\n')+1], &res); err != nil {
		t.Fatalf("child output %q: %v", out, err)
	}
	if res.Err != "" || len(res.Lines) != 20 || res.More {
		t.Fatalf("child read %d lines, More %v, error %q", len(res.Lines), res.More, res.Err)
	}
	if last := res.Lines[19]; last.Number != nLines || !strings.HasPrefix(last.Text, "line "+strconv.Itoa(nLines)+" x") {
		t.Fatalf("last line %d %q", last.Number, last.Text[:20])
	}
	maxRSS := testproc.PeakRSS(cmd.ProcessState, out) // KiB
	t.Logf("child peak RSS reading the last 20 lines of a %d MB file: %d KiB", nLines*lineLen>>20, maxRSS)
	if maxRSS >= 64<<10 {
		t.Errorf("peak RSS %d KiB, want < 64 MiB", maxRSS)
	}
}

func BenchmarkReadLinesEnd(b *testing.B) {
	const nLines = 1_000_000 // 100 MB
	var sb strings.Builder
	for i := range nLines {
		sb.WriteString("line ")
		sb.WriteString(strconv.Itoa(i))
		sb.WriteString(strings.Repeat(" x", 45-len(strconv.Itoa(i))/2))
		sb.WriteByte('\n')
	}
	p := writeTemp(b, sb.String())
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		s, err := ReadLines(p, &ReadOptions{Offset: nLines - 19, Limit: 20})
		if err != nil || len(s.Lines) != 20 {
			b.Fatal(err)
		}
	}
}

// TestReadLinesGrowing: a file that grows past HashLimit while being read is not hashed and
// not read to its end.
func TestReadLinesGrowing(t *testing.T) {
	content := strings.Repeat("line\n", 1000) // 5000 bytes, but "stat" says 100
	s, err := readSlice(strings.NewReader(content), 100, &ReadOptions{Offset: 1, Limit: 2, MaxLineChars: 10, HashLimit: 200})
	if err != nil {
		t.Fatal(err)
	}
	if s.Hashed || s.TotalLinesKnown || !s.More || len(s.Lines) != 2 {
		t.Errorf("Hashed %v, TotalLinesKnown %v, More %v, %d lines", s.Hashed, s.TotalLinesKnown, s.More, len(s.Lines))
	}
}

// TestReadSmallFileAllocs: reading a small file allocates about what its lines take, not a
// buffer of the largest read (64 KiB a read before the read buffers were pooled; a Read
// through the MCP server sniffs, reads and hashes, and this was most of its cost).
func TestReadSmallFileAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates for itself; `make test` runs this test again without it")
	}
	var sb strings.Builder
	for i := range 64 {
		fmt.Fprintf(&sb, "line %02d: the quick brown fox jumps over the lazy dog 0123456789\n", i+1)
	}
	p := writeTemp(t, sb.String()) // 4 KB
	r := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, _, err := Sniff(p); err != nil {
				b.Fatal(err)
			}
			if s, err := ReadLines(p, nil); err != nil || len(s.Lines) != 64 {
				b.Fatal(err)
			}
		}
	})
	t.Logf("Sniff and ReadLines of 4 KB: %d B, %d allocations", r.AllocedBytesPerOp(), r.AllocsPerOp())
	if r.AllocedBytesPerOp() > 16<<10 {
		t.Errorf("Sniff and ReadLines of a 4 KB file allocate %d B, want at most 16 KiB", r.AllocedBytesPerOp())
	}
}
