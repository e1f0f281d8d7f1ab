package shell

// fileInfo is what statFile learns of a path.
type fileInfo struct {
	regular, dir bool
	size         int64
	// stamp is the file's version (see linkStamp); stamped only when it
	// has not changed in the last second (a change in the same clock tick
	// could leave the times and the size as they were): a verdict is
	// remembered only then. Off Linux nothing is stamped.
	stamp   linkStamp
	stamped bool
}
