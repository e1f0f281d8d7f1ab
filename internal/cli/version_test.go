package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// make dist stamps the binary: toolscope version prints the stamp.
func TestVersionStamp(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "toolscope")
	pkg := "github.com/toolscope/toolscope/internal/cli"
	ld := "-X " + pkg + ".buildVersion=v1.2.3 -X " + pkg + ".buildCommit=0123456789abcdef0123 -X " + pkg + ".buildDate=2026-12-05T10:00:00Z"
	if out, err := exec.Command("go", "build", "-ldflags", ld, "-o", bin, "../../cmd/toolscope").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), "toolscope v1.2.3 (commit 0123456789ab, 2026-12-05T10:00:00Z)"; got != want {
		t.Errorf("version: %q, want %q", got, want)
	}
}
