package sandbox

import (
	"slices"
	"strings"
	"testing"
)

func TestDomainPatterns(t *testing.T) {
	good := map[string]string{
		"registry.npmjs.org":     "registry.npmjs.org",
		" Example.COM. ":         "example.com",
		"*.npmjs.org":            "*.npmjs.org",
		"*.Bücher.example":       "*.xn--bcher-kva.example",
		"localhost":              "localhost",
		"localhost:8080":         "localhost:8080",
		"192.0.2.7":              "192.0.2.7",
		"192.0.2.7:443":          "192.0.2.7:443",
		"[2001:DB8::1]":          "[2001:db8::1]",
		"[::ffff:127.0.0.1]:80":  "127.0.0.1:80",
		"example.com:443":        "example.com:443",
		"*.example.com:8443":     "*.example.com:8443",
		"under_score.example.io": "under_score.example.io",
	}
	for in, want := range good {
		p, err := parseDomainPattern(in)
		if err != nil || p.String() != want {
			t.Errorf("%q: %v %v, want %s", in, p, err, want)
		}
	}
	for _, in := range []string{"", "*", "*.", "*.com", "*.com.", "**.example.com", "a.*.example.com", "*example.com",
		"https://example.com", "example.com/path", "2001:db8::1", "[example.com]", "[::1", "[::1]x", "example.com:",
		"example.com:0", "example.com:65536", "example.com:http", "*.192.0.2.7", "2130706433", "0x7f.1", "127.1",
		"a..b", "-a.example", "user@example.com", "exa mple.com", "*.[::1]", "[fe80::1%eth0]"} {
		if p, err := parseDomainPattern(in); err == nil {
			t.Errorf("%q: accepted as %v", in, p)
		} else if !strings.Contains(err.Error(), "*.example.com") {
			t.Errorf("%q: the error does not show the forms: %v", in, err)
		}
	}
}

func TestDomainMatch(t *testing.T) {
	l, err := parseDomainList("allowedDomains", []string{"example.com", "*.npmjs.org", "api.x.io:443", "192.0.2.7", "[::1]"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host string
		port uint16
		want bool
	}{
		{"example.com", 80, true},
		{"EXAMPLE.com.", 1, true},
		{"www.example.com", 80, false},
		{"registry.npmjs.org", 443, true},
		{"a.b.npmjs.org", 443, true},
		{"npmjs.org", 443, false},
		{"evilnpmjs.org", 443, false},
		{"npmjs.org.evil.com", 443, false},
		{"api.x.io", 443, true},
		{"api.x.io", 80, false},
		{"192.0.2.7", 22, true},
		{"::1", 22, true},
		{"0:0::1", 22, true},
		{"::ffff:192.0.2.7", 22, true},
		{"192.0.2.8", 22, false},
	} {
		h, ip, err := normalizeHost(c.host)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := l.match(h, ip.IsValid(), c.port); got != c.want {
			t.Errorf("%s:%d: %v, want %v", c.host, c.port, got, c.want)
		}
	}
}

func TestIntersectDomains(t *testing.T) {
	for _, c := range []struct {
		a, b, want []string
	}{
		{[]string{"*.npmjs.org"}, []string{"registry.npmjs.org"}, []string{"registry.npmjs.org"}},
		{[]string{"registry.npmjs.org"}, []string{"*.npmjs.org"}, []string{"registry.npmjs.org"}},
		{[]string{"*.example.com"}, []string{"*.a.example.com", "example.com"}, []string{"*.a.example.com"}},
		{[]string{"*.example.com"}, []string{"*.example.com"}, []string{"*.example.com"}},
		{[]string{"example.com"}, []string{"*.example.com"}, nil},
		{[]string{"a.com", "b.com"}, []string{"b.com", "c.com"}, []string{"b.com"}},
		{[]string{"a.com"}, []string{"a.com:443"}, []string{"a.com:443"}},
		{[]string{"a.com:80"}, []string{"a.com:443"}, nil},
		{[]string{"*.a.com"}, []string{"x.a.com:443", "*.b.a.com:80"}, []string{"x.a.com:443", "*.b.a.com:80"}},
		{[]string{"*.a.com:443"}, []string{"*.x.a.com"}, []string{"*.x.a.com:443"}},
	} {
		got, err := IntersectDomains(c.a, c.b)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%v ∩ %v = %v %v, want %v", c.a, c.b, got, err, c.want)
		}
	}
	if _, err := IntersectDomains([]string{"*"}, nil); err == nil {
		t.Error("a bad pattern: no error")
	}
}

// FuzzDomainPattern checks that a pattern that parses prints as one that
// parses to itself, matches the hosts it names, and that intersecting
// with itself keeps it.
func FuzzDomainPattern(f *testing.F) {
	for _, s := range []string{"example.com", "*.npmjs.org:443", "[::1]:80", "192.0.2.7", "*.Bücher.de.", "localhost", "a..b", "*.*.com", "[::ffff:1.2.3.4]"} {
		f.Add(s, "x.example.com")
	}
	f.Fuzz(func(t *testing.T, s, host string) {
		p, err := parseDomainPattern(s)
		if err != nil {
			return
		}
		q, err := parseDomainPattern(p.String())
		if err != nil || q != p {
			t.Fatalf("%q → %q → %v %v", s, p.String(), q, err)
		}
		if !p.wildcard {
			if !p.matches(p.host, p.ip, p.port|1) && p.port == 0 {
				t.Fatalf("%q does not match its own host", s)
			}
		} else if p.matches(p.host, false, p.port) {
			t.Fatalf("%q matches its bare domain", s)
		}
		if got, err := IntersectDomains([]string{s}, []string{s}); err != nil || len(got) != 1 || got[0] != p.String() {
			t.Fatalf("%q ∩ itself = %v %v", s, got, err)
		}
		// A host matched by a pattern within p is matched by p.
		if h, ip, err := normalizeHost(host); err == nil {
			if x, err := parseDomainPattern(host); err == nil && x.within(p) && !p.matches(h, ip.IsValid(), x.port) && x.port != 0 {
				t.Fatalf("%q within %q but not matched", host, s)
			}
			if p.wildcard && p.matches(h, ip.IsValid(), p.port) && (ip.IsValid() || !strings.HasSuffix(h, "."+p.host)) {
				t.Fatalf("%q matches %q", s, h)
			}
		}
	})
}

// FuzzNormalizeHost checks that the canonical form is stable, lower-case
// ASCII without a trailing dot, and that names ending in a number are IP
// addresses or errors.
func FuzzNormalizeHost(f *testing.F) {
	for _, s := range []string{"Example.COM.", "127.0.0.1", "2130706433", "0x7f.1", "[::1]", "::ffff:10.0.0.1", "bücher.de", "a_b.c", "1.2.3.04", "xn--bcher-kva.de"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, ip, err := normalizeHost(s)
		if err != nil {
			return
		}
		h2, ip2, err := normalizeHost(h)
		if err != nil || h2 != h || ip2 != ip {
			t.Fatalf("%q → %q → %q %v", s, h, h2, err)
		}
		if ip.IsValid() {
			if ip.String() != h || ip.Is4In6() {
				t.Fatalf("%q: %q is not the address %v", s, h, ip)
			}
			return
		}
		for i := 0; i < len(h); i++ {
			if h[i] >= 0x80 || 'A' <= h[i] && h[i] <= 'Z' {
				t.Fatalf("%q → %q: not lower-case ASCII", s, h)
			}
		}
		labels := strings.Split(h, ".")
		if strings.HasSuffix(h, ".") || strings.Trim(labels[len(labels)-1], "0123456789") == "" {
			t.Fatalf("%q → %q", s, h)
		}
	})
}
