package testproc

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// peakPrefix starts the line PrintPeakRSS prints.
const peakPrefix = "peak-rss-kib "

// PrintPeakRSS prints this process's peak resident memory as a line
// "peak-rss-kib N" (N in KiB, from VmHWM in /proc/self/status; nothing where
// there is no such file). A test's child process calls it last, for
// PeakRSS in the parent.
func PrintPeakRSS() {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fmt.Printf("\n%s%s\n", peakPrefix, strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return
		}
	}
}

// PeakRSS returns the peak resident memory, in KiB, of the child process
// that ps describes and that printed out: the child's own report (see
// PrintPeakRSS) when out holds one, else the kernel's ru_maxrss. The
// report is what counts: on Linux ru_maxrss also holds the memory of the
// parent that the child shared before its exec (Go starts children with
// vfork), so a test binary that grew to 90 MB in an earlier test makes a
// child of 10 MB read as 90.
func PeakRSS(ps *os.ProcessState, out []byte) int64 {
	for _, line := range bytes.Split(out, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte(peakPrefix)); ok {
			if n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64); err == nil {
				return n
			}
		}
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}
