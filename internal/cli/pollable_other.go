//go:build !unix

package cli

import "io"

// pollable returns r: the poller is used on Unix only.
func pollable(r io.Reader) (io.Reader, func()) { return r, func() {} }
