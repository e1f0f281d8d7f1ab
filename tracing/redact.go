package tracing

import (
	"bytes"
	"encoding/json"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/toolscope/toolscope/internal/pathpolicy"
)

// Redacted replaces what [Redact] takes out.
const Redacted = "[REDACTED]"

// A secret shape: a pattern and what replaces a match ("" for Redacted).
// keep, when set, is the number of the group kept before the mark (a key,
// a scheme, "https://").
type shape struct {
	re   *regexp.Regexp
	keep int
	// suffix follows the mark ("@" after a URL's credentials).
	suffix string
	// check, when set, must accept the match (the mixed-character test of
	// the generic tokens).
	check func(string) bool
}

// shapes are compiled at the first redaction, not at every start of the
// toolscope command (which traces nothing unless asked).
var shapes = sync.OnceValue(func() []shape {
	return []shape{
		// PEM private keys, to their end (or the end of the text).
		{re: regexp.MustCompile(`(?s)-----BEGIN[ A-Z0-9]*PRIVATE KEY-----.*?(?:-----END[ A-Z0-9]*PRIVATE KEY-----|$)`)},
		// Credentials in a URL: scheme://user:password@host.
		{re: regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]*:[^/\s@]*@`), keep: 1, suffix: "@"},
		// Authorization headers' credentials: "Bearer abc", "Basic dXNl...".
		{re: regexp.MustCompile(`(?i)(\b(?:bearer|basic|token|digest)\s+)[A-Za-z0-9._~+/=-]{6,}`), keep: 1},
		// key=value and key: value, where the key names a credential
		// (PASSWORD=..., api_key: ..., "client_secret": "..."); a quoted value
		// to its closing quote.
		{re: regexp.MustCompile(`(?i)([A-Za-z0-9_.-]*(?:passw(?:or)?d|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|auth)[A-Za-z0-9_.-]*["']?\s*[:=]\s*)(?:"[^"]*"?|'[^']*'?|[^\s"'&,;]+)`), keep: 1},
		// curl -u user:password, --user=...
		{re: regexp.MustCompile(`(\s-u\s*|--user[ =]|--password[ =])\S+`), keep: 1},
		// Cloud and service keys by their prefixes.
		{re: regexp.MustCompile(`(?:A3T[A-Z0-9]|AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}`)},
		{re: regexp.MustCompile(`(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,}|npm_[A-Za-z0-9]{30,})`)},
		// JSON web tokens.
		{re: regexp.MustCompile(`eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)},
		// Long random-looking words: 32 or more letters and digits of mixed
		// case (a git hash, lower-case hex, stays), and AWS's 40-character
		// secret keys, which may hold '/' and '+'.
		{re: regexp.MustCompile(`[A-Za-z0-9+/=_-]{32,}`), check: randomLooking},
	}
})

// randomLooking reports whether w has upper- and lower-case letters and a
// digit, and is not a path (a run of '/'-separated words).
func randomLooking(w string) bool {
	var up, low, digit bool
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			low = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	if !(up && low && digit) {
		return false
	}
	if strings.Contains(w, "/") {
		// A path's parts are short; a key's run is long.
		for _, p := range strings.Split(w, "/") {
			if len(p) >= 20 {
				return true
			}
		}
		return len(w) == 40 && !strings.Contains(w, "//")
	}
	return true
}

// Redact returns s with whatever looks like a secret replaced by
// [Redacted]: private keys, credentials in URLs and Authorization
// headers, values of keys that name a password, token, secret or API key,
// the prefixed keys of the big services (AWS AKIA..., GitHub ghp_...,
// OpenAI and Anthropic sk-..., Slack xox..., Google AIza...), JSON web
// tokens, and long random-looking words. It errs on the side of taking
// out too much: what it returns goes to a tracing backend, which is not a
// place for secrets.
func Redact(s string) string {
	for _, sh := range shapes() {
		if !sh.re.MatchString(s) {
			continue
		}
		s = sh.re.ReplaceAllStringFunc(s, func(m string) string {
			if sh.check != nil && !sh.check(m) {
				return m
			}
			if sh.keep > 0 {
				g := sh.re.FindStringSubmatch(m)
				if len(g) > sh.keep {
					return g[sh.keep] + Redacted + sh.suffix
				}
			}
			return Redacted + sh.suffix
		})
	}
	return s
}

// secretKey reports whether a JSON object's key names a credential: its
// value is taken out whole.
func secretKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"passw", "pwd", "secret", "token", "apikey", "api_key", "api-key", "auth", "credential", "private_key", "privatekey", "access_key", "cookie"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// RedactJSON returns a tool's JSON input with the values of keys that
// name a credential replaced by [Redacted] and every string redacted
// ([Redact]); input that is not JSON is redacted as text.
func RedactJSON(raw []byte) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil || d.More() {
		return Redact(string(raw))
	}
	v = redactValue(v)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return Redacted
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return Redact(x)
	case []any:
		for i := range x {
			x[i] = redactValue(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if secretKey(k) {
				out[Redact(k)] = Redacted
				continue
			}
			out[Redact(k)] = redactValue(e)
		}
		return out
	}
	return v
}

// NamesSecretFile reports whether a tool's input names a file the path
// policy calls secret (.env, id_rsa, ~/.aws, .netrc, ...), anywhere in a
// string: a Read of such a file, a Bash command that cats it. The result
// of such a call is not captured at all, redacted or not.
func NamesSecretFile(raw []byte) bool {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return namesSecret(string(raw))
	}
	found := false
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			found = found || namesSecret(x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return found
}

var secretSeqs = sync.OnceValue(func() (seqs []string) {
	for _, g := range pathpolicy.SecretGlobs() {
		if rest, ok := strings.CutPrefix(g, "/**/"); ok {
			seqs = append(seqs, "/"+strings.ToLower(rest))
		} else if strings.HasPrefix(g, "/") {
			seqs = append(seqs, strings.ToLower(g))
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		for _, p := range pathpolicy.SecretPaths(home) {
			seqs = append(seqs, strings.ToLower(p))
		}
	}
	return seqs
})

// namesSecret reports whether a word of s is a path through a secret name
// or location.
func namesSecret(s string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '"' || r == '\'' || r == '=' || r == '<' || r == '>' || r == '|' || r == ';' || r == '&' || r == '(' || r == ')' || r == '`' || r == ','
	}) {
		for _, c := range strings.Split(w, "/") {
			if c != "" && pathpolicy.SecretName(c) {
				return true
			}
		}
		lw := strings.ToLower(path.Clean("/" + w))
		for _, seq := range secretSeqs() {
			if lw == seq || strings.HasPrefix(lw, seq+"/") || strings.Contains(lw, seq+"/") || strings.HasSuffix(lw, seq) {
				return true
			}
		}
	}
	return false
}
