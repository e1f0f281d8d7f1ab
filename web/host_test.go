package web

import (
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolscope/toolscope/internal/netaddr"
)

func TestCanonicalHost(t *testing.T) {
	for in, want := range map[string]string{
		"Example.COM.":        "example.com",
		"127.0.0.1":           "127.0.0.1",
		"2130706433":          "127.0.0.1",
		"0x7f000001":          "127.0.0.1",
		"0x7f.1":              "127.0.0.1",
		"0177.0.0.1":          "127.0.0.1",
		"0177.1":              "127.0.0.1",
		"127.1":               "127.0.0.1",
		"0":                   "0.0.0.0",
		"0x":                  "0.0.0.0",
		"10.0.0.1.":           "10.0.0.1",
		"3232235521":          "192.168.0.1",
		"0xA9.0xFE.0xA9.0xFE": "169.254.169.254",
		"::1":                 "::1",
		"::ffff:127.0.0.1":    "::ffff:127.0.0.1",
		"0:0:0:0:0:0:0:1":     "::1",
		"bücher.example":      "xn--bcher-kva.example",
		"a_b.example":         "a_b.example",
	} {
		got, _, err := canonicalHost(in)
		if err != nil || got != want {
			t.Errorf("canonicalHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", ".", "a..b", "256.0.0.1", "1.2.3.4.5", "0x7g.1", "4294967296", "1.16777216", "08.0.0.1", "a b", "a/b", "[::1]", "fe80::1%eth0", "::ffff:1.2.3.4.5", strings.Repeat("a", 64) + ".com", "-" + strings.Repeat("a.", 130)} {
		if got, _, err := canonicalHost(in); err == nil {
			t.Errorf("canonicalHost(%q) = %q, want an error", in, got)
		}
	}
}

// The SSRF table: every spelling of every non-public address is judged
// non-public, and public ones are not.
func TestNonPublic(t *testing.T) {
	for _, h := range []string{
		"127.0.0.1", "127.1.2.3", "2130706433", "0x7f.1", "0177.0.0.1", "localhost",
		"10.0.0.1", "012.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "3232235777",
		"169.254.169.254", "0xa9fea9fe", "0.0.0.0", "0", "100.64.0.1", "192.0.0.170", "198.18.0.1", "240.0.0.1", "255.255.255.255", "224.0.0.1",
		"::1", "::", "fc00::1", "fd12:3456::1", "fe80::1", "ff02::1",
		"::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:169.254.169.254", "::ffff:10.0.0.1", "::127.0.0.1",
		"64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::", "2002:c0a8:101::1", "2001:db8::1",
	} {
		t.Run(h, func(t *testing.T) {
			target, err := parseTarget("http://" + hostPort(h, "") + "/")
			if strings.Contains(h, ":") {
				target, err = parseTarget("http://[" + h + "]/")
			}
			if err != nil {
				t.Fatal(err)
			}
			if literalNonPublic(target) == "" {
				t.Errorf("%s (%s) judged public", h, target.host)
			}
		})
	}
	for _, h := range []string{"93.184.216.34", "8.8.8.8", "1.1.1.1", "172.32.0.1", "192.169.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"} {
		if why := netaddr.NonPublic(netip.MustParseAddr(h)); why != "" {
			t.Errorf("%s judged %s", h, why)
		}
	}
}

// FuzzTarget checks the URL and host checker: it never panics, and what
// it accepts is an http(s) URL whose host is canonical (checking it again
// gives the same host) and, when the host is an IP address, that address.
func FuzzTarget(f *testing.F) {
	for _, s := range []string{"http://example.com/", "https://0x7f.1:8080/a?b#c", "http://[::ffff:127.0.0.1]/", "http://bücher.example/", "http://2130706433", "ftp://x", "http://a..b", "http://%31%32%37.0.0.1/", "http://[fe80::1%25eth0]/", "http://1.2.3.4.5/", "https://0x/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		tg, err := parseTarget(raw)
		if err != nil {
			return
		}
		if tg.u.Scheme != "http" && tg.u.Scheme != "https" || tg.u.User != nil {
			t.Fatalf("%q accepted as %v", raw, tg.u)
		}
		again, err := parseTarget(tg.u.String())
		if err != nil || again.host != tg.host {
			t.Fatalf("%q: canonical %q does not parse to itself: %v %v", raw, tg.u, again, err)
		}
		if h, _, err := canonicalHost(tg.host); err != nil || h != tg.host {
			t.Fatalf("%q: host %q is not canonical (%q, %v)", raw, tg.host, h, err)
		}
		if tg.ip.IsValid() && tg.ip.String() != tg.host {
			t.Fatalf("%q: address %s, host %s", raw, tg.ip, tg.host)
		}
		if a, err := netip.ParseAddr(tg.host); err == nil && a != tg.ip {
			t.Fatalf("%q: host %s is an address, but not the one recorded (%s)", raw, tg.host, tg.ip)
		}
	})
}

func TestMarkdown(t *testing.T) {
	base, _ := url.Parse("https://ex.com/a/b")
	got, cut := Markdown([]byte(`<html><head><title>T</title><script>x()</script></head><body><h1>Hello &amp; <em>world</em></h1>
<p>Some <b>bold</b>   text
with a <a href="/x?y=1">link</a>, <a href="javascript:evil()">js</a> and <code>code</code>.</p><ul><li>one</li><li>two<ol><li>a</li><li>b</li></ol></li></ul>
<pre><code>line1
  line2</code></pre><blockquote><p>quoted</p></blockquote><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table><img src="i.png" alt="a [pic]"> end<br>next<style>.x{}</style><hr><h3>Sub</h3></body></html>`), base, 0)
	want := "# Hello & _world_\n\n" +
		"Some **bold** text with a [link](https://ex.com/x?y=1), js and `code`.\n\n" +
		"- one\n- two\n  1. a\n  2. b\n\n" +
		"```\nline1\n  line2\n```\n\n" +
		"> quoted\n\n" +
		"| A | B\n| 1 | 2\n\n" +
		"![a (pic)](https://ex.com/a/i.png) end\nnext\n\n---\n\n### Sub"
	if cut || got != want {
		t.Errorf("Markdown =\n%s\n---- want\n%s", got, want)
	}
	if got, _ := Markdown([]byte("<p>x</p><blockquote><p>a</p><blockquote><p>b</p></blockquote><p>c</p></blockquote><ul><li><p>d</p><p>e</p></li></ul>"), nil, 0); got != "x\n\n> a\n>\n> > b\n>\n> c\n\n- d\n\ne" {
		t.Errorf("nested quotes and lists:\n%s", got)
	}
	if got, cut := Markdown([]byte("<p>"+strings.Repeat("word ", 100)+"</p>"), nil, 50); !cut || len(got) > 50 {
		t.Errorf("limited: %d bytes, cut %v", len(got), cut)
	}
}

// FuzzMarkdown checks the converter: it never panics, never writes more
// than its limit, and writes valid UTF-8 for valid UTF-8 input.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"<p>a</p>", "<ul><li><ol><li>x<pre>a\nb</pre>", "<a href='x'><a href='y'>", "<blockquote><blockquote>q\nr", "<table><td>x<th>y", "<script>", "</b></i></a></ul>", "<img src=x alt=']('>", "&amp;&#0;&#x110000;", strings.Repeat("<ul><li>", 50) + "deep"} {
		f.Add([]byte(s), 200)
	}
	f.Fuzz(func(t *testing.T, src []byte, limit int) {
		limit = int(uint(limit)%5000) + 1
		out, _ := Markdown(src, nil, limit)
		if len(out) > limit {
			t.Fatalf("%d bytes out, limit %d", len(out), limit)
		}
		unlimited, _ := Markdown(src, nil, 0)
		if len(unlimited) > 64*len(src)+64 {
			t.Fatalf("%d bytes of input gave %d bytes", len(src), len(unlimited))
		}
		if utf8.Valid(src) && !utf8.ValidString(unlimited) {
			t.Fatalf("invalid UTF-8 out of valid input")
		}
	})
}
