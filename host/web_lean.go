//go:build lean

package host

import "github.com/toolscope/toolscope/tool"

// webTools: the lean build has none (see web.go).
func webTools() []tool.Tool { return nil }
