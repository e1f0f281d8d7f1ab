//go:build !linux

package shell

import "os"

// fileStamp is "" off Linux: git config files are read every time.
func fileStamp(os.FileInfo) string { return "" }

type linkStamp struct{}

// regularStamp is never ok here: HEAD files are read every time.
func regularStamp(string) (linkStamp, bool) { return linkStamp{}, false }
