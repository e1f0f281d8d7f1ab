package host

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestStripJSONC(t *testing.T) {
	in := `{
  // Claude Code settings
  "permissions": {
    "allow": ["Bash(npm run test:*)", "Read(**/*.md)",], /* trailing comma */
    "deny": ["Read(./.env)", "Bash(curl:*) // not a comment"],
  },
  "url": "http://example.com/*not*/a/comment",
}`
	var v map[string]any
	if err := json.Unmarshal(stripJSONC([]byte(in)), &v); err != nil {
		t.Fatalf("%v\n%s", err, stripJSONC([]byte(in)))
	}
	b, _ := json.Marshal(v)
	want := `{"permissions":{"allow":["Bash(npm run test:*)","Read(**/*.md)"],"deny":["Read(./.env)","Bash(curl:*) // not a comment"]},"url":"http://example.com/*not*/a/comment"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// Plain JSON passes unchanged; nothing panics; the length is kept.
func FuzzStripJSONC(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,],}`, `{"a":"//x"}`, `/* x`, `"\\"//`, `[,]`, `{"a":"\"/*"}/*`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := stripJSONC([]byte(s))
		if len(out) != len(s) {
			t.Fatalf("length %d -> %d", len(s), len(out))
		}
		if json.Valid([]byte(s)) {
			var a, b any
			if json.Unmarshal([]byte(s), &a) != nil || json.Unmarshal(out, &b) != nil {
				t.Fatalf("valid JSON broken: %q -> %q", s, out)
			}
			x, _ := json.Marshal(a)
			y, _ := json.Marshal(b)
			if !bytes.Equal(x, y) {
				t.Fatalf("valid JSON changed: %q -> %q", s, out)
			}
		}
	})
}
