// Package netaddr says whether an address is one of the public Internet:
// the one check behind WebFetch's private-address rule (package web) and
// the sandbox's network proxy (package sandbox).
package netaddr

import "net/netip"

// reserved are the IPv4 and IPv6 ranges, besides those netip classifies,
// that are not the public Internet.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("::/96"), // IPv4-compatible and unspecified
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
}

var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
)

// NonPublic says why a is not an address of the public Internet
// ("loopback", "private", "link-local", ...), or "" when it is. An IPv4
// address mapped into IPv6, or embedded in a NAT64 or 6to4 address, is
// judged as itself.
func NonPublic(a netip.Addr) string {
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			if r := NonPublic(netip.AddrFrom4([4]byte(b[12:16]))); r != "" {
				return r + " (NAT64)"
			}
		case sixTo4.Contains(a):
			if r := NonPublic(netip.AddrFrom4([4]byte(b[2:6]))); r != "" {
				return r + " (6to4)"
			}
		}
	}
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	case !a.IsGlobalUnicast():
		return "not global unicast"
	}
	for _, p := range reserved {
		if p.Contains(a) {
			return "reserved"
		}
	}
	return ""
}
