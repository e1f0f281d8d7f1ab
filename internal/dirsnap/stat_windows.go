package dirsnap

import "os"

type stamp struct{ dev, ino uint64 }

// statDir checks that dir is a directory; its identity is unknown here.
func statDir(dir string) (stamp, bool, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return stamp{}, false, err
	}
	if !fi.IsDir() {
		return stamp{}, false, &os.PathError{Op: "open", Path: dir, Err: errNotDir}
	}
	return stamp{}, false, nil
}
