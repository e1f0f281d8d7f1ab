package textfile

import (
	"bytes"
	"strings"
)

// DetectCRLF reports whether the dominant line ending of data is CRLF: it counts "\r\n"
// against bare "\n" and returns true only when CRLF endings are strictly more numerous. Data
// without line endings is LF.
func DetectCRLF(data []byte) bool {
	lf := bytes.Count(data, []byte{'\n'})
	crlf := bytes.Count(data, []byte("\r\n"))
	return crlf > lf-crlf
}

// ToLF converts every line ending to "\n": "\r\n" and a lone "\r" alike, which is the view of
// the text that [ReadLines] gives (a lone CR ends a line there too).
//
// ToCRLF(ToLF(s)) == s holds for text whose every line ends in CRLF; text with lone CRs or
// mixed endings comes back with CRLF everywhere.
func ToLF(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.IndexByte(s, '\r')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteByte('\n')
		s = s[i+1:]
		if s != "" && s[0] == '\n' {
			s = s[1:]
		}
	}
}

// ToCRLF converts each "\n" not already preceded by "\r" to "\r\n"; existing CRLFs and lone
// CRs are left as they are, so ToCRLF is idempotent.
func ToCRLF(s string) string {
	n := strings.Count(s, "\n") - strings.Count(s, "\r\n")
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + n)
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		// A segment never starts right after a '\r': it follows a '\n' or the start.
		if i == 0 || s[i-1] != '\r' {
			b.WriteString(s[:i])
			b.WriteString("\r\n")
		} else {
			b.WriteString(s[:i+1])
		}
		s = s[i+1:]
	}
}
