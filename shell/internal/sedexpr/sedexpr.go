// Package sedexpr reads a sed script the way package shell needs to judge
// it: a substitution with harmless flags, a numeric print under -n, an
// address with p, d or =, or something it refuses (writing a file with w
// or W, running a command with e, blocks, negation, comments). What sed's
// options do (-i, -n, -f, -s) is package shell's.
package sedexpr

import (
	"fmt"
	"strings"
)

// Classify classifies one sed script: "s" (substitution), "np" (numeric
// print under -n), "other" (a harmless address+p/d/=), or returns an
// error that says what is not allowed.
func Classify(e string, quiet bool) (kind string, err string) {
	t := strings.TrimSpace(e)
	if len(t) >= 2 && t[0] == 's' {
		if ok, flags := parseSubst(t); ok {
			for i := 0; i < len(flags); i++ {
				c := flags[i]
				switch {
				case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || c >= '0' && c <= '9':
				case c == 'w' || c == 'W':
					return "", "sed write operation (w/W) not allowed"
				case c == 'e' || c == 'E':
					return "", "sed execute operation (e/E) not allowed"
				default:
					return "", fmt.Sprintf("sed expression '%s' not in allowlist", e)
				}
			}
			return "s", ""
		}
	}
	switch {
	case sedWrite(t):
		return "", "sed write operation (w/W) not allowed"
	case sedExec(t):
		return "", "sed execute operation (e/E) not allowed"
	case strings.ContainsAny(t, "{}"):
		return "", "sed curly braces not allowed"
	case strings.HasPrefix(t, "!"):
		return "", "sed negation (!) not allowed"
	case strings.Contains(t, "#"):
		return "", "sed comments not allowed"
	}
	if quiet && numericPrint(t) {
		return "np", ""
	}
	if simpleAddrCmd(t) {
		return "other", ""
	}
	return "", fmt.Sprintf("sed expression '%s' not in allowlist", e)
}

func sedWrite(t string) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i] == '/' && (t[i+1] == 'w' || t[i+1] == 'W') {
			if i+2 == len(t) || t[i+2] == ' ' || t[i+2] == '\t' {
				return true
			}
		}
	}
	return false
}

func sedExec(t string) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i] == '/' && (t[i+1] == 'e' || t[i+1] == 'E') {
			if i+2 == len(t) || t[i+2] == ' ' || t[i+2] == '\t' || t[i+2] == '\n' {
				return true
			}
		}
	}
	return false
}

// parseSubst parses s<d>pattern<d>replacement<d>flags.
func parseSubst(t string) (bool, string) {
	d := t[1]
	if d == '\\' || d == '\n' || d == ' ' || d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' || d >= '0' && d <= '9' {
		return false, ""
	}
	i := 2
	for part := 0; part < 2; part++ {
		for i < len(t) && t[i] != d {
			if t[i] == '\\' {
				i++
			} else if t[i] == '\n' {
				return false, ""
			}
			i++
		}
		if i >= len(t) {
			return false, ""
		}
		i++
	}
	return true, t[i:]
}

func numericPrint(t string) bool {
	if !strings.HasSuffix(t, "p") {
		return false
	}
	t = t[:len(t)-1]
	a, b, two := strings.Cut(t, ",")
	return isDigits(a) && (!two || isDigits(b))
}

// simpleAddrCmd accepts [addr[,addr]]{p,d,=} with addr a number, $ or /re/.
func simpleAddrCmd(t string) bool {
	i := 0
	addr := func() bool {
		switch {
		case i < len(t) && t[i] >= '0' && t[i] <= '9':
			for i < len(t) && t[i] >= '0' && t[i] <= '9' {
				i++
			}
			return true
		case i < len(t) && t[i] == '$':
			i++
			return true
		case i < len(t) && t[i] == '/':
			i++
			for i < len(t) && t[i] != '/' {
				if t[i] == '\\' {
					i++
				} else if t[i] == '\n' {
					return false
				}
				i++
			}
			if i >= len(t) {
				return false
			}
			i++
			return true
		}
		return false
	}
	if addr() && i < len(t) && t[i] == ',' {
		i++
		if !addr() {
			return false
		}
	}
	if i > len(t) {
		return false
	}
	rest := t[i:]
	return rest == "p" || rest == "d" || rest == "="
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
