package testproc

import (
	"os/exec"
	"testing"
)

func TestPeakRSS(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	if got := PeakRSS(cmd.ProcessState, []byte("RESULT ok\n\npeak-rss-kib 1234\n")); got != 1234 {
		t.Errorf("the child's report: %d, want 1234", got)
	}
	if got := PeakRSS(cmd.ProcessState, []byte("no report")); got <= 0 {
		t.Errorf("without a report: %d, want ru_maxrss", got)
	}
}
