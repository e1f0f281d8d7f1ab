package oauth

import (
	"fmt"
	"net/http"
	"strings"
)

// challenge is one challenge of a WWW-Authenticate header (RFC 9110
// §11.6.1): a scheme, then either a token68 or parameters. Scheme and
// parameter names are lower case (they are case-insensitive); values are
// unquoted.
type challenge struct {
	Scheme  string
	Token68 string
	Params  map[string]string
}

// parseChallenges parses the value of one WWW-Authenticate header:
//
//	WWW-Authenticate = 1#challenge
//	challenge        = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//	auth-param       = token BWS "=" BWS ( token / quoted-string )
//
// Commas separate both challenges and a challenge's parameters: a name
// followed by "=" is a parameter, a name alone starts the next challenge.
// A parameter named twice keeps its first value.
func parseChallenges(h string) ([]challenge, error) {
	p := &headerParser{s: h}
	var out []challenge
	for {
		p.skip(" \t,")
		if p.eof() {
			return out, nil
		}
		scheme := p.token()
		if scheme == "" {
			return nil, p.errorf("want an auth scheme")
		}
		c := challenge{Scheme: strings.ToLower(scheme)}
		if p.eof() || p.s[p.i] == ',' {
			out = append(out, c)
			continue
		}
		if n := p.skip(" "); n == 0 {
			return nil, p.errorf("want a space after the scheme")
		}
		if t, ok := p.token68(); ok {
			c.Token68 = t
			out = append(out, c)
			continue
		}
		for {
			save := p.i
			p.skip(" \t,")
			if p.eof() {
				break
			}
			name := p.token()
			if name == "" {
				return nil, p.errorf("want a parameter or a challenge")
			}
			p.skip(" \t")
			if p.eof() || p.s[p.i] != '=' {
				p.i = save // the next challenge's scheme
				break
			}
			p.i++
			p.skip(" \t")
			var value string
			if !p.eof() && p.s[p.i] == '"' {
				v, err := p.quoted()
				if err != nil {
					return nil, err
				}
				value = v
			} else if value = p.token(); value == "" {
				return nil, p.errorf("parameter %q has no value", name)
			}
			name = strings.ToLower(name)
			if c.Params == nil {
				c.Params = map[string]string{}
			}
			if _, dup := c.Params[name]; !dup {
				c.Params[name] = value
			}
			p.skip(" \t")
			if !p.eof() && p.s[p.i] != ',' {
				return nil, p.errorf("want a comma after parameter %q", name)
			}
		}
		out = append(out, c)
	}
}

// bearer returns the parameters of the Bearer challenge of the
// WWW-Authenticate headers h (nil when there is none, or the headers
// cannot be parsed: the caller then discovers without them).
func bearer(h http.Header) map[string]string {
	for _, v := range h.Values("WWW-Authenticate") {
		cs, err := parseChallenges(v)
		if err != nil {
			continue
		}
		for _, c := range cs {
			if c.Scheme == "bearer" {
				if c.Params == nil {
					return map[string]string{}
				}
				return c.Params
			}
		}
	}
	return nil
}

type headerParser struct {
	s string
	i int
}

func (p *headerParser) eof() bool { return p.i >= len(p.s) }

func (p *headerParser) errorf(format string, args ...any) error {
	return fmt.Errorf("WWW-Authenticate: %s at byte %d", fmt.Sprintf(format, args...), p.i)
}

// skip skips the bytes of set and returns how many it skipped.
func (p *headerParser) skip(set string) int {
	start := p.i
	for !p.eof() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
	return p.i - start
}

// token reads a token (RFC 9110 §5.6.2); "" when there is none.
func (p *headerParser) token() string {
	start := p.i
	for !p.eof() && isTchar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// token68 reads a token68 when what follows is one (it ends the
// challenge: the end, or a comma, follows); otherwise it reads nothing.
func (p *headerParser) token68() (string, bool) {
	j := p.i
	for j < len(p.s) && (isAlnum(p.s[j]) || strings.IndexByte("-._~+/", p.s[j]) >= 0) {
		j++
	}
	if j == p.i {
		return "", false
	}
	k := j
	for k < len(p.s) && p.s[k] == '=' {
		k++
	}
	e := k
	for e < len(p.s) && (p.s[e] == ' ' || p.s[e] == '\t') {
		e++
	}
	if e < len(p.s) && p.s[e] != ',' {
		return "", false // name=value, or more
	}
	t := p.s[p.i:k]
	p.i = e
	return t, true
}

// quoted reads a quoted-string, undoing its backslash escapes.
func (p *headerParser) quoted() (string, error) {
	p.i++ // the opening quote
	var b strings.Builder
	for !p.eof() {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return b.String(), nil
		case '\\':
			p.i++
			if p.eof() {
				return "", p.errorf("unterminated quoted string")
			}
			c = p.s[p.i]
		}
		b.WriteByte(c)
		p.i++
	}
	return "", p.errorf("unterminated quoted string")
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isTchar(c byte) bool {
	return isAlnum(c) || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
