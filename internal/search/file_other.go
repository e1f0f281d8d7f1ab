//go:build !unix

package search

import "os"

func openFile(path string) (*os.File, error) { return os.Open(path) }
