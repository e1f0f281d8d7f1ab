package web

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// MaxURLLength is the longest URL WebFetch accepts, as Claude Code's.
const MaxURLLength = 2000

// target is a URL WebFetch may fetch, checked and with its host in
// canonical form: the form rules are compared in and the form the
// connection is made to.
type target struct {
	u    *url.URL   // Host rewritten to the canonical host (and the port, if any)
	host string     // canonical host: lower-case ASCII name, dotted IPv4, or IPv6 without brackets
	ip   netip.Addr // the address, when the host is an IP literal
}

// parseTarget checks raw as WebFetch's input: an absolute http or https
// URL, no longer than [MaxURLLength], without user information, whose
// host is a valid name or IP address. It fails closed: whatever it cannot
// make sense of is an error.
func parseTarget(raw string) (*target, error) {
	if len(raw) > MaxURLLength {
		return nil, fmt.Errorf("URL is longer than %d characters", MaxURLLength)
	}
	if strings.ContainsAny(raw, " \t\r\n\\") {
		return nil, errors.New("URL contains white space or a backslash")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid URL: %v", err)
	}
	switch u.Scheme {
	case "http", "https":
	case "":
		return nil, errors.New("invalid URL: not absolute (want http:// or https://)")
	default:
		return nil, fmt.Errorf("unsupported URL scheme %q (want http or https)", u.Scheme)
	}
	if u.Opaque != "" {
		return nil, errors.New("invalid URL: no host")
	}
	if u.User != nil {
		return nil, errors.New("URLs with a user name or password are not fetched")
	}
	host, ip, err := canonicalHost(u.Hostname())
	if err != nil {
		return nil, err
	}
	port := u.Port()
	if port != "" {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("invalid port %q", port)
		}
		port = strconv.FormatUint(n, 10)
	}
	c := *u
	c.Host = hostPort(host, port)
	c.Fragment, c.RawFragment = "", ""
	return &target{u: &c, host: host, ip: ip}, nil
}

func hostPort(host, port string) string {
	h := host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	if port != "" {
		h += ":" + port
	}
	return h
}

// canonicalHost returns h in the form a browser's URL parser gives it (the
// WHATWG URL standard, which Claude Code's rules are compared in): an IPv6
// literal in its shortest form, an IPv4 literal in any of its spellings
// (2130706433, 0x7f.1, 0177.0.0.1) as dotted decimal, a name in lower-case
// ASCII (IDNA) without a trailing dot. A host that ends in a number but is
// no IPv4 address, or has an empty or invalid label, is an error.
func canonicalHost(h string) (string, netip.Addr, error) {
	if h == "" {
		return "", netip.Addr{}, errors.New("invalid URL: no host")
	}
	if strings.Contains(h, ":") {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", netip.Addr{}, fmt.Errorf("invalid IPv6 host %q", h)
		}
		return a.String(), a, nil
	}
	name := strings.ToLower(h)
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			a, err := idna.Lookup.ToASCII(name)
			if err != nil {
				return "", netip.Addr{}, fmt.Errorf("invalid host %q: %v", h, err)
			}
			name = a
			break
		}
	}
	name = strings.TrimSuffix(name, ".")
	if name == "" || len(name) > 253 {
		return "", netip.Addr{}, fmt.Errorf("invalid host %q", h)
	}
	labels := strings.Split(name, ".")
	if endsInNumber(labels[len(labels)-1]) {
		a, ok := parseIPv4(labels)
		if !ok {
			return "", netip.Addr{}, fmt.Errorf("invalid IPv4 host %q", h)
		}
		return a.String(), a, nil
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "", netip.Addr{}, fmt.Errorf("invalid host %q", h)
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "", netip.Addr{}, fmt.Errorf("invalid host %q", h)
			}
		}
	}
	return name, netip.Addr{}, nil
}

// endsInNumber reports whether a host's last label makes it an IPv4
// address in the WHATWG sense: all digits, or 0x followed by hex digits.
func endsInNumber(l string) bool {
	if l == "" {
		return false
	}
	if strings.HasPrefix(l, "0x") {
		l = l[2:]
		for i := 0; i < len(l); i++ {
			if !isHex(l[i]) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f'
}

// parseIPv4 parses one to four numbers, each decimal, octal (leading 0)
// or hex (0x), the last filling the remaining bytes, as inet_aton and
// browsers do.
func parseIPv4(parts []string) (netip.Addr, bool) {
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var nums []uint64
	for _, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base := 10
		switch {
		case strings.HasPrefix(p, "0x"):
			base, p = 16, p[2:]
			if p == "" {
				p = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		if len(p) > 12 { // larger than any valid part, and no overflow below
			return netip.Addr{}, false
		}
		n, err := strconv.ParseUint(p, base, 64)
		if err != nil {
			return netip.Addr{}, false
		}
		nums = append(nums, n)
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// localName reports whether a host name is the machine itself whatever
// DNS says: localhost and its subdomains (RFC 6761).
func localName(host string) bool {
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}
