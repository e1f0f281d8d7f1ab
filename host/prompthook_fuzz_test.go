package host

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseVerdict: parseVerdict never panics, and whatever it accepts is
// what a plain decoder reads from the same text (once a fence is off):
// one object with a boolean "ok" and at most a string "reason". An
// answer it takes as "ok": true holds a literal true for "ok".
func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{
		`{"ok": true}`, `{"ok": false, "reason": "Run the tests."}`, "```json\n{\"ok\": true}\n```", "```\n{\"ok\":false}\n```",
		`{"ok": true, "ok": false}`, `{"ok": "true"}`, `{"decision": "approve"}`, `{"ok": true} {"ok": false}`, `[true]`, ``, `yes`,
		`{"ok": tru}`, `{"ok": true, "reason": 1}`, `{"reason": "x"}`, "```json\n{\"ok\": true}", `{"ok":true,}`, `{"o\u006b": true}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok, reason, err := parseVerdict(s)
		if err != nil {
			if ok || reason != "" {
				t.Fatalf("%q: an error (%v) with a verdict ok=%v reason=%q", s, err, ok, reason)
			}
			return
		}
		body := strings.TrimSpace(s)
		if rest, fenced := strings.CutPrefix(body, "```"); fenced {
			_, rest, _ = strings.Cut(rest, "\n")
			body = strings.TrimSuffix(strings.TrimSpace(rest), "```")
		}
		var v struct {
			OK     *bool   `json:"ok"`
			Reason *string `json:"reason"`
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &v) != nil || json.Unmarshal([]byte(body), &m) != nil || v.OK == nil || *v.OK != ok {
			t.Fatalf("%q: accepted as ok=%v, which a decoder does not read", s, ok)
		}
		for k := range m {
			if k != "ok" && k != "reason" {
				t.Fatalf("%q: accepted with a field %q", s, k)
			}
		}
		if v.Reason != nil && *v.Reason != reason || v.Reason == nil && reason != "" {
			t.Fatalf("%q: reason %q, a decoder reads %v", s, reason, v.Reason)
		}
		if ok && string(m["ok"]) != "true" {
			t.Fatalf("%q: ok without a literal true (%s)", s, m["ok"])
		}
	})
}

// TestPrintable: a reason keeps its text, lines and tabs, and loses the
// escape sequences a terminal would obey.
func TestPrintable(t *testing.T) {
	if got := printable("Run \x1b]0;pwned\x07the tests\u009b2J\n\tnow. é"); got != "Run ]0;pwnedthe tests2J\n\tnow. é" {
		t.Errorf("printable: %q", got)
	}
}
