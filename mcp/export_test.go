package mcp

import "time"

// SetDefaultCallTimeout shortens the default call timeout for a test (so
// that a test of the default does not last ten minutes) and returns the
// function that restores it.
func SetDefaultCallTimeout(d time.Duration) (restore func()) {
	old := defaultCallTimeout
	defaultCallTimeout = d
	return func() { defaultCallTimeout = old }
}

// AppendJSONString is appendJSONString, for FuzzAppendJSONString.
var AppendJSONString = appendJSONString
