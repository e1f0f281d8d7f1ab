package sbinit

import "testing"

func TestRecords(t *testing.T) {
	long := string(make([]byte, 300))
	var b []byte
	b = Append(b, TagWrite, "/a b")
	b = Append(b, TagArgv, "")
	b = Append(b, TagRead, long)
	want := []struct {
		tag  byte
		data string
	}{{TagWrite, "/a b"}, {TagArgv, ""}, {TagRead, long}}
	for _, w := range want {
		tag, data, rest, ok := Next(b)
		if !ok || tag != w.tag || data != w.data {
			t.Fatalf("Next = %q %q %v, want %q %q", tag, data, ok, w.tag, w.data)
		}
		b = rest
	}
	if _, _, _, ok := Next(b); ok {
		t.Fatal("records after the last one")
	}
	for _, bad := range [][]byte{{'W'}, {'W', 5, 'a'}, {'W', 0x80, 0x80, 0x80, 0x80, 0x80, 1}} {
		if _, _, _, ok := Next(bad); ok {
			t.Errorf("Next(%q) accepted a malformed record", bad)
		}
	}
}

func FuzzNext(f *testing.F) {
	f.Add(Append(nil, TagWrite, "/tmp"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for {
			_, data, rest, ok := Next(b)
			if !ok {
				return
			}
			if len(rest) >= len(b) || len(data) > len(b) {
				t.Fatal("Next did not consume its input")
			}
			b = rest
		}
	})
}
