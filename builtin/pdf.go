package builtin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolscope/toolscope/internal/proc"
	"github.com/toolscope/toolscope/tool"
)

// The limits of a PDF read, as AgentScope's Read has them.
const (
	pdfPagesWithoutRange = 10 // a longer PDF needs pages
	pdfMaxPages          = 20 // pages per call
	pdfTimeout           = 60 * time.Second
)

var pagesRange = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$`) })

// readPDF returns the text of a PDF's pages, a page at a time, with
// poppler's pdfinfo and pdftotext (package poppler-utils).
func readPDF(ctx context.Context, p, pages string) *tool.Chunk {
	ctx, cancel := context.WithTimeout(ctx, pdfTimeout)
	defer cancel()
	info, err := poppler(ctx, "pdfinfo", p)
	if err != nil {
		return pdfError(err)
	}
	m := regexp.MustCompile(`(?m)^Pages:\s+(\d+)`).FindStringSubmatch(info)
	if m == nil {
		return tool.Errorf("Error reading PDF: pdfinfo did not say how many pages %s has.", p)
	}
	total, _ := strconv.Atoi(m[1])
	first, last := 1, total
	if strings.TrimSpace(pages) == "" {
		if total > pdfPagesWithoutRange {
			return tool.Errorf("Error: PDF has %d pages, more than %d. You must provide the pages parameter (e.g. \"1-5\") to read specific pages, max %d pages per request.", total, pdfPagesWithoutRange, pdfMaxPages)
		}
	} else {
		r := pagesRange().FindStringSubmatch(pages)
		if r == nil {
			return tool.Errorf("Error: Invalid pages '%s'. Expected a page number or range like \"3\" or \"1-5\".", pages)
		}
		first, _ = strconv.Atoi(r[1])
		last = first
		if r[2] != "" {
			last, _ = strconv.Atoi(r[2])
		}
		if first < 1 || first > last || first > total {
			return tool.Errorf("Error: Invalid pages '%s'. PDF has %d page(s).", pages, total)
		}
		last = min(last, total)
		if n := last - first + 1; n > pdfMaxPages {
			return tool.Errorf("Error: Requested %d pages, at most %d pages can be read per request.", n, pdfMaxPages)
		}
	}
	if total == 0 {
		return tool.Text("The PDF has no pages.")
	}
	text, err := poppler(ctx, "pdftotext", "-f", strconv.Itoa(first), "-l", strconv.Itoa(last), "-enc", "UTF-8", "-layout", p, "-")
	if err != nil {
		return pdfError(err)
	}
	// pdftotext ends every page with a form feed.
	parts := strings.Split(strings.TrimSuffix(text, "\f"), "\f")
	var out []string
	for i, t := range parts {
		if first+i > last {
			break
		}
		out = append(out, fmt.Sprintf("--- Page %d/%d ---\n%s", first+i, total, strings.TrimRight(t, "\n")))
	}
	return &tool.Chunk{Content: []tool.Block{tool.TextBlock(strings.Join(out, "\n\n"))},
		Metadata: map[string]any{"file_path": p, "pages": fmt.Sprintf("%d-%d", first, last), "total_pages": total}}
}

// errPoppler is a poppler program's failure, with what it said.
type errPoppler struct {
	prog, stderr string
	missing      bool
}

func (e *errPoppler) Error() string { return e.prog + ": " + e.stderr }

func poppler(ctx context.Context, prog string, args ...string) (string, error) {
	path, err := exec.LookPath(prog)
	if err != nil {
		return "", &errPoppler{prog: prog, missing: true}
	}
	var out, stderr bytes.Buffer
	cmd := proc.Command(ctx, path, args...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", &errPoppler{prog: prog, stderr: "it took longer than " + pdfTimeout.String()}
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", &errPoppler{prog: prog, stderr: msg}
	}
	return out.String(), nil
}

// pdfError is the model's text for a PDF that could not be read.
func pdfError(err error) *tool.Chunk {
	var pe *errPoppler
	if !errors.As(err, &pe) {
		return tool.Errorf("Error reading PDF: %v", err)
	}
	low := strings.ToLower(pe.stderr)
	switch {
	case pe.missing:
		return tool.Errorf("Error reading PDF: reading PDFs needs %s (from poppler-utils), which is not installed here. Try Bash with another PDF tool, or ask the user to install poppler-utils.", pe.prog)
	case strings.Contains(low, "password") || strings.Contains(low, "encrypt"):
		return tool.Errorf("Error reading PDF: the file is encrypted (password-protected), so its text cannot be read. Ask the user for an unprotected copy.")
	}
	return tool.Errorf("Error reading PDF: the file is damaged or not a PDF (%s said: %s).", pe.prog, firstLine(pe.stderr))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
