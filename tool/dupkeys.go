package tool

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/toolscope/toolscope/internal/jsonscan"
)

// A call's input is read twice over: the toolkit and the permission engine
// read it one way, and whatever else sees it (a hook's host, a log, the
// approval a person reads) may read it another. encoding/json takes the
// last of two equal keys, and fills a struct field from a key that matches
// its name regardless of case; a JavaScript host takes an exact key. So
// {"command":"ls","Command":"rm -rf ~"} is "rm -rf ~" to a Go tool and "ls"
// to a reader that looks for "command". An input with such a pair means
// two things, and is refused: for every tool, a key written twice (JSON
// readers differ on which one counts); for a tool that decodes its input
// in Go (a built-in one), two keys equal but for case too. A tool run
// elsewhere (an MCP server's) gets its input as sent, where "Accept" and
// "accept" may be two things.

// dupKey returns the first key of an object in the valid JSON b that
// repeats an earlier key of the same object, exactly or, with fold, but
// for case (bytes.EqualFold, the folding encoding/json matches struct
// fields with), and that earlier key, as written between the quotes; ok is
// false when there is none.
func dupKey(b []byte, fold bool) (key, earlier string, ok bool) {
	// Each open object or array has a frame; an object's keys so far are
	// spans of b in keys, from the frame's first.
	type span struct{ from, to int }
	type frame struct {
		object    bool
		expectKey bool
		first     int // index into keys
	}
	var (
		framesBuf [16]frame
		keysBuf   [32]span
	)
	frames, keys := framesBuf[:0], keysBuf[:0]
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '{':
			frames = append(frames, frame{object: true, expectKey: true, first: len(keys)})
		case '[':
			frames = append(frames, frame{first: len(keys)})
		case '}', ']':
			if n := len(frames); n > 0 {
				keys = keys[:frames[n-1].first]
				frames = frames[:n-1]
			}
		case ',':
			if n := len(frames); n > 0 && frames[n-1].object {
				frames[n-1].expectKey = true
			}
		case '"':
			end := jsonscan.StringEnd(b, i)
			if end < 0 {
				return "", "", false // not JSON: the decoder has refused it
			}
			start := i + 1
			escaped := bytes.IndexByte(b[start:end], '\\') >= 0
			i = end - 1 // at the closing quote
			n := len(frames)
			if n == 0 || !frames[n-1].object || !frames[n-1].expectKey {
				continue // a value
			}
			frames[n-1].expectKey = false
			k := span{start, i}
			for _, e := range keys[frames[n-1].first:] {
				if sameKey(b, e.from, e.to, k.from, k.to, escaped, fold) {
					return string(b[k.from:k.to]), string(b[e.from:e.to]), true
				}
			}
			keys = append(keys, k)
		}
	}
	return "", "", false
}

// sameKey reports whether the JSON string contents b[f1:t1] and b[f2:t2]
// are the same key: equal, or with fold equal but for case. Escapes are
// read when either holds a backslash.
func sameKey(b []byte, f1, t1, f2, t2 int, escaped, fold bool) bool {
	x, y := b[f1:t1], b[f2:t2]
	// Raw bytes compare as the decoded keys do unless an escape or a
	// byte that is not UTF-8 (decoded as U+FFFD, whatever it was) is in
	// one of them.
	if !escaped && bytes.IndexByte(x, '\\') < 0 && utf8.Valid(x) && utf8.Valid(y) {
		return bytes.Equal(x, y) || fold && bytes.EqualFold(x, y)
	}
	var sx, sy string
	if json.Unmarshal(b[f1-1:t1+1], &sx) != nil || json.Unmarshal(b[f2-1:t2+1], &sy) != nil {
		return true // unreadable: not told apart, so refused
	}
	return sx == sy || fold && bytes.EqualFold([]byte(sx), []byte(sy))
}
