package proc

import "unicode/utf8"

// capture accumulates a command's combined output with bounded memory.
//
// The raw byte stream is tokenised into units, each producing exactly one
// rune of output:
//
//   - a valid UTF-8 encoding of a rune (1–4 raw bytes) → that rune;
//   - "\r\n" (2 raw bytes) → "\n";
//   - a lone '\r' → '\r';
//   - an invalid byte (as utf8.DecodeRune defines it, 1 raw byte) → U+FFFD.
//
// Units are appended to the head while the head's output stays within
// headLimit bytes. The first unit that does not fit closes the head for good;
// its raw bytes and every later raw byte go into a ring buffer of tailLimit
// raw bytes. The tail is decoded from the ring once, at the end (finish).
// A raw suffix that may still be the start of a unit (an incomplete rune, a
// '\r' that may precede '\n') is carried over to the next write, so runes split
// across reads are never broken.
//
// Accounting is in raw bytes: headRaw + tailRaw + Dropped == Total, where
// headRaw/tailRaw are the raw bytes that produced Head/Tail.
type capture struct {
	headLimit int
	tailLimit int

	total int64

	head       []byte
	headRaw    int64
	headClosed bool
	streamed   int  // len(head) already handed out by takeNew
	stream     bool // takeNew empties the head: nothing is kept (Options.Stream)

	pend  [utf8.UTFMax]byte // carried incomplete unit (head phase only)
	npend int

	ring      []byte // allocated lazily, len == tailLimit
	ringPos   int    // next write position
	ringLen   int    // valid bytes in ring
	ringTotal int64  // raw bytes ever written to the ring

	finished bool
	tail     []byte
	tailRaw  int64
}

func newCapture(headLimit, tailLimit int) *capture {
	if headLimit < 0 {
		headLimit = 0
	}
	if tailLimit < 0 {
		tailLimit = 0
	}
	return &capture{headLimit: headLimit, tailLimit: tailLimit}
}

// nextUnit decodes the unit at the start of b (len(b) > 0). need reports that
// more input is required to decide (only when !atEOF).
func nextUnit(b []byte, atEOF bool) (r rune, size int, need bool) {
	c := b[0]
	if c == '\r' {
		if len(b) == 1 {
			if !atEOF {
				return 0, 0, true
			}
			return '\r', 1, false
		}
		if b[1] == '\n' {
			return '\n', 2, false
		}
		return '\r', 1, false
	}
	if c < utf8.RuneSelf {
		return rune(c), 1, false
	}
	if !atEOF && !utf8.FullRune(b) {
		return 0, 0, true
	}
	r, size = utf8.DecodeRune(b) // invalid → (RuneError, 1)
	return r, size, false
}

// headAppend appends a unit to the head, or closes the head if it does not fit.
func (c *capture) headAppend(r rune, size int) bool {
	if len(c.head)+utf8.RuneLen(r) > c.headLimit {
		c.headClosed = true
		return false
	}
	c.head = utf8.AppendRune(c.head, r)
	c.headRaw += int64(size)
	return true
}

// Write consumes a chunk of raw output. It never fails.
func (c *capture) Write(p []byte) {
	c.total += int64(len(p))
	if c.headClosed {
		c.ringWrite(p)
		return
	}
	i := 0
	// Decode the units carried over from the previous chunk, borrowing bytes
	// from p one at a time while more input is needed. pend holds the old
	// bytes followed by the `taken` bytes borrowed from p.
	taken := 0
	for c.npend > 0 {
		r, size, need := nextUnit(c.pend[:c.npend], false)
		if need {
			if i == len(p) {
				return // still incomplete; everything is in pend
			}
			c.pend[c.npend] = p[i]
			c.npend++
			i++
			taken++
			continue
		}
		left := c.npend - size
		back := min(left, taken) // borrowed bytes beyond the unit go back to p
		keep := left - back      // old bytes beyond the unit stay in pend
		i -= back
		taken = 0
		if !c.headAppend(r, size) {
			c.ringWrite(c.pend[:size+keep])
			c.npend = 0
			c.ringWrite(p[i:])
			return
		}
		copy(c.pend[:], c.pend[size:size+keep])
		c.npend = keep
	}
	for i < len(p) {
		// ASCII fast path.
		if b := p[i]; b < utf8.RuneSelf && b != '\r' {
			if len(c.head) >= c.headLimit {
				c.headClosed = true
				c.ringWrite(p[i:])
				return
			}
			c.head = append(c.head, b)
			c.headRaw++
			i++
			continue
		}
		r, size, need := nextUnit(p[i:], false)
		if need {
			c.npend = copy(c.pend[:], p[i:])
			return
		}
		if !c.headAppend(r, size) {
			c.ringWrite(p[i:])
			return
		}
		i += size
	}
}

func (c *capture) ringWrite(p []byte) {
	c.ringTotal += int64(len(p))
	n := c.tailLimit
	if n == 0 || len(p) == 0 {
		return
	}
	if c.ring == nil {
		c.ring = make([]byte, n)
	}
	if len(p) >= n {
		copy(c.ring, p[len(p)-n:])
		c.ringPos, c.ringLen = 0, n
		return
	}
	k := copy(c.ring[c.ringPos:], p)
	copy(c.ring, p[k:])
	c.ringPos = (c.ringPos + len(p)) % n
	c.ringLen = min(c.ringLen+len(p), n)
}

// takeNew returns the head output not yet handed out.
func (c *capture) takeNew() string {
	if c.streamed == len(c.head) {
		return ""
	}
	s := string(c.head[c.streamed:])
	c.streamed = len(c.head)
	if c.stream {
		c.head, c.streamed = c.head[:0], 0
	}
	return s
}

// finish flushes the carried bytes (end of stream) and decodes the tail.
// Calling it again is a no-op.
func (c *capture) finish() {
	if c.finished {
		return
	}
	c.finished = true
	for off := 0; off < c.npend && !c.headClosed; {
		r, size, _ := nextUnit(c.pend[off:c.npend], true)
		if !c.headAppend(r, size) {
			c.ringWrite(c.pend[off:c.npend])
			break
		}
		off += size
	}
	c.npend = 0
	if c.ringLen == 0 {
		return
	}
	raw := make([]byte, 0, c.ringLen)
	if c.ringLen < len(c.ring) {
		raw = append(raw, c.ring[:c.ringLen]...)
	} else {
		raw = append(raw, c.ring[c.ringPos:]...)
		raw = append(raw, c.ring[:c.ringPos]...)
	}
	if c.ringTotal > int64(len(raw)) {
		// Bytes were evicted: the ring may start inside a rune. Skip up to
		// three continuation bytes to resynchronise (they count as dropped).
		for k := 0; k < utf8.UTFMax-1 && len(raw) > 0 && raw[0]&0xC0 == 0x80; k++ {
			raw = raw[1:]
		}
	}
	// Pass 1: output length.
	outLen := 0
	for b := raw; len(b) > 0; {
		r, size, _ := nextUnit(b, true)
		outLen += utf8.RuneLen(r)
		b = b[size:]
	}
	cut := outLen - c.tailLimit // first output offset we may keep
	// Pass 2: keep the units whose output starts at or after cut.
	tail := make([]byte, 0, min(outLen, c.tailLimit))
	out := 0
	for b := raw; len(b) > 0; {
		r, size, _ := nextUnit(b, true)
		if out >= cut {
			tail = utf8.AppendRune(tail, r)
			c.tailRaw += int64(size)
		}
		out += utf8.RuneLen(r)
		b = b[size:]
	}
	c.tail = tail
	c.ring = nil
}

// dropped is only meaningful after finish.
func (c *capture) dropped() int64 { return c.total - c.headRaw - c.tailRaw }
