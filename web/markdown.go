package web

import (
	"bytes"
	"io"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxListDepth bounds the indentation of nested lists and quotes, so that
// deeply nested markup cannot make every line longer than its text.
const maxListDepth = 8

// Markdown converts an HTML document to Markdown for a model to read:
// headings, paragraphs, links (made absolute against base, when given),
// emphasis, code, lists, quotes, images, tables as pipe-separated rows,
// and text. Scripts, styles and other invisible parts are left out. It
// writes at most max bytes (max <= 0: no limit) and reports whether it
// stopped there. It reads the input once, token by token (it builds no
// tree), and never fails: malformed HTML is read as a browser would.
func Markdown(src []byte, base *url.URL, max int) (string, bool) {
	c := &converter{base: base, max: max}
	z := html.NewTokenizer(bytes.NewReader(src))
	z.SetMaxBuf(0)
	for !c.full {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				c.full = true // cannot happen with a bytes.Reader; stop anyway
			}
			return c.finish()
		case html.TextToken:
			if c.skip == 0 {
				c.text(string(z.Text()))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			var attrs map[string]string
			if hasAttr {
				attrs = map[string]string{}
				for {
					k, v, more := z.TagAttr()
					if len(attrs) < 16 {
						attrs[string(k)] = string(v)
					}
					if !more {
						break
					}
				}
			}
			c.start(a, attrs, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			name, _ := z.TagName()
			c.end(atom.Lookup(name))
		}
	}
	return c.finish()
}

type list struct {
	ordered bool
	n       int
}

type converter struct {
	out  strings.Builder
	base *url.URL
	max  int
	full bool

	skip      int      // depth inside script, style, head and the like
	pre       int      // depth inside pre
	lists     []list   // open lists, innermost last
	quote     int      // depth of blockquote
	links     []string // hrefs of open links ("" when not shown)
	newlines  int      // newlines owed before the next text (0, 1 or 2)
	owedQuote int      // the quote depth when the newlines became owed
	started   bool     // something was written
	lineStart bool     // the last byte written was a newline
	space     bool     // a space is owed before the next word
	cell      int      // cells written in the current table row
	marker    bool     // a list marker was just written: blocks wait for its text
}

func (c *converter) finish() (string, bool) {
	return strings.TrimRight(c.out.String(), " \n"), c.full
}

// write appends s, stopping at the limit.
func (c *converter) write(s string) {
	if c.full || s == "" {
		return
	}
	if c.max > 0 && c.out.Len()+len(s) > c.max {
		s = strings.ToValidUTF8(s[:c.max-c.out.Len()], "") // no rune cut in two
		c.full = true
	}
	c.out.WriteString(s)
	c.lineStart = strings.HasSuffix(s, "\n")
}

// block asks for n newlines (1: a new line, 2: a blank line) before the
// next text.
func (c *converter) block(n int) {
	if c.marker {
		return
	}
	if c.started && n > c.newlines {
		if c.newlines == 0 {
			c.owedQuote = c.quote
		}
		c.newlines = n
	}
	c.space = false
}

// prefix is what every line starts with: the quote markers and the list
// indentation.
func (c *converter) prefix() string {
	q := min(c.quote, maxListDepth)
	d := min(max(len(c.lists)-1, 0), maxListDepth)
	return strings.Repeat("> ", q) + strings.Repeat("  ", d)
}

// flush writes the newlines owed and the line prefix.
func (c *converter) flush() {
	if c.newlines > 0 {
		// A blank line belongs to the quotes both of its neighbours are in.
		p := strings.Repeat(">", min(c.quote, c.owedQuote, maxListDepth))
		for i := 0; i < c.newlines; i++ {
			if i > 0 {
				c.write(p)
			}
			c.write("\n")
		}
		c.newlines = 0
		c.write(c.prefix())
		c.space = false
	} else if c.space {
		c.write(" ")
		c.space = false
	}
	c.started = true
}

// inline writes markup that belongs to the text flow.
func (c *converter) inline(s string) {
	c.flush()
	c.write(s)
	c.marker = false
}

func (c *converter) text(s string) {
	if c.pre > 0 {
		c.flush()
		s = strings.ReplaceAll(s, "\r\n", "\n")
		p := c.prefix()
		if p != "" {
			s = strings.ReplaceAll(s, "\n", "\n"+p)
		}
		c.write(s)
		return
	}
	lead := len(s) > 0 && isSpace(s[0])
	trail := len(s) > 0 && isSpace(s[len(s)-1])
	words := strings.Fields(s)
	if len(words) == 0 {
		if lead && c.started && c.newlines == 0 {
			c.space = true
		}
		return
	}
	if lead && c.started && c.newlines == 0 && !c.lineStart {
		c.space = true
	}
	c.flush()
	c.write(strings.Join(words, " "))
	c.space = trail
	c.marker = false
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' }

func (c *converter) start(a atom.Atom, attrs map[string]string, selfClosing bool) {
	switch a {
	case atom.Script, atom.Style, atom.Head, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object, atom.Select, atom.Canvas:
		if !selfClosing {
			c.skip++
		}
		return
	}
	if c.skip > 0 {
		return
	}
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		c.block(2)
		c.inline(strings.Repeat("#", int(a.String()[1]-'0')) + " ")
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Header, atom.Footer, atom.Nav, atom.Main, atom.Aside, atom.Figure, atom.Form, atom.Dl, atom.Details, atom.Summary, atom.Address, atom.Fieldset:
		c.block(2)
	case atom.Br:
		c.block(1)
		c.started = true
	case atom.Hr:
		c.block(2)
		c.inline("---")
		c.block(2)
	case atom.Pre:
		c.block(2)
		c.inline("```")
		c.block(1)
		c.pre++
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		if c.pre == 0 {
			c.inline("`")
		}
	case atom.Strong, atom.B:
		c.inline("**")
	case atom.Em, atom.I:
		c.inline("_")
	case atom.Del, atom.S, atom.Strike:
		c.inline("~~")
	case atom.Blockquote:
		c.block(2)
		c.quote++
	case atom.Ul, atom.Ol:
		c.block(1)
		if len(c.lists) < 1000 {
			c.lists = append(c.lists, list{ordered: a == atom.Ol})
		}
	case atom.Li:
		c.block(1)
		marker := "- "
		if n := len(c.lists); n > 0 && c.lists[n-1].ordered {
			c.lists[n-1].n++
			marker = strconv.Itoa(c.lists[n-1].n) + ". "
		}
		c.inline(marker)
		c.marker = true
	case atom.Dt:
		c.block(1)
	case atom.Dd:
		c.block(1)
		c.inline(": ")
	case atom.Table:
		c.block(2)
	case atom.Tr:
		c.block(1)
		c.cell = 0
	case atom.Td, atom.Th:
		if c.cell == 0 {
			c.inline("| ")
		} else {
			c.inline(" | ")
		}
		c.cell++
	case atom.A:
		href := c.resolve(attrs["href"])
		if len(c.links) < 1000 {
			c.links = append(c.links, href)
		}
		if href != "" {
			c.inline("[")
		}
	case atom.Img:
		src := c.resolve(attrs["src"])
		if src != "" {
			c.inline("![" + oneLine(attrs["alt"]) + "](" + src + ")")
		}
	}
}

func (c *converter) end(a atom.Atom) {
	switch a {
	case atom.Script, atom.Style, atom.Head, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object, atom.Select, atom.Canvas:
		if c.skip > 0 {
			c.skip--
		}
		return
	}
	if c.skip > 0 {
		return
	}
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.P, atom.Div, atom.Section, atom.Article, atom.Header, atom.Footer, atom.Nav, atom.Main, atom.Aside, atom.Figure, atom.Form, atom.Dl, atom.Details, atom.Summary, atom.Address, atom.Fieldset, atom.Table:
		c.block(2)
	case atom.Pre:
		if c.pre > 0 {
			c.pre--
			c.block(1)
			c.inline("```")
			c.block(2)
		}
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		if c.pre == 0 {
			c.write("`")
		}
	case atom.Strong, atom.B:
		c.write("**")
	case atom.Em, atom.I:
		c.write("_")
	case atom.Del, atom.S, atom.Strike:
		c.write("~~")
	case atom.Blockquote:
		if c.quote > 0 {
			c.quote--
		}
		c.block(2)
	case atom.Ul, atom.Ol:
		if len(c.lists) > 0 {
			c.lists = c.lists[:len(c.lists)-1]
		}
		c.block(2)
	case atom.Li, atom.Dt, atom.Dd, atom.Tr:
		c.marker = false
		c.block(1)
	case atom.Td, atom.Th:
		c.space = false
	case atom.A:
		if n := len(c.links); n > 0 {
			href := c.links[n-1]
			c.links = c.links[:n-1]
			if href != "" {
				c.write("](" + href + ")")
			}
		}
	}
}

// resolve makes a link absolute against the base; it drops what a model
// cannot follow (javascript:, data:, fragments) and what does not parse.
func (c *converter) resolve(ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || strings.HasPrefix(ref, "#") || len(ref) > MaxURLLength {
		return ""
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if c.base != nil {
		u = c.base.ResolveReference(u)
	}
	switch u.Scheme {
	case "http", "https", "mailto", "":
	default:
		return ""
	}
	s := u.String()
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "\n", "").Replace(s)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.NewReplacer("[", "(", "]", ")").Replace(s)
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
