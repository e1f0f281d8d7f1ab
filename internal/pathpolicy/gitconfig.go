package pathpolicy

import (
	"errors"
	"strings"
)

// errGitConfig is a configuration git itself would refuse ("bad config
// line"): git then runs no hook at all.
var errGitConfig = errors.New("malformed git config")

// maxGitConfig bounds the bytes of a git config file read for
// core.hooksPath.
const maxGitConfig = 1 << 20

// gitConfigValues returns every value of the variable section.key (both
// lower case, no subsection) in a git config file, in order, or
// errGitConfig when git would not parse it. It follows git's syntax:
// [section] and [section "sub"] headers (a key may follow on the same
// line), key = value, a bare key meaning true, # and ; comments, double
// quotes, the escapes \" \\ \n \t \b, and a backslash before a newline
// continuing the value.
func gitConfigValues(data []byte, section, key string) ([]string, error) {
	var out []string
	cur := "" // the current section (lower case) when it has no subsection, else "\x00"
	i, n := 0, len(data)
	if n >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf {
		i = 3 // git skips a UTF-8 byte order mark
	}
	for i < n {
		c := data[i]
		switch {
		case c == '\n' || c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#' || c == ';':
			for i < n && data[i] != '\n' {
				i++
			}
		case c == '[':
			j, name, sub, err := gitSectionHeader(data, i+1)
			if err != nil {
				return nil, err
			}
			i = j
			if sub {
				cur = "\x00"
			} else {
				cur = name
			}
		case isAlpha(c):
			j := i
			for j < n && (isAlpha(data[j]) || data[j] >= '0' && data[j] <= '9' || data[j] == '-') {
				j++
			}
			name := strings.ToLower(string(data[i:j]))
			for j < n && (data[j] == ' ' || data[j] == '\t') {
				j++
			}
			var val string
			switch {
			case j >= n || data[j] == '\n' || data[j] == '\r' || data[j] == '#' || data[j] == ';':
				val = "true"
			case data[j] == '=':
				var err error
				if j, val, err = gitValue(data, j+1); err != nil {
					return nil, err
				}
			default:
				return nil, errGitConfig
			}
			if cur == "" {
				return nil, errGitConfig // a variable before any section
			}
			if cur == section && name == key {
				out = append(out, val)
			}
			i = j
			for i < n && data[i] != '\n' {
				i++ // what follows a value is a comment (gitValue stopped there)
			}
		default:
			return nil, errGitConfig
		}
	}
	return out, nil
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// gitSectionHeader parses a header after its "[": the section name (lower
// case, with a deprecated ".sub" counting as a subsection) and whether it
// has a subsection; j is the index after "]".
func gitSectionHeader(data []byte, i int) (j int, name string, sub bool, err error) {
	n := len(data)
	j = i
	for j < n && (isAlpha(data[j]) || data[j] >= '0' && data[j] <= '9' || data[j] == '-' || data[j] == '.') {
		j++
	}
	name = strings.ToLower(string(data[i:j]))
	if name == "" {
		return 0, "", false, errGitConfig
	}
	if strings.Contains(name, ".") {
		sub = true
	}
	if j < n && data[j] == ']' {
		return j + 1, name, sub, nil
	}
	if j >= n || data[j] != ' ' && data[j] != '\t' {
		return 0, "", false, errGitConfig
	}
	for j < n && (data[j] == ' ' || data[j] == '\t') {
		j++
	}
	if j >= n || data[j] != '"' {
		return 0, "", false, errGitConfig
	}
	for j++; ; j++ {
		if j >= n || data[j] == '\n' {
			return 0, "", false, errGitConfig
		}
		if data[j] == '\\' {
			j++
			if j >= n || data[j] == '\n' {
				return 0, "", false, errGitConfig
			}
			continue
		}
		if data[j] == '"' {
			break
		}
	}
	if j+1 >= n || data[j+1] != ']' {
		return 0, "", false, errGitConfig
	}
	return j + 2, name, true, nil
}

// gitValue parses a value after "=" up to the end of its line or a
// comment; j is where it stopped.
func gitValue(data []byte, i int) (j int, val string, err error) {
	var b strings.Builder
	n := len(data)
	quoted := false
	space := 0 // unquoted white space held back (trailing space is dropped)
	started := false
	for j = i; j < n; j++ {
		c := data[j]
		if c == '\n' {
			if quoted {
				return 0, "", errGitConfig
			}
			break
		}
		if !quoted && (c == '#' || c == ';') {
			break
		}
		if c == ' ' || c == '\t' || c == '\r' && !quoted {
			if quoted {
				b.WriteByte(c)
			} else if started {
				space++
			}
			continue
		}
		for ; space > 0; space-- {
			b.WriteByte(' ')
		}
		started = true
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			j++
			if j >= n {
				return 0, "", errGitConfig
			}
			switch data[j] {
			case '\n':
				// continuation
			case '\r':
				if j+1 < n && data[j+1] == '\n' {
					j++
				}
			case '"', '\\':
				b.WriteByte(data[j])
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				s := b.String()
				if s != "" {
					s = s[:len(s)-1]
				}
				b.Reset()
				b.WriteString(s)
			default:
				return 0, "", errGitConfig
			}
		default:
			b.WriteByte(c)
		}
	}
	if quoted {
		return 0, "", errGitConfig
	}
	return j, b.String(), nil
}
