package archivelist

import (
	"bytes"
	"path/filepath"
	"testing"
)

// A member judged to stay below the extraction directory must stay there
// once the kernel walks it (no .. above the top, nothing absolute).
func FuzzMemberPath(f *testing.F) {
	for _, s := range []string{"a/b", "../x", "a/../../x", "/etc/x", "./a/./b/..", "a//b/../..", "..", ".", ""} {
		f.Add(s, 0, false)
	}
	f.Fuzz(func(t *testing.T, name string, strip int, abs bool) {
		if strip < 0 || strip > 8 {
			return
		}
		rel, absolute, inside := Path(name, strip, abs)
		if absolute != "" && inside {
			t.Fatalf("%q: absolute %q and inside", name, absolute)
		}
		if inside && rel != "" {
			if filepath.IsAbs(rel) || rel == ".." || len(rel) > 2 && rel[:3] == "../" {
				t.Fatalf("%q: inside but %q", name, rel)
			}
			if j := filepath.Join("/top/dir", rel); j != "/top/dir" && !bytes.HasPrefix([]byte(j), []byte("/top/dir/")) {
				t.Fatalf("%q: inside but lands at %q", name, j)
			}
		}
	})
}
