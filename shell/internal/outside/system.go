package outside

import (
	"io/fs"
	"os"
)

// Readlink implements [Access].
func (System) Readlink(path string) (string, error) { return os.Readlink(path) }

// ReadDir implements [Access].
func (System) ReadDir(path string) ([]fs.DirEntry, error) { return os.ReadDir(path) }
