package oauth

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseChallenges(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []challenge
	}{
		{`Bearer`, []challenge{{Scheme: "bearer"}}},
		{`Bearer resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp"`,
			[]challenge{{Scheme: "bearer", Params: map[string]string{"resource_metadata": "https://x.example/.well-known/oauth-protected-resource/mcp"}}}},
		{`Bearer error="insufficient_scope", scope="a b", resource_metadata="u"`,
			[]challenge{{Scheme: "bearer", Params: map[string]string{"error": "insufficient_scope", "scope": "a b", "resource_metadata": "u"}}}},
		{`Basic realm="x, y", Bearer realm=api,scope="s"`,
			[]challenge{{Scheme: "basic", Params: map[string]string{"realm": "x, y"}}, {Scheme: "bearer", Params: map[string]string{"realm": "api", "scope": "s"}}}},
		{`Negotiate abc+/==, Bearer`, []challenge{{Scheme: "negotiate", Token68: "abc+/=="}, {Scheme: "bearer"}}},
		{`BEARER Scope = "q\"uo\\te"`, []challenge{{Scheme: "bearer", Params: map[string]string{"scope": `q"uo\te`}}}},
		{`Bearer a=1, a=2`, []challenge{{Scheme: "bearer", Params: map[string]string{"a": "1"}}}},
		{` , Bearer ,`, []challenge{{Scheme: "bearer"}}},
	} {
		got, err := parseChallenges(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseChallenges(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`"Bearer"`, `Bearer scope="open`, `Bearer a=1 b`, `Bearer a="x" b="y"`, `Bearer =x`} {
		if got, err := parseChallenges(bad); err == nil {
			t.Errorf("parseChallenges(%q) = %+v, want an error", bad, got)
		}
	}
}

func TestBearer(t *testing.T) {
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="x"`)
	h.Add("WWW-Authenticate", `Bearer scope="tools"`)
	if p := bearer(h); p["scope"] != "tools" {
		t.Errorf("bearer = %v", p)
	}
	if p := bearer(http.Header{"Www-Authenticate": {`Bearer "broken`}}); p != nil {
		t.Errorf("bearer of a broken header = %v", p)
	}
}

// format writes challenges back as a header, quoting every value.
func format(cs []challenge) string {
	var parts []string
	for _, c := range cs {
		s := c.Scheme
		switch {
		case c.Token68 != "":
			s += " " + c.Token68
		case len(c.Params) > 0:
			var ps []string
			for k, v := range c.Params {
				ps = append(ps, k+"="+strconv.Quote(v))
			}
			s += " " + strings.Join(ps, ", ")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// FuzzParseChallenges: the parser never panics, and what it parses,
// written back, parses to the same challenges.
func FuzzParseChallenges(f *testing.F) {
	for _, s := range []string{
		`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b"`,
		`Basic realm="x, y", Bearer realm=api,scope="s"`,
		`Negotiate abc+/==, Bearer`,
		`Bearer error="insufficient_scope", scope="files:write", error_description="need \"write\""`,
		`Bearer a=1, a=2,,, Digest nonce="n"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		cs, err := parseChallenges(h)
		if err != nil {
			return
		}
		for _, c := range cs {
			if c.Scheme == "" || c.Scheme != strings.ToLower(c.Scheme) {
				t.Fatalf("scheme %q", c.Scheme)
			}
		}
		// Only values strconv.Quote writes as the header grammar reads
		// them back (printable ASCII) can round-trip.
		for _, c := range cs {
			for _, v := range c.Params {
				for i := 0; i < len(v); i++ {
					if v[i] < 0x20 || v[i] >= 0x7f {
						return
					}
				}
			}
		}
		again, err := parseChallenges(format(cs))
		if err != nil {
			t.Fatalf("%q parsed to %+v, written back as %q, which does not parse: %v", h, cs, format(cs), err)
		}
		if !reflect.DeepEqual(normalize(again), normalize(cs)) {
			t.Fatalf("%q parsed to %+v, written back as %q, parsed to %+v", h, cs, format(cs), again)
		}
	})
}

func normalize(cs []challenge) []challenge {
	for i := range cs {
		if len(cs[i].Params) == 0 {
			cs[i].Params = nil
		}
	}
	return cs
}
