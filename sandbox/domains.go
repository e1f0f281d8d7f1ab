package sandbox

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// A domain pattern is an entry of [Config.AllowedDomains] or
// [Config.DeniedDomains], in the form Claude Code's sandbox settings
// (sandbox.network.allowedDomains) take:
//
//   - a host name, "registry.npmjs.org": that host only;
//   - "*.example.com": every subdomain of example.com at any depth
//     (a.example.com, a.b.example.com), but not example.com itself: list
//     both to allow both. The part after "*." must have two labels at
//     least ("*.com" is refused as too broad), and a wildcard matches no
//     IP address;
//   - "localhost", or an IP address, "192.0.2.7" or "[2001:db8::1]":
//     that address only, as it is written;
//   - any of these followed by ":port", "example.com:443": that port only
//     (without one, every port).
//
// Names compare case-insensitively, international names in their ASCII
// (IDNA) form, with any trailing dot removed: "Bücher.example." is
// "xn--bcher-kva.example".
type domainPattern struct {
	host     string // canonical: lower-case ASCII name, dotted IPv4, or IPv6 without brackets; for a wildcard, the part after "*."
	wildcard bool
	ip       bool
	port     uint16 // 0: any
}

func (p domainPattern) String() string {
	h := p.host
	switch {
	case p.wildcard:
		h = "*." + h
	case strings.Contains(h, ":"):
		h = "[" + h + "]"
	}
	if p.port != 0 {
		h += ":" + strconv.Itoa(int(p.port))
	}
	return h
}

// maxPatterns bounds the entries of one list.
const maxPatterns = 4096

// parseDomainPattern parses one entry; the error says what is wrong with
// it and what the forms are.
func parseDomainPattern(s string) (domainPattern, error) {
	bad := func(why string) (domainPattern, error) {
		return domainPattern{}, fmt.Errorf("domain pattern %q: %s (use a host name \"example.com\", a wildcard for its subdomains \"*.example.com\", \"localhost\", an IP address \"192.0.2.7\" or \"[2001:db8::1]\", each with an optional \":port\")", s, why)
	}
	raw := strings.TrimSpace(s)
	if raw == "" {
		return bad("empty")
	}
	if strings.Contains(raw, "/") || strings.ContainsAny(raw, " \t\r\n\\@?#") {
		return bad("a host, not a URL")
	}
	var p domainPattern
	hostPart, portPart := raw, ""
	if strings.HasPrefix(raw, "[") {
		end := strings.IndexByte(raw, ']')
		if end < 0 {
			return bad("unclosed [")
		}
		hostPart, portPart = raw[1:end], raw[end+1:]
		if portPart != "" {
			if portPart[0] != ':' {
				return bad("text after ]")
			}
			portPart = portPart[1:]
			if portPart == "" {
				return bad("empty port")
			}
		}
		if !strings.Contains(hostPart, ":") {
			return bad("only an IPv6 address goes in brackets")
		}
		h, _, err := normalizeHost(hostPart)
		if err != nil {
			return bad(err.Error())
		}
		p.host, p.ip = h, true
	} else {
		switch strings.Count(raw, ":") {
		case 0:
		case 1:
			hostPart, portPart, _ = strings.Cut(raw, ":")
			if portPart == "" {
				return bad("empty port")
			}
		default:
			return bad("an IPv6 address must be in brackets")
		}
		if rest, ok := strings.CutPrefix(hostPart, "*."); ok {
			if strings.Contains(rest, "*") {
				return bad("one wildcard, at the start only")
			}
			h, ip, err := normalizeHost(rest)
			if err != nil {
				return bad(err.Error())
			}
			if ip.IsValid() {
				return bad("a wildcard matches names, not IP addresses")
			}
			if !strings.Contains(h, ".") {
				return bad("too broad: the part after \"*.\" needs two labels at least")
			}
			p.host, p.wildcard = h, true
		} else {
			if strings.Contains(hostPart, "*") {
				return bad("a wildcard is allowed only as \"*.\" at the start")
			}
			h, ip, err := normalizeHost(hostPart)
			if err != nil {
				return bad(err.Error())
			}
			p.host, p.ip = h, ip.IsValid()
		}
	}
	if portPart != "" {
		n, err := strconv.ParseUint(portPart, 10, 16)
		if err != nil || n == 0 {
			return bad("the port must be a number from 1 to 65535")
		}
		p.port = uint16(n)
	}
	return p, nil
}

// normalizeHost returns h in canonical form: a name in lower-case ASCII
// (IDNA, as a resolver sees it) without a trailing dot, or an IP address
// (ip set) in its usual form (dotted decimal; IPv6 shortest, without
// brackets; an IPv4 address mapped into IPv6 as IPv4). A name whose last
// label is a number is an error unless it is a dotted-decimal IPv4
// address: "2130706433" and "0x7f.1" are 127.0.0.1 to some resolvers
// and not to others, so the proxy neither allows nor looks them up.
func normalizeHost(h string) (string, netip.Addr, error) {
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if h == "" {
		return "", netip.Addr{}, errors.New("empty host")
	}
	if strings.Contains(h, ":") {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", netip.Addr{}, fmt.Errorf("invalid IPv6 address %q", h)
		}
		a = a.Unmap()
		return a.String(), a, nil
	}
	name := strings.ToLower(h)
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			a, err := idna.Lookup.ToASCII(name)
			if err != nil {
				return "", netip.Addr{}, fmt.Errorf("invalid host name %q: %v", h, err)
			}
			name = a
			break
		}
	}
	name = strings.TrimSuffix(name, ".")
	if name == "" || len(name) > 253 {
		return "", netip.Addr{}, fmt.Errorf("invalid host name %q", h)
	}
	labels := strings.Split(name, ".")
	if last := labels[len(labels)-1]; last != "" && (strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x")) {
		a, err := netip.ParseAddr(name)
		if err != nil || !a.Is4() {
			return "", netip.Addr{}, fmt.Errorf("invalid host %q: write an IPv4 address in dotted decimal", h)
		}
		return a.String(), a, nil
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return "", netip.Addr{}, fmt.Errorf("invalid host name %q", h)
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "", netip.Addr{}, fmt.Errorf("invalid host name %q", h)
			}
		}
	}
	return name, netip.Addr{}, nil
}

// matches reports whether p allows host (canonical, see normalizeHost) on
// port.
func (p domainPattern) matches(host string, isIP bool, port uint16) bool {
	if p.port != 0 && p.port != port {
		return false
	}
	if p.wildcard {
		return !isIP && len(host) > len(p.host)+1 && strings.HasSuffix(host, p.host) && host[len(host)-len(p.host)-1] == '.'
	}
	return host == p.host
}

// within reports whether every host and port p matches, q matches too.
func (p domainPattern) within(q domainPattern) bool {
	if q.port != 0 && p.port != q.port {
		return false
	}
	if !q.wildcard {
		return !p.wildcard && p.host == q.host
	}
	if p.ip {
		return false
	}
	return p.host != q.host && q.matches(p.host, false, q.port) || p.wildcard && p.host == q.host
}

// domainList is a parsed list of patterns.
type domainList []domainPattern

func parseDomainList(what string, list []string) (domainList, error) {
	if len(list) > maxPatterns {
		return nil, fmt.Errorf("sandbox: %s: more than %d entries", what, maxPatterns)
	}
	out := make(domainList, 0, len(list))
	for _, s := range list {
		p, err := parseDomainPattern(s)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %s: %w", what, err)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// match returns the first pattern that allows host on port.
func (l domainList) match(host string, isIP bool, port uint16) (domainPattern, bool) {
	for _, p := range l {
		if p.matches(host, isIP, port) {
			return p, true
		}
	}
	return domainPattern{}, false
}

func (l domainList) strings() []string {
	out := make([]string, len(l))
	for i, p := range l {
		out[i] = p.String()
	}
	return out
}

// IntersectDomains returns the domain patterns (see [Config.AllowedDomains])
// that allow exactly the hosts both a and b allow: each entry of one that
// lies within an entry of the other ("a.example.com" within
// "*.example.com", "*.x.example.com" within "*.example.com"). A
// configuration that may only narrow another (an untrusted project's)
// combines its list with the other's this way. An entry that does not
// parse is an error.
func IntersectDomains(a, b []string) ([]string, error) {
	la, err := parseDomainList("allowedDomains", a)
	if err != nil {
		return nil, err
	}
	lb, err := parseDomainList("allowedDomains", b)
	if err != nil {
		return nil, err
	}
	var out domainList
	add := func(p domainPattern) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, p := range la {
		for _, q := range lb {
			switch {
			case p.within(q):
				add(p)
			case q.within(p):
				add(q)
			case p.port == 0 && q.port != 0:
				// The same hosts, q's port only.
				if x := (domainPattern{p.host, p.wildcard, p.ip, q.port}); x.within(q) {
					add(x)
				}
			case q.port == 0 && p.port != 0:
				if x := (domainPattern{q.host, q.wildcard, q.ip, p.port}); x.within(p) {
					add(x)
				}
			}
		}
	}
	return out.strings(), nil
}
