package builtin_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/permission"
)

// makePDF writes a PDF whose page i shows the text "page i of N" (and the
// extra text on page 1); encrypt adds a standard security handler whose
// user password is not empty, so that no reader opens it without one.
func makePDF(t *testing.T, path string, pages int, extra string, encrypt bool) {
	t.Helper()
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	// 1: catalog, 2: pages, 3: font, then a page and its content for each page.
	kids := make([]string, pages)
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i := 1; i <= pages; i++ {
		text := fmt.Sprintf("page %d of %d", i, pages)
		if i == 1 && extra != "" {
			text += " " + extra
		}
		stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*(i-1)))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	trailer := fmt.Sprintf("<< /Size %d /Root 1 0 R", len(offsets)+1)
	if encrypt {
		obj("<< /Filter /Standard /V 1 /R 2 /O <" + strings.Repeat("41", 32) + "> /U <" + strings.Repeat("42", 32) + "> /P -4 >>")
		trailer += fmt.Sprintf(" /Encrypt %d 0 R /ID [<%s> <%s>]", len(offsets), strings.Repeat("ab", 16), strings.Repeat("ab", 16))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n%s >>\nstartxref\n%d\n%%%%EOF\n", trailer, xref)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Read extracts a PDF's text page by page, with AgentScope's page rules and
// texts, and says clearly when a PDF is encrypted or damaged.
func TestReadPDF(t *testing.T) {
	requireProgram(t, "pdftotext")
	requireProgram(t, "pdfinfo")
	e := newEnv(t, permission.Default, nil)
	small, big, locked, broken := e.path("small.pdf"), e.path("big.PDF"), e.path("locked.pdf"), e.path("broken.pdf")
	makePDF(t, small, 3, "hello", false)
	makePDF(t, big, 25, "", false)
	makePDF(t, locked, 1, "secret", true)
	os.WriteFile(broken, []byte("%PDF-1.4\nthis is not really a pdf\n"), 0o644)

	got := e.mustOK(e.call("Read", map[string]any{"file_path": small}))
	for _, want := range []string{"--- Page 1/3 ---\n", "page 1 of 3 hello", "\n\n--- Page 2/3 ---\n", "page 2 of 3", "--- Page 3/3 ---\n", "page 3 of 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("small.pdf lacks %q:\n%s", want, got)
		}
	}
	got = e.mustOK(e.call("Read", map[string]any{"file_path": big, "pages": " 24 - 30 "}))
	if !strings.HasPrefix(got, "--- Page 24/25 ---\n") || !strings.Contains(got, "page 25 of 25") || strings.Contains(got, "Page 23/") {
		t.Errorf("big.pdf pages 24-30:\n%s", got)
	}
	if got := e.mustOK(e.call("Read", map[string]any{"file_path": big, "pages": "7"})); !strings.HasPrefix(got, "--- Page 7/25 ---\n") || !strings.Contains(got, "page 7 of 25") {
		t.Errorf("big.pdf page 7:\n%s", got)
	}
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"file_path": big}, `Error: PDF has 25 pages, more than 10. You must provide the pages parameter (e.g. "1-5") to read specific pages, max 20 pages per request.`},
		{map[string]any{"file_path": big, "pages": "x-3"}, `Error: Invalid pages 'x-3'. Expected a page number or range like "3" or "1-5".`},
		{map[string]any{"file_path": big, "pages": "0"}, "Error: Invalid pages '0'. PDF has 25 page(s)."},
		{map[string]any{"file_path": big, "pages": "5-2"}, "Error: Invalid pages '5-2'. PDF has 25 page(s)."},
		{map[string]any{"file_path": big, "pages": "26"}, "Error: Invalid pages '26'. PDF has 25 page(s)."},
		{map[string]any{"file_path": big, "pages": "1-21"}, "Error: Requested 21 pages, at most 20 pages can be read per request."},
		{map[string]any{"file_path": locked}, "Error reading PDF: the file is encrypted (password-protected)"},
		{map[string]any{"file_path": broken}, "Error reading PDF: the file is damaged or not a PDF"},
		{map[string]any{"file_path": filepath.Join(e.root, "none.pdf")}, "Error: File does not exist:"},
	} {
		if r := e.call("Read", c.in); r.Status != "error" || !strings.HasPrefix(r.Text(), c.want) {
			t.Errorf("Read %v: %s %q, want an error starting %q", c.in, r.Status, r.Text(), c.want)
		}
	}
}

// Without poppler-utils, a PDF read says what is missing.
func TestReadPDFWithoutPoppler(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	p := e.path("a.pdf")
	makePDF(t, p, 1, "", false)
	t.Setenv("PATH", t.TempDir())
	if r := e.call("Read", map[string]any{"file_path": p}); r.Status != "error" || !strings.Contains(r.Text(), "reading PDFs needs pdfinfo (from poppler-utils), which is not installed here") {
		t.Errorf("%s %q", r.Status, r.Text())
	}
}
