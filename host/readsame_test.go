package host

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readIfChanged finds a file the same as the one read before only when
// it is byte for byte, whatever changed in it (its seal's header, its
// start, middle or end, its length), and otherwise returns it as read.
func TestReadIfChanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	mac := strings.Repeat("a", 64)
	sealed := sealField + mac + `",` + `"k": "` + strings.Repeat("v", 600<<10) + "\"}\n"
	for _, was := range []string{"", "{}", "{}\n", sealField + mac + `"}`, sealed, `{"plain": 1}`, strings.Repeat("x", 300<<10)} {
		os.WriteFile(path, []byte(was), 0o600)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		im, err := readImage(f, int64(len(was)))
		f.Close()
		if err != nil || string(im.bytes()) != was {
			t.Fatalf("readImage(%.40q): %.40q %v", was, im.bytes(), err)
		}
		if im.body != nil && (im.body[0] != '{' || !bytes.Equal(im.body[1:], im.rest)) {
			t.Fatalf("body %.40q", im.body)
		}
		variants := map[string]string{"same": was, "grown": was + " ", "empty": ""}
		if len(was) > 0 {
			variants["shrunk"] = was[:len(was)-1]
			for _, at := range []int{0, len(was) / 2, len(was) - 1, min(len(was)-1, sealHead-1), min(len(was)-1, 300<<10)} {
				b := []byte(was)
				b[at] ^= 1
				variants["changed at "+string(rune('0'+at%10))] = string(b)
			}
		}
		for name, now := range variants {
			os.WriteFile(path, []byte(now), 0o600)
			got, same, err := readIfChanged(path, im)
			if err != nil || string(got.bytes()) != now || same != (now == was && was != "") {
				t.Errorf("%.20q, %s: same %v, %.40q, %v", was, name, same, got.bytes(), err)
			}
		}
	}
}
