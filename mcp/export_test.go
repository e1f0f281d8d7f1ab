package mcp

import (
	"time"

	"github.com/toolscope/toolscope/internal/jsonscan"
)

// SetDefaultCallTimeout shortens the default call timeout for a test (so
// that a test of the default does not last ten minutes) and returns the
// function that restores it.
func SetDefaultCallTimeout(d time.Duration) (restore func()) {
	old := defaultCallTimeout
	defaultCallTimeout = d
	return func() { defaultCallTimeout = old }
}

// SetDiscoverTimeout shortens the time a client waits for a server to
// answer the MCP 2026-07-28 discovery, and returns the function that
// restores it.
func SetDiscoverTimeout(d time.Duration) (restore func()) {
	old := discoverTimeout
	discoverTimeout = d
	return func() { discoverTimeout = old }
}

// AppendJSONString is appendJSONString, for FuzzAppendJSONString.
var AppendJSONString = appendJSONString

// ObjectMembers is objectFields, then field of each key, for
// FuzzObjectFields: the members as json.Unmarshal into a
// map[string]json.RawMessage would give them.
func ObjectMembers(b []byte, keys []string) (map[string][]byte, bool) {
	fields, ok := objectFields(b, nil)
	if !ok {
		return nil, false
	}
	out := map[string][]byte{}
	for _, k := range keys {
		if v, ok := field(fields, k); ok {
			out[k] = v
		}
	}
	return out, true
}

// JSONString is jsonscan.Unquote, for FuzzObjectFields.
var JSONString = jsonscan.Unquote

// OpenStateAt is Server.openState at the time now, for the expiry test.
func OpenStateAt(s *Server, st string, now time.Time) error {
	_, err := s.openState(st, now)
	return err
}
