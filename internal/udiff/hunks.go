package udiff

import (
	"strconv"
	"strings"
)

// ends returns the positions in the old and new text just after o.
func (o op) ends() (int, int) {
	switch o.kind {
	case opDelete:
		return o.a + o.n, o.b
	case opInsert:
		return o.a, o.b + o.n
	}
	return o.a + o.n, o.b + o.n
}

// writeHunks writes the @@ hunks of ops. Changes separated by at most 2·context equal lines
// go into the same hunk.
func writeHunks(sb *strings.Builder, a, b []string, ops []op, context int) {
	for i := 0; i < len(ops); {
		for i < len(ops) && ops[i].kind == opEqual {
			i++
		}
		if i == len(ops) {
			return
		}
		first, last := i, i
		for j := i + 1; j < len(ops); j++ {
			if ops[j].kind != opEqual {
				last = j
				continue
			}
			if j+1 == len(ops) || ops[j].n > 2*context {
				break
			}
		}
		pre, post := 0, 0
		if first > 0 {
			pre = min(context, ops[first-1].n)
		}
		if last+1 < len(ops) {
			post = min(context, ops[last+1].n)
		}
		a0, b0 := ops[first].a-pre, ops[first].b-pre
		aEnd, bEnd := ops[last].ends()
		aEnd += post
		bEnd += post

		sb.WriteString("@@ -")
		writeRange(sb, a0, aEnd-a0)
		sb.WriteString(" +")
		writeRange(sb, b0, bEnd-b0)
		sb.WriteString(" @@\n")
		writeLines(sb, ' ', a[a0:a0+pre])
		for _, o := range ops[first : last+1] {
			switch o.kind {
			case opEqual:
				writeLines(sb, ' ', a[o.a:o.a+o.n])
			case opDelete:
				writeLines(sb, '-', a[o.a:o.a+o.n])
			case opInsert:
				writeLines(sb, '+', b[o.b:o.b+o.n])
			}
		}
		ea, _ := ops[last].ends()
		writeLines(sb, ' ', a[ea:ea+post])
		i = last + 1
	}
}

// writeRange writes a hunk range the way GNU diff does: "start,count", "start" alone when
// count is 1, and for an empty range the number of the line before it with count 0.
func writeRange(sb *strings.Builder, start, count int) {
	if count == 0 {
		sb.WriteString(strconv.Itoa(start))
		sb.WriteString(",0")
		return
	}
	sb.WriteString(strconv.Itoa(start + 1))
	if count != 1 {
		sb.WriteByte(',')
		sb.WriteString(strconv.Itoa(count))
	}
}

func writeLines(sb *strings.Builder, prefix byte, lines []string) {
	for _, l := range lines {
		sb.WriteByte(prefix)
		sb.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}
