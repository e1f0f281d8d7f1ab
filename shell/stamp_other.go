//go:build !linux

package shell

import "os"

// fileStamp is "" off Linux: git config files are read every time.
func fileStamp(os.FileInfo) string { return "" }
