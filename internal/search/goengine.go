package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolscope/toolscope/internal/walk"
)

// maxColumns is ripgrep's --max-columns as the reference passes it: longer
// lines (counting the line terminator) are replaced by a notice.
const maxColumns = 500

// chunkSize is how much of a file the Go engine reads at a time in line mode
// (ripgrep's buffer size); binary detection looks at each chunk.
const chunkSize = 64 << 10

// maxLineBuffer bounds the line buffer of the Go engine in line mode: a line
// that fills it (more than maxLineBuffer bytes) is searched as a stream, in
// chunks, and never held whole (see worker.longLine). Its match is exact;
// being longer than maxColumns, it is printed as rg prints long lines, as a
// notice without its text. (A variable, so that tests can stream every line.)
var maxLineBuffer = 1 << 20

// goSearch is a compiled Go-engine search.
type goSearch struct {
	mode      string
	numbers   bool
	before    int
	after     int
	context   bool // context lines were asked for: print "--" between groups
	multiline bool

	re         *regexp.Regexp
	find       func([]byte) int // index of a candidate match in a region of whole lines, or -1
	verify     bool             // a candidate's line must be confirmed with re
	lit        []byte           // a literal every match contains (case-sensitive), for a whole-file pre-check
	litLen     int              // the length of the literal find looks for (folded or not), 0 if none
	singleFile bool
}

func newGoSearch(o *GrepOptions, isDir bool) (*goSearch, error) {
	flags := syntax.Perl &^ syntax.OneLine // ^ and $ match at line boundaries, as in ripgrep
	if o.IgnoreCase {
		flags |= syntax.FoldCase
	}
	if o.Multiline {
		flags |= syntax.DotNL
	}
	tree, err := syntax.Parse(o.Pattern, flags)
	if err != nil {
		return nil, toolErrorf("Invalid regex pattern: %v", err)
	}
	if !o.Multiline && matchesNewline(tree) {
		return nil, toolErrorf("Invalid regex pattern: the literal '\"\\n\"' is not allowed in a regex (set multiline to search across lines)")
	}
	prefix := "(?m)"
	if o.IgnoreCase {
		prefix += "(?i)"
	}
	if o.Multiline {
		prefix += "(?s)"
	}
	re, err := regexp.Compile(prefix + o.Pattern)
	if err != nil {
		return nil, toolErrorf("Invalid regex pattern: %v", err)
	}
	s := &goSearch{
		mode:       o.OutputMode,
		numbers:    o.LineNumbers,
		multiline:  o.Multiline,
		re:         re,
		singleFile: !isDir,
	}
	if s.mode == ModeContent {
		s.before, s.after = o.Before, o.After
		if o.Context > 0 {
			s.before, s.after = o.Context, o.Context
		}
		s.context = s.before > 0 || s.after > 0
	}
	simple := tree.Simplify()
	lit, fold, whole := requiredLiteral(simple)
	// A literal of three bytes or more is found fast (bytes.Index); a
	// shorter one, or none, may say less than the byte classes around it.
	var wf *windowFinder
	if !whole && len(lit) < 3 {
		litBits := 0.0
		for _, c := range lit {
			var set byteSet
			set.add(c)
			if fold && 'a' <= c && c <= 'z' {
				set.add(c - 'a' + 'A')
			}
			litBits += set.bits()
		}
		wf = newWindowFinder(simple, litBits)
	}
	switch {
	case wf != nil:
		s.find = wf.index
		if !fold {
			s.lit = lit
		}
	case len(lit) > 0 && !fold:
		s.find = func(h []byte) int { return bytes.Index(h, lit) }
		s.lit = lit
	case len(lit) > 0:
		s.find = newFoldFinder(lit).index
	default:
		s.find = func(h []byte) int { return findInWindows(re, h) }
	}
	s.litLen = len(lit)
	s.verify = !whole || len(lit) == 0 || wf != nil
	return s, nil
}

// regexWindow is how much text, in whole lines, findInWindows hands to the
// regexp at once: small enough for its backtracking matcher, which is several
// times faster than the NFA it falls back to on large inputs.
const regexWindow = 4 << 10

// findInWindows returns the start of the first match of re in h, which holds
// whole lines, or -1. A match found in a window may differ from one over all
// of h only by spanning lines, and such candidates are verified line by line.
func findInWindows(re *regexp.Regexp, h []byte) int {
	for off := 0; off < len(h); {
		end := len(h)
		if off+regexWindow < end {
			end = off + regexWindow
			if j := bytes.IndexByte(h[end:], '\n'); j >= 0 {
				end += j + 1
			} else {
				end = len(h)
			}
		}
		if loc := re.FindIndex(h[off:end]); loc != nil {
			return off + loc[0]
		}
		off = end
	}
	return -1
}

// matchesNewline reports a literal "\n" in the pattern, which ripgrep refuses
// outside multiline mode.
func matchesNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral && slices.Contains(re.Rune, '\n') {
		return true
	}
	if re.Op == syntax.OpCharClass && len(re.Rune) == 2 && re.Rune[0] == '\n' && re.Rune[1] == '\n' {
		return true
	}
	return slices.ContainsFunc(re.Sub, matchesNewline)
}

// filter builds the walk override for the glob and type options, with
// ripgrep's semantics: the last matching glob wins, "!" excludes, and when
// any glob includes, a file no glob matches is skipped; the type then keeps
// only files whose name matches one of its globs.
func filter(o *GrepOptions) (func(rel string, isDir bool) walk.Match, error) {
	lines := make([]string, 0, len(vcsDirs))
	for _, d := range vcsDirs {
		lines = append(lines, "!"+d)
	}
	whitelist := false
	for _, g := range splitGlobs(o.Glob) {
		if !strings.HasPrefix(g, "!") {
			whitelist = true
		}
		// A --glob is a gitignore line with the meaning of "!" inverted.
		if rest, ok := strings.CutPrefix(g, "!"); ok {
			g = rest
		} else {
			g = "!" + g
		}
		lines = append(lines, g)
	}
	globs, err := walk.NewMatcher(lines)
	if err != nil {
		var bp *walk.BadPatternError
		if errors.As(err, &bp) {
			return nil, toolErrorf("Invalid glob: %s", strings.TrimPrefix(bp.Pattern, "!"))
		}
		return nil, err
	}
	var types *walk.Matcher
	if o.Type != "" {
		names, ok := rgTypes[o.Type]
		if !ok {
			return nil, toolErrorf("unrecognized file type: %s", o.Type)
		}
		if types, err = walk.NewMatcher(names); err != nil {
			return nil, err
		}
	}
	return func(rel string, isDir bool) walk.Match {
		if matched, include := globs.Match(rel, isDir); matched {
			if include {
				return walk.Include
			}
			return walk.Ignore
		}
		if isDir {
			return walk.None
		}
		if whitelist {
			return walk.Ignore
		}
		if types != nil {
			if matched, _ := types.Match(rel, false); !matched {
				return walk.Ignore
			}
		}
		return walk.None
	}, nil
}

type fileOutput struct {
	path  string
	e     walk.Entry
	out   []byte
	extra int // output lines counted but not kept (see worker.trim)
}

// itemAdder is the pager's way to count output lines that were not kept.
type itemAdder interface{ addItems(int) }

// runGo searches with the Go engine and writes what rg would print to out.
// With rx, excluded directories are not entered, excluded files and links to
// them are not opened, and the output of every file is checked once more
// before it is written (a single file has been checked already).
func runGo(ctx context.Context, o *GrepOptions, isDir bool, rx *rootExcluder, out io.Writer) error {
	s, err := newGoSearch(o, isDir)
	if err != nil {
		return err
	}
	override, err := filter(o) // checked for a single file too: rg reports a bad type or glob either way
	if err != nil {
		return err
	}
	if rx != nil {
		override = rx.override(override) // first, so that no glob can re-include an excluded path
	}
	need := pageNeed(o)
	if !isDir {
		w := newWorker(ctx, s)
		w.maxLines = need
		b, err := w.searchFile(o.Path, o.Path)
		if err == nil {
			_, err = out.Write(b)
		}
		if a, ok := out.(itemAdder); ok && w.extra > 0 {
			a.addItems(w.extra)
		}
		return err
	}

	display := strings.TrimRight(o.Path, "/") + "/"
	threads := runtime.GOMAXPROCS(0)
	paths := make(chan walk.Entry, 256)
	var (
		mu      sync.Mutex
		results []fileOutput
		kept    int    // output lines in results
		cutPath string // once set, a file sorting after it cannot reach the page
		wg      sync.WaitGroup
	)
	// Only the first offset+limit lines (in path order) can be shown:
	// memory follows head_limit, not the number of matches. The lines not
	// kept are still counted (the result's item count).
	dropped := 0
	for range threads {
		wg.Go(func() {
			w := newWorker(ctx, s)
			w.maxLines = need
			for e := range paths {
				if ctx.Err() != nil {
					continue
				}
				name := display + e.Rel
				out, err := w.searchFile(e.Path, name)
				if err != nil || len(out) == 0 {
					continue // unreadable files are skipped, as rg skips them after a warning
				}
				lines := bytes.Count(out, []byte{'\n'})
				mu.Lock()
				if cutPath == "" || name <= cutPath {
					results = append(results, fileOutput{name, e, bytes.Clone(out), w.extra})
					kept += lines
					if need > 0 && kept > 4*need {
						var cut []fileOutput
						results, kept, cutPath, cut = prune(results, need)
						for _, c := range cut {
							dropped += c.lines(s.context, rx)
						}
					}
				} else {
					dropped += (&fileOutput{name, e, nil, lines + w.extra}).lines(s.context, rx)
				}
				mu.Unlock()
			}
		})
	}
	opts := &walk.Options{GitIgnore: true, Hidden: true, Override: override}
	for e, err := range walk.Files(ctx, o.Path, opts) {
		if err != nil {
			continue
		}
		if rx != nil && e.Target != "" && rx.targetHit(e.Target) != nil {
			continue // a link to an excluded file
		}
		select {
		case paths <- e:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(paths)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	slices.SortFunc(results, func(a, b fileOutput) int { return strings.Compare(a.path, b.path) })
	written := false
	for _, r := range results {
		if rx != nil && rx.fileHit(r.e.Rel, r.e.Target) != nil {
			continue
		}
		if written && s.context {
			out.Write([]byte("--\n"))
		}
		out.Write(r.out)
		dropped += r.extra
		written = true
	}
	if a, ok := out.(itemAdder); ok && dropped > 0 {
		a.addItems(dropped)
	}
	return nil
}

// worker searches files one at a time, reusing its buffers.
type worker struct {
	ctx      context.Context
	s        *goSearch
	buf      []byte
	p        printer
	maxLines int // keep at most this many output lines of a file (0: all)
	extra    int // the current file's output lines counted but not kept

	// dropped is how many bytes of the current file's long lines are not
	// in buf (see longLine): the file offset of buf[i] is p.base+dropped+i.
	dropped int64
	chunk   []byte // longLine's read buffer, made on first use
}

// pageNeed is how many output lines the page can use: offset+limit, plus
// one to tell that more exist (0: all of them).
func pageNeed(o *GrepOptions) int {
	limit := DefaultHeadLimit
	if o.HeadLimit != nil {
		limit = *o.HeadLimit
	}
	if limit == 0 {
		return 0
	}
	return o.Offset + limit + 1
}

// prune keeps the files, in path order, whose output the page can reach
// (need lines), and returns the path after which nothing can, and the
// files cut.
func prune(results []fileOutput, need int) ([]fileOutput, int, string, []fileOutput) {
	slices.SortFunc(results, func(a, b fileOutput) int { return strings.Compare(a.path, b.path) })
	lines := 0
	for i, r := range results {
		lines += bytes.Count(r.out, []byte{'\n'})
		if lines >= need {
			cut := slices.Clone(results[i+1:])
			for j := i + 1; j < len(results); j++ {
				results[j] = fileOutput{}
			}
			return results[:i+1], lines, r.path, cut
		}
	}
	return results, lines, "", nil
}

// lines is how many output lines (and, with context, the "--" before it)
// a file not written adds to the count; a file the exclusions would drop
// adds none.
func (f *fileOutput) lines(context bool, rx *rootExcluder) int {
	if rx != nil && rx.fileHit(f.e.Rel, f.e.Target) != nil {
		return 0
	}
	n := bytes.Count(f.out, []byte{'\n'}) + f.extra
	if context {
		n++
	}
	return n
}

// trim keeps at most maxLines lines of the file's output, counting the
// rest in extra (content mode: one line per match or context line).
func (w *worker) trim() {
	p := &w.p
	if w.maxLines <= 0 || p.s.mode != ModeContent {
		return
	}
	n := bytes.Count(p.out, []byte{'\n'})
	if n <= w.maxLines {
		return
	}
	cut, seen := 0, 0
	for seen < w.maxLines {
		i := bytes.IndexByte(p.out[cut:], '\n')
		cut += i + 1
		seen++
	}
	w.extra += n - w.maxLines
	p.out = p.out[:cut]
}

func newWorker(ctx context.Context, s *goSearch) *worker {
	return &worker{ctx: ctx, s: s, buf: make([]byte, chunkSize)}
}

// searchFile returns rg's output for one file (nil when nothing matched).
func (w *worker) searchFile(path, display string) ([]byte, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w.p = printer{s: w.s, out: w.p.out[:0], display: display, binaryAt: -1}
	w.extra, w.dropped = 0, 0
	if w.s.multiline {
		err = w.searchWhole(f)
	} else {
		err = w.searchLines(f)
	}
	if err != nil {
		return nil, err
	}
	return w.p.finish(), nil
}

// binaryQuit reports whether the search of a chunk holding a NUL byte stops.
// For a file given explicitly, rg instead treats NUL as a line terminator and
// reports "binary file matches" in place of lines.
func (w *worker) binary(chunk []byte, chunkOff int64) (quit bool) {
	i := bytes.IndexByte(chunk, 0)
	if i < 0 {
		return false
	}
	if !w.s.singleFile {
		return true
	}
	if w.p.binaryAt < 0 {
		w.p.binaryAt = chunkOff + int64(i)
	}
	for ; i >= 0; i = bytes.IndexByte(chunk, 0) {
		chunk[i] = '\n'
	}
	return false
}

// searchLines streams the file in chunks of whole lines, keeping the lines
// before each chunk that before-context may need.
func (w *worker) searchLines(f io.Reader) error {
	buf := w.buf[:cap(w.buf)]
	p := &w.p
	filled, start := 0, 0
	eof := false
	for {
		n, err := io.ReadFull(f, buf[filled:])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			eof = true
		} else if err != nil {
			return err
		}
		if p.base == 0 && filled == 0 && bytes.HasPrefix(buf[:n], utf8BOM) {
			n = copy(buf, buf[len(utf8BOM):n])
			p.skipBOM()
		}
		if w.binary(buf[filled:filled+n], p.base+w.dropped+int64(filled)) {
			return nil
		}
		if err := w.ctx.Err(); err != nil {
			return err
		}
		filled += n
		end := filled
		if !eof {
			i := bytes.LastIndexByte(buf[start:filled], '\n')
			if i < 0 { // no whole line yet
				if start > 0 {
					filled = p.roll(buf, start, filled)
					start = p.keepStart
				}
				switch {
				case filled < len(buf):
				case filled-start < max(maxLineBuffer, chunkSize): // one line longer than the buffer
					buf = append(buf[:filled], make([]byte, len(buf))...)
					buf = buf[:cap(buf)]
					w.buf = buf
				default: // a line too long to hold: stream it
					var done bool
					var err error
					if filled, done, err = w.longLine(f, start, filled); err != nil || done {
						return err
					}
					buf = w.buf
					end := start + maxColumns + 1
					p.flushAfter(end)
					w.trim()
					filled = p.roll(buf, end, filled)
					start = p.keepStart
				}
				continue
			}
			end = start + i + 1
		}
		p.buf = buf[:filled]
		if done := w.searchRegion(start, end); done {
			return nil
		}
		p.flushAfter(end)
		w.trim()
		if eof {
			return nil
		}
		filled = p.roll(buf, end, filled)
		start = p.keepStart
	}
}

// longLine searches the line that starts at buf[start] and fills the
// buffer to filled without a terminator (more than maxColumns bytes of it),
// reading the rest of it from f in
// chunks: a literal pattern is looked for in each chunk and across chunk
// boundaries, any other through regexp.MatchReader, so the result is that
// of the whole line, in memory that does not grow with it. The line is then
// left in buf as a stub of maxColumns+1 bytes (its head, and its terminator
// if it has one; the printer shows a line that long as a notice), followed
// by what was read after it; the bytes left out are counted in dropped. It
// returns the new fill, and whether the file needs no more searching (a
// match in a mode that stops at the first, or a NUL byte where that stops
// the search).
func (w *worker) longLine(f io.Reader, start, filled int) (int, bool, error) {
	if w.chunk == nil {
		w.chunk = make([]byte, utf8.UTFMax+chunkSize)
	}
	p := &w.p
	buf := w.buf
	l := &lineStream{w: w, f: f, off: p.base + w.dropped + int64(filled)}
	l.pending(buf[start:filled])
	var matched bool
	if w.s.verify {
		matched = w.s.re.MatchReader(&lineRunes{l: l})
	} else {
		matched = l.findLiteral(w.s.find, w.s.litLen)
	}
	for l.next() != nil { // the rest of the line
	}
	switch {
	case l.err != nil:
		return filled, true, l.err
	case l.quit:
		return filled, true, nil
	}
	// The stub: the line's first maxColumns bytes (it has more), then its
	// terminator or, at the end of the file, one more byte of it.
	end := start + maxColumns + 1
	if l.ended {
		buf[end-1] = '\n'
	}
	w.dropped += l.n - int64(end-start)
	if l.ended {
		w.dropped++ // the terminator is in the stub
	}
	if need := end + len(l.rest); need > len(buf) {
		buf = append(buf[:end], make([]byte, need-end)...)
		buf = buf[:cap(buf)]
		w.buf = buf
	}
	filled = end + copy(buf[end:], l.rest)
	p.buf = buf[:filled]
	if matched && p.match(start, end) {
		return filled, true, nil
	}
	return filled, false, nil
}

// lineStream hands out the bytes of one long line in segments: first what
// the buffer holds of it, then what is read from the file, up to the line
// terminator (which it does not hand out) or the end of the file. A segment
// never ends inside a UTF-8 sequence that the next completes.
type lineStream struct {
	w     *worker
	f     io.Reader
	off   int64  // the file offset of the next read
	head  []byte // the next segment, when already at hand
	carry []byte // an incomplete UTF-8 sequence held back from the last segment
	rest  []byte // what followed the terminator in the last read
	n     int64  // bytes of the line handed out (and held back)
	ended bool   // the terminator was found
	eof   bool
	quit  bool // a NUL byte stops the search of this file
	err   error
}

// pending makes b the next segment.
func (l *lineStream) pending(b []byte) {
	l.n += int64(len(b))
	l.head = l.holdBack(b)
}

// holdBack returns b without a trailing incomplete UTF-8 sequence, which it
// keeps for the next segment.
func (l *lineStream) holdBack(b []byte) []byte {
	for k := 1; k < utf8.UTFMax && k <= len(b); k++ {
		if i := len(b) - k; utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				l.carry = append(l.carry[:0], b[i:]...)
				return b[:i]
			}
			break
		}
	}
	return b
}

// next returns the next segment of the line, nil once the line ended (or
// failed: see err, quit).
func (l *lineStream) next() []byte {
	for {
		if l.head != nil {
			h := l.head
			l.head = nil
			if len(h) > 0 {
				return h
			}
			continue
		}
		if l.ended || l.eof || l.quit || l.err != nil {
			return nil
		}
		if l.err = l.w.ctx.Err(); l.err != nil {
			return nil
		}
		// Read after the carried bytes, which stay in front of the chunk.
		c := len(l.carry)
		copy(l.w.chunk[utf8.UTFMax-c:], l.carry)
		l.carry = l.carry[:0]
		n, err := l.f.Read(l.w.chunk[utf8.UTFMax:])
		read := l.w.chunk[utf8.UTFMax : utf8.UTFMax+n]
		switch {
		case err == io.EOF:
			l.eof = true
		case err != nil:
			l.err = err
			return nil
		}
		if l.w.binary(read, l.off) {
			l.quit = true
			return nil
		}
		l.off += int64(n)
		seg := l.w.chunk[utf8.UTFMax-c : utf8.UTFMax+n]
		if j := bytes.IndexByte(read, '\n'); j >= 0 {
			l.ended = true
			l.rest = read[j+1:]
			seg = seg[:c+j]
		}
		l.n += int64(len(seg) - c)
		if l.ended || l.eof {
			l.head = seg // the last segment: nothing is held back
		} else {
			l.head = l.holdBack(seg)
		}
	}
}

// findLiteral reports whether find, which looks for a literal of litLen
// bytes, finds it in the line: in each segment, and in the litLen-1 bytes
// on either side of each boundary.
func (l *lineStream) findLiteral(find func([]byte) int, litLen int) bool {
	var edge, tail []byte // the last litLen-1 bytes so far
	for seg := l.next(); seg != nil; seg = l.next() {
		if len(tail) > 0 {
			edge = append(append(edge[:0], tail...), seg[:min(len(seg), litLen-1)]...)
			if find(edge) >= 0 {
				return true
			}
		}
		if find(seg) >= 0 {
			return true
		}
		tail = append(tail, seg[max(0, len(seg)-(litLen-1)):]...)
		tail = tail[max(0, len(tail)-(litLen-1)):]
	}
	return false
}

// lineRunes reads a lineStream as runes, for regexp.MatchReader.
type lineRunes struct {
	l   *lineStream
	cur []byte
}

func (r *lineRunes) ReadRune() (rune, int, error) {
	for len(r.cur) == 0 {
		if r.cur = r.l.next(); r.cur == nil {
			return 0, 0, io.EOF
		}
	}
	c, size := utf8.DecodeRune(r.cur)
	r.cur = r.cur[size:]
	return c, size, nil
}

// searchRegion searches the whole lines buf[start:end] and reports whether the
// file needs no more searching.
func (w *worker) searchRegion(start, end int) bool {
	s, p := w.s, &w.p
	data := p.buf
	pos := start
	for pos < end {
		idx := s.find(data[pos:end])
		if idx < 0 {
			return false
		}
		cand := pos + idx
		if cand == end && data[end-1] == '\n' {
			return false // an empty match after the last line terminator
		}
		ls := pos
		if j := bytes.LastIndexByte(data[pos:cand], '\n'); j >= 0 {
			ls = pos + j + 1
		}
		le := end
		if j := bytes.IndexByte(data[cand:end], '\n'); j >= 0 {
			le = cand + j
		}
		next := min(le+1, end)
		if s.verify && !s.re.Match(data[ls:le]) {
			pos = next
			continue
		}
		if p.match(ls, next) {
			return true
		}
		pos = next
	}
	return false
}

// searchWhole reads the whole file and matches the pattern across lines.
func (w *worker) searchWhole(f io.Reader) error {
	buf := w.buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	w.buf = buf
	p := &w.p
	if bytes.HasPrefix(buf, utf8BOM) {
		buf = buf[len(utf8BOM):]
		p.skipBOM()
	}
	if w.binary(buf, p.base) {
		return nil
	}
	if w.s.lit != nil && !bytes.Contains(buf, w.s.lit) {
		return nil
	}
	p.buf = buf
	lastStart, lastEnd := -1, -1
	for _, m := range w.s.re.FindAllIndex(buf, -1) {
		if m[0] == len(buf) && (len(buf) == 0 || buf[len(buf)-1] == '\n') {
			break
		}
		ls := bytes.LastIndexByte(buf[:m[0]], '\n') + 1
		last := max(m[1]-1, m[0])
		le := len(buf)
		if last < len(buf) {
			if j := bytes.IndexByte(buf[last:], '\n'); j >= 0 {
				le = last + j + 1
			}
		}
		if lastEnd > ls {
			lastEnd = max(lastEnd, le)
			continue
		}
		if lastStart >= 0 && p.match(lastStart, lastEnd) {
			return nil
		}
		lastStart, lastEnd = ls, le
	}
	if lastStart >= 0 && !p.match(lastStart, lastEnd) {
		p.flushAfter(len(buf))
	}
	return nil
}

// printer formats matches of one file as rg does for non-terminal output.
// Offsets are relative to buf, which starts at file offset base.
type printer struct {
	s       *goSearch
	display string
	out     []byte
	buf     []byte
	base    int64

	count     int
	printed   bool  // some line of this file was printed
	lastEnd   int64 // file offset just past the last printed line
	afterLeft int   // after-context lines still to print
	lineOff   int64 // file offset at which lineNum is known
	lineNum   int
	keepStart int   // after roll: where searching resumes in buf
	binaryAt  int64 // offset of the first NUL in a binary file given explicitly, or -1
}

// match records the matching lines buf[ls:le] (le is past the terminator)
// and reports whether the file needs no more searching.
func (p *printer) match(ls, le int) bool {
	p.count++
	switch p.s.mode {
	case ModeFilesWithMatches:
		return true
	case ModeCount:
		return false
	}
	if p.binaryAt >= 0 {
		return true // rg prints one notice instead of the lines
	}
	p.flushAfter(ls)
	start := ls
	lowest := int(max(p.lastEnd-p.base, 0))
	for k := 0; k < p.s.before && start > lowest; k++ {
		start = bytes.LastIndexByte(p.buf[lowest:start-1], '\n') + 1 + lowest
	}
	if p.s.context && p.printed && p.base+int64(start) > p.lastEnd {
		p.out = append(p.out, "--\n"...)
	}
	for start < ls {
		start = p.line(start, false)
	}
	for start < le {
		start = p.line(start, true)
	}
	p.afterLeft = p.s.after
	return false
}

// flushAfter prints pending after-context lines that start before limit.
func (p *printer) flushAfter(limit int) {
	for p.afterLeft > 0 {
		at := int(p.lastEnd - p.base)
		if at >= limit || at >= len(p.buf) {
			return
		}
		p.line(at, false)
		p.afterLeft--
	}
}

// line prints the line starting at buf[ls] and returns the offset of the next.
func (p *printer) line(ls int, isMatch bool) int {
	next := len(p.buf)
	le := next
	if j := bytes.IndexByte(p.buf[ls:], '\n'); j >= 0 {
		le, next = ls+j, ls+j+1
	}
	sep := byte('-')
	if isMatch {
		sep = ':'
	}
	if !p.s.singleFile {
		p.out = append(p.out, p.display...)
		p.out = append(p.out, sep)
	}
	if p.s.numbers {
		abs := p.base + int64(ls)
		p.lineNum += bytes.Count(p.buf[p.lineOff-p.base:ls], []byte{'\n'})
		p.lineOff = abs
		p.out = strconv.AppendInt(p.out, int64(p.lineNum+1), 10)
		p.out = append(p.out, sep)
	}
	switch {
	case next-ls <= maxColumns:
		p.out = append(p.out, p.buf[ls:le]...)
	case isMatch:
		p.out = append(p.out, "[Omitted long matching line]"...)
	default:
		p.out = append(p.out, "[Omitted long context line]"...)
	}
	p.out = append(p.out, '\n')
	p.printed = true
	p.lastEnd = p.base + int64(next)
	return next
}

// roll moves the unsearched tail buf[end:filled], and the lines before it
// that before-context or line counting still need, to the front of buf. It
// returns the new fill and sets keepStart to where searching resumes.
func (p *printer) roll(buf []byte, end, filled int) int {
	keep := end
	for k := 0; k < p.s.before && keep > 0; k++ {
		keep = bytes.LastIndexByte(buf[:keep-1], '\n') + 1
	}
	if p.afterLeft > 0 {
		keep = min(keep, int(p.lastEnd-p.base))
	}
	if p.s.numbers && p.lineOff-p.base < int64(keep) {
		p.lineNum += bytes.Count(buf[p.lineOff-p.base:keep], []byte{'\n'})
		p.lineOff = p.base + int64(keep)
	}
	copy(buf, buf[keep:filled])
	p.base += int64(keep)
	p.keepStart = end - keep
	return filled - keep
}

// utf8BOM is dropped from the start of a file, as rg does.
var utf8BOM = []byte("\xef\xbb\xbf")

// skipBOM makes the first byte of buf the one after a byte-order mark.
func (p *printer) skipBOM() {
	n := int64(len(utf8BOM))
	p.base, p.lineOff, p.lastEnd = n, n, n
}

// finish returns the file's output.
func (p *printer) finish() []byte {
	if p.count == 0 {
		return nil
	}
	switch p.s.mode {
	case ModeFilesWithMatches:
		return append(append(p.out[:0], p.display...), '\n')
	case ModeCount:
		if p.s.singleFile {
			return append(strconv.AppendInt(p.out[:0], int64(p.count), 10), '\n')
		}
		return fmt.Appendf(p.out[:0], "%s:%d\n", p.display, p.count)
	}
	if p.binaryAt >= 0 {
		return fmt.Appendf(p.out[:0], "binary file matches (found \"\\0\" byte around offset %d)\n", p.binaryAt)
	}
	return p.out
}
