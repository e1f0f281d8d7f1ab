package outside

import (
	"bytes"
	"strings"
)

// The plain subset of git's configuration syntax, which toolscope reads
// itself instead of starting git (a process costs more than the rest of a
// `toolscope check`):
//
//	# a comment, or ; a comment, on a line of its own
//	[section]
//	[section "subsection"]
//		key = value
//		key
//
// A section name is letters, digits and '-'; a subsection is printable
// ASCII without '"' or '\'; a key starts with a letter and holds letters,
// digits and '-'; a value is printable ASCII without '"', '\', '#' or ';'
// (so no quoting, escapes, continuation lines or trailing comments) and
// no tab. Every byte of the file is printable ASCII, a tab or a newline.
// Read this way the file means one thing only, the same to git: section
// and key in lower case, the subsection as written, the value with its
// leading and trailing blanks dropped. A file with anything else (a
// byte-order mark, a carriage return, UTF-8, two statements on a line,
// the deprecated [section.subsection] form, quotes, backslashes, a key
// before any section) is left to git's own parser, which is where the
// hard cases are. TestPlainConfigMatchesGit and FuzzPlainConfig hold the
// subset to git's reading.

// parsePlainConfig returns the entries of b, in order, as git config
// --list would, and true; or false when b is not wholly in the plain
// subset.
func parsePlainConfig(b []byte) ([]ConfigEntry, bool) {
	var out []ConfigEntry
	section := ""
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		for _, c := range line {
			if c != '\t' && (c < 0x20 || c > 0x7e) {
				return nil, false
			}
		}
		t := bytes.TrimLeft(line, " \t")
		switch {
		case len(t) == 0 || t[0] == '#' || t[0] == ';':
			continue
		case t[0] == '[':
			s, ok := plainHeader(t)
			if !ok {
				return nil, false
			}
			section = s
			continue
		case section == "":
			return nil, false
		}
		key, value, eq := bytes.Cut(t, []byte{'='})
		key = bytes.TrimRight(key, " \t")
		if !plainKey(key) {
			return nil, false
		}
		v := ""
		if eq {
			value = bytes.Trim(value, " \t")
			if !plainValue(value) {
				return nil, false
			}
			v = string(value)
		}
		out = append(out, ConfigEntry{Key: section + "." + strings.ToLower(string(key)), Value: v})
	}
	return out, true
}

// plainHeader reads "[name]" or `[name "sub"]`, with only blanks after
// it, as "name" (lower case) or "name.sub".
func plainHeader(t []byte) (string, bool) {
	t = bytes.TrimRight(t, " \t")
	if len(t) < 3 || t[0] != '[' || t[len(t)-1] != ']' {
		return "", false
	}
	inner := t[1 : len(t)-1]
	name, sub, quoted := bytes.Cut(inner, []byte{' '})
	if len(name) == 0 {
		return "", false
	}
	for _, c := range name {
		if !isAlnum(c) && c != '-' {
			return "", false
		}
	}
	section := strings.ToLower(string(name))
	if !quoted {
		return section, true
	}
	if len(sub) < 3 || sub[0] != '"' || sub[len(sub)-1] != '"' {
		return "", false
	}
	sub = sub[1 : len(sub)-1]
	for _, c := range sub {
		if c == '"' || c == '\\' || c == '\t' {
			return "", false
		}
	}
	return section + "." + string(sub), true
}

// plainKey reports a key git reads as written: a letter, then letters,
// digits and '-'.
func plainKey(k []byte) bool {
	if len(k) == 0 || !isAlpha(k[0]) {
		return false
	}
	for _, c := range k {
		if !isAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// plainValue reports a value git reads as written (its ends already
// trimmed): no quote, escape, comment or tab.
func plainValue(v []byte) bool {
	for _, c := range v {
		if c == '"' || c == '\\' || c == '#' || c == ';' || c == '\t' {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }
