package proc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// refDecode is the reference decoding of a complete raw stream: invalid bytes
// become U+FFFD one byte at a time (as range over a string does) and "\r\n"
// becomes "\n". \r and \n are ASCII, so replacing after decoding is
// equivalent to tokenising.
func refDecode(b []byte) string {
	var sb strings.Builder
	for _, r := range string(b) {
		sb.WriteRune(r)
	}
	return strings.ReplaceAll(sb.String(), "\r\n", "\n")
}

// feed writes data into a fresh capture in the given chunk sizes and returns
// it finished, together with everything takeNew handed out.
func feed(t testing.TB, data []byte, chunks []int, head, tail int) (*capture, string) {
	t.Helper()
	c := newCapture(head, tail)
	var streamed strings.Builder
	rest := data
	for i := 0; len(rest) > 0; i++ {
		n := len(rest)
		if len(chunks) > 0 {
			n = min(max(chunks[i%len(chunks)], 1), len(rest))
		}
		c.Write(rest[:n])
		rest = rest[n:]
		streamed.WriteString(c.takeNew())
	}
	c.finish()
	streamed.WriteString(c.takeNew())
	return c, streamed.String()
}

// checkCapture asserts every invariant of the accumulator for one input.
func checkCapture(t testing.TB, data []byte, chunks []int, hl, tl int) {
	t.Helper()
	c, streamed := feed(t, data, chunks, hl, tl)
	head, tail := string(c.head), string(c.tail)
	if !utf8.ValidString(head) || !utf8.ValidString(tail) {
		t.Fatalf("invalid UTF-8: head %q tail %q", head, tail)
	}
	if streamed != head {
		t.Fatalf("streamed %q != head %q", streamed, head)
	}
	if len(head) > hl || len(tail) > tl {
		t.Fatalf("limits exceeded: head %d/%d tail %d/%d", len(head), hl, len(tail), tl)
	}
	if c.total != int64(len(data)) {
		t.Fatalf("total %d != %d", c.total, len(data))
	}
	d := c.dropped()
	if d < 0 || c.headRaw+c.tailRaw+d != c.total {
		t.Fatalf("accounting: headRaw %d + tailRaw %d + dropped %d != total %d", c.headRaw, c.tailRaw, d, c.total)
	}
	if want := refDecode(data[:c.headRaw]); head != want {
		t.Fatalf("head %q != decode of first %d raw bytes %q", head, c.headRaw, want)
	}
	if want := refDecode(data[c.total-c.tailRaw:]); tail != want {
		t.Fatalf("tail %q != decode of last %d raw bytes %q", tail, c.tailRaw, want)
	}
	all := refDecode(data)
	if len(all) <= hl && (head != all || tail != "" || d != 0) {
		t.Fatalf("output fits the head but head=%q tail=%q dropped=%d; want head %q", head, tail, d, all)
	}
	if d == 0 && head+tail != all {
		t.Fatalf("nothing dropped but head+tail %q != %q", head+tail, all)
	}
	if rest := refDecode(data[c.headRaw:]); rest != "" {
		// The head is maximal: the next unit did not fit.
		_, n := utf8.DecodeRuneInString(rest)
		if len(head)+n <= hl {
			t.Fatalf("head %q closed early: next rune of %d bytes would fit in %d", head, n, hl)
		}
		if tl >= utf8.UTFMax && tail == "" {
			t.Fatalf("tail empty although %d raw bytes followed the head (tail limit %d)", c.total-c.headRaw, tl)
		}
	}
}

func TestCaptureBasics(t *testing.T) {
	euro := "€" // 3 bytes
	cases := []struct {
		name       string
		in         string
		chunks     []int
		hl, tl     int
		head, tail string
		dropped    int64
	}{
		{"fits", "hello\n", nil, 10, 10, "hello\n", "", 0},
		{"exact", "abcdef", nil, 3, 3, "abc", "def", 0},
		{"dropped", "0123456789", nil, 3, 2, "012", "89", 5},
		{"crlf", "a\r\nb\r\n", []int{1}, 100, 10, "a\nb\n", "", 0},
		{"lone cr", "a\rb\r", []int{1}, 100, 10, "a\rb\r", "", 0},
		{"cr cr lf", "\r\r\n", []int{1}, 100, 10, "\r\n", "", 0},
		{"invalid", "a\xff\xfeb", nil, 100, 10, "a\uFFFD\uFFFDb", "", 0},
		{"truncated rune at eof", "a\xe2\x82", []int{1}, 100, 10, "a\uFFFD\uFFFD", "", 0},
		{"rune split across writes", "x" + euro + "y", []int{2, 1, 1, 1}, 100, 10, "x" + euro + "y", "", 0},
		{"head cut before rune", "ab" + euro + "cd", nil, 4, 10, "ab", euro + "cd", 0},
		{"head cut before split rune", "ab" + euro + "cd", []int{3}, 4, 10, "ab", euro + "cd", 0},
		{"tail resync", "0123" + euro + euro, nil, 2, 5, "01", euro, 5},
		{"tail trims expansion", "ab\xff\xff\xff", nil, 2, 4, "ab", "\uFFFD", 2},
		{"crlf across head boundary", "ab\r\ncd", []int{3}, 2, 10, "ab", "\ncd", 0},
		{"no tail", "abcdef", nil, 2, -1, "ab", "", 4},
		{"no head", "abcdef", nil, -1, 2, "", "ef", 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := feed(t, []byte(tc.in), tc.chunks, max(tc.hl, 0), max(tc.tl, 0))
			if string(c.head) != tc.head || string(c.tail) != tc.tail || c.dropped() != tc.dropped {
				t.Errorf("got head %q tail %q dropped %d; want %q %q %d", c.head, c.tail, c.dropped(), tc.head, tc.tail, tc.dropped)
			}
			checkCapture(t, []byte(tc.in), tc.chunks, max(tc.hl, 0), max(tc.tl, 0))
		})
	}
}

func TestCaptureLarge(t *testing.T) {
	var b bytes.Buffer
	for i := 0; b.Len() < 1<<20; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("é€𝄞", i%7))
		b.WriteString("\r\n\xff")
	}
	for _, chunk := range []int{1, 7, 4096, 65536} {
		checkCapture(t, b.Bytes(), []int{chunk}, 20000, 10000)
		checkCapture(t, b.Bytes(), []int{chunk, 3}, 5, 7)
	}
}

func FuzzOutput(f *testing.F) {
	f.Add([]byte("hello world\n"), []byte{3}, uint16(4), uint16(4))
	f.Add([]byte("a€b\r\nc\xff\xfe𝄞"), []byte{1, 2}, uint16(3), uint16(5))
	f.Add([]byte("\r\r\n\xe2\x82"), []byte{1}, uint16(0), uint16(2))
	f.Add(bytes.Repeat([]byte("é\r\n"), 50), []byte{5, 1, 9}, uint16(10), uint16(7))
	f.Fuzz(func(t *testing.T, data, cuts []byte, hl, tl uint16) {
		chunks := make([]int, len(cuts))
		for i, c := range cuts {
			chunks[i] = int(c)
		}
		checkCapture(t, data, chunks, int(hl%512), int(tl%512))
	})
}

// TestStreamKeepsNothing: with Options.Stream every byte reaches onOutput
// (decoded, runes never split) and Head and Tail stay empty, so a command
// printing far more than HeadLimit+TailLimit is seen whole and kept by
// nobody but the callback.
func TestStreamKeepsNothing(t *testing.T) {
	var got strings.Builder
	res, err := Run(hangGuard(t), `i=0; while [ $i -lt 3000 ]; do printf 'line %d é\n' $i; i=$((i+1)); done`, &Options{Stream: true, HeadLimit: 10, TailLimit: 10}, func(s string) {
		got.WriteString(s)
	})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&want, "line %d é\n", i)
	}
	if got.String() != want.String() {
		t.Errorf("streamed %d bytes, want %d", got.Len(), want.Len())
	}
	if res.Head != "" || res.Tail != "" || res.Total != int64(want.Len()) || res.ExitCode != 0 {
		t.Errorf("got head %q tail %q total %d exit %d", res.Head, res.Tail, res.Total, res.ExitCode)
	}
}
