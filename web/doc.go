// Package web provides two tools that reach beyond the machine, named and
// shaped as Claude Code's (version 2.0, as of October 2025: the same
// inputs, limits, redirect message and rule syntax):
//
//   - WebFetch ([NewFetch]) fetches a URL and gives back its content,
//     HTML converted to Markdown ([Markdown]), with the prompt the model
//     asked about it, or the answer of [FetchOptions.Apply] when set;
//   - WebSearch ([NewSearch]) searches the web through a [Provider] (the
//     Brave Search API by default, [Brave]) and gives back titles, links
//     and snippets, kept to or kept from the domains the model names.
//
// Neither changes anything, but neither is ReadOnly for the permission
// engine: their input leaves the machine, so a call asks unless a rule
// allows it, as in Claude Code.
//
// # WebFetch's limits
//
// A URL is at most [MaxURLLength] characters, http or https, without a
// user name or password; http:// is upgraded to https:// (as Claude Code
// does) unless [FetchOptions.AllowHTTP]. A fetch takes at most
// [DefaultTimeout], reads at most [DefaultMaxBytes] of body (more is an
// error) and gives back at most [DefaultMaxContent] bytes of text (more
// is cut and marked). It follows at most [DefaultMaxRedirects] redirects
// that stay on the same scheme, host and port; a redirect anywhere else
// is not followed but given back to the model ("REDIRECT DETECTED ...
// Redirect URL: ..."), which may fetch that URL with a new call, judged
// by its own rules. Claude Code also follows a redirect that only adds or
// removes "www."; WebFetch does not, because rules name hosts exactly.
// Binary content is refused. Environment proxies are not used.
//
// # Rules
//
// WebFetch(domain:HOST) names the URLs whose host is HOST: exactly that
// host, not its subdomains (as in Claude Code, which compares the rule's
// text with the URL's hostname; "domain:*" names nothing). Hosts are
// compared in canonical form: lower case, IDNA, no trailing dot, an IPv4
// address in any spelling (2130706433, 0x7f.1, 0177.0.0.1) as dotted
// decimal, an IPv6 address without brackets in its shortest form
// (WebFetch(domain:::1)). A WebFetch rule with any other content cannot
// be evaluated and fails closed: as an allow rule it matches nothing, as
// a deny or ask rule everything. A URL that does not parse is denied.
// WebSearch rules have no content.
//
// # Addresses that are not public
//
// WebFetch connects to an address that is not on the public Internet
// (loopback, RFC 1918 private, link-local such as 169.254.169.254,
// unique-local fc00::/7, unspecified 0.0.0.0 and ::, carrier-grade NAT,
// multicast and reserved ranges, and any of these mapped into IPv6 or
// embedded in a NAT64 or 6to4 address) only when an allow rule names the
// host of the URL: WebFetch(domain:127.0.0.1), WebFetch(domain:localhost),
// WebFetch(domain:intranet.example). No mode passes this check, not even
// bypass, nor the user's approval of one call.
//
// The check is made twice. The permission check denies a URL whose host
// is such an address literally, or localhost. Then every connection (the
// first and every redirect's) goes through a dialer that resolves the
// host itself, refuses when any of its addresses is not public and no
// rule names the host ([BlockedError]), and connects to an address it
// checked, never to the name again, so that a second DNS answer cannot
// take the connection elsewhere (DNS rebinding).
package web
