package udiff

// differ runs the linear-space variant of Myers' O(ND) algorithm ("An O(ND) Difference
// Algorithm and Its Variations", 1986, section 4b) on interned lines.
type differ struct {
	a, b   []int32
	ca, cb []bool // changed flags, indexed like a and b
	vf, vb []int  // furthest-reaching x per diagonal, forward and backward, offset by off
	off    int
	budget int // steps left before the search turns heuristic, then wholesale
}

// Budget of the search (variables so that tests can shrink them), in diagonal steps (about one nanosecond each): a fixed allowance plus
// a multiple of the input size. Beyond it the diff is correct but not minimal.
var (
	budgetBaseVar    = 1 << 24
	budgetPerLineVar = 32
)

func newDiffer(a, b []int32) *differ {
	n := len(a) + len(b)
	return &differ{
		a: a, b: b,
		ca:     make([]bool, len(a)),
		cb:     make([]bool, len(b)),
		vf:     make([]int, n+3),
		vb:     make([]int, n+3),
		off:    len(b) + 1,
		budget: budgetBaseVar + budgetPerLineVar*n,
	}
}

// compare marks the changed lines of a[aLo:aHi] and b[bLo:bHi].
func (d *differ) compare(aLo, aHi, bLo, bHi int) {
	for {
		for aLo < aHi && bLo < bHi && d.a[aLo] == d.b[bLo] {
			aLo++
			bLo++
		}
		for aLo < aHi && bLo < bHi && d.a[aHi-1] == d.b[bHi-1] {
			aHi--
			bHi--
		}
		if aLo == aHi || bLo == bHi || d.budget <= 0 {
			fill(d.ca[aLo:aHi])
			fill(d.cb[bLo:bHi])
			return
		}
		x, y := d.split(aLo, aHi, bLo, bHi)
		if x < aLo || x > aHi || y < bLo || y > bHi || (x == aLo && y == bLo) || (x == aHi && y == bHi) {
			// Cannot happen for an exact split; guards the heuristic one.
			fill(d.ca[aLo:aHi])
			fill(d.cb[bLo:bHi])
			return
		}
		// Recurse on the smaller half, loop on the larger one: the stack stays logarithmic.
		if (x-aLo)+(y-bLo) < (aHi-x)+(bHi-y) {
			d.compare(aLo, x, bLo, y)
			aLo, bLo = x, y
		} else {
			d.compare(x, aHi, y, bHi)
			aHi, bHi = x, y
		}
	}
}

// split returns a point (x, y) through which a minimal edit path from (aLo, bLo) to (aHi, bHi)
// passes; the caller has removed the common prefix and suffix, and both ranges are non-empty.
// It searches from both corners at once, one edit step at a time, until the searches meet
// (the "middle snake"). This is the form used by GNU diff (analyze.c, diag); diagonals are
// numbered k = x - y in absolute coordinates, so the vectors need no reset between calls.
// When the budget runs out it returns the furthest point reached by the forward search.
func (d *differ) split(aLo, aHi, bLo, bHi int) (int, int) {
	a, b, fd, bd, off := d.a, d.b, d.vf, d.vb, d.off
	dmin, dmax := aLo-bHi, aHi-bLo // valid diagonals
	fmid, bmid := aLo-bLo, aHi-bHi // centre diagonals of the two searches
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	odd := (fmid-bmid)&1 != 0
	fd[off+fmid] = aLo
	bd[off+bmid] = aHi
	for {
		if d.budget <= 0 {
			return d.bestForward(fmin, fmax, aLo, aHi, bLo, bHi)
		}
		d.budget -= fmax - fmin + bmax - bmin + 4

		// Extend the forward search by one edit step in each diagonal.
		if fmin > dmin {
			fmin--
			fd[off+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			fd[off+fmax+1] = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			lo, hi := fd[off+k-1], fd[off+k+1]
			x0 := hi
			if lo >= hi {
				x0 = lo + 1
			}
			x, y := x0, x0-k
			for x < aHi && y < bHi && a[x] == b[y] {
				x++
				y++
			}
			d.budget -= x - x0
			fd[off+k] = x
			if odd && bmin <= k && k <= bmax && bd[off+k] <= x {
				return x, y
			}
		}

		// Extend the backward search likewise.
		if bmin > dmin {
			bmin--
			bd[off+bmin-1] = maxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			bd[off+bmax+1] = maxInt
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			lo, hi := bd[off+k-1], bd[off+k+1]
			x0 := hi - 1
			if lo < hi {
				x0 = lo
			}
			x, y := x0, x0-k
			for aLo < x && bLo < y && a[x-1] == b[y-1] {
				x--
				y--
			}
			d.budget -= x0 - x
			bd[off+k] = x
			if !odd && fmin <= k && k <= fmax && x <= fd[off+k] {
				return x, y
			}
		}
	}
}

const maxInt = int(^uint(0) >> 1)

// bestForward returns the point of the forward search with the largest x+y inside the grid.
func (d *differ) bestForward(fmin, fmax, aLo, aHi, bLo, bHi int) (int, int) {
	bx, by := aLo, bLo
	for k := fmin; k <= fmax; k++ {
		x := d.vf[d.off+k]
		y := x - k
		if x < aLo || x > aHi || y < bLo || y > bHi {
			continue
		}
		if x+y > bx+by && !(x == aHi && y == bHi) {
			bx, by = x, y
		}
	}
	return bx, by
}

// shiftBoundaries slides every run of changed lines of one side over equal neighbouring lines
// so that runs merge where possible, then moves each run to the last position where it lines
// up with a run of changes in the other side, or as far down as it goes. other holds the other
// side's flags; only changed's flags move, and the pairing of unchanged lines stays valid because
// a run only slides over a line equal to the one it uncovers. This is GNU diff's
// shift_boundaries (analyze.c).
func shiftBoundaries(lines []string, changed, other []bool) {
	n, on := len(changed), len(other)
	i, j := 0, 0 // j: index in other of the unchanged line paired with line i
	for {
		for i < n && !changed[i] {
			for j < on && other[j] {
				j++
			}
			j++
			i++
		}
		if i == n {
			return
		}
		start := i
		for i < n && changed[i] {
			i++
		}
		for j < on && other[j] {
			j++
		}
		var corresponding int
		for {
			runLength := i - start
			// Move the run up while the line before it equals its last line; this merges it
			// with earlier runs.
			for start > 0 && lines[start-1] == lines[i-1] {
				start--
				changed[start] = true
				i--
				changed[i] = false
				for start > 0 && changed[start-1] {
					start--
				}
				j--
				for j >= 0 && other[j] {
					j--
				}
			}
			// corresponding: end of the run at the last place it faced changes on the other side.
			corresponding = n
			if j > 0 && j-1 < on && other[j-1] {
				corresponding = i
			}
			// Then down while its first line equals the line after it; merges with later runs.
			for i < n && lines[start] == lines[i] {
				changed[start] = false
				start++
				changed[i] = true
				i++
				for i < n && changed[i] {
					i++
				}
				j++
				for j < on && other[j] {
					corresponding = i
					j++
				}
			}
			if runLength == i-start {
				break
			}
		}
		// Move the merged run back up to line up with the other side's changes, if it did.
		for corresponding < i {
			start--
			changed[start] = true
			i--
			changed[i] = false
			j--
			for j >= 0 && other[j] {
				j--
			}
		}
	}
}
