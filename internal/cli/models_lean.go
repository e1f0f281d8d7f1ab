//go:build lean

package cli

import (
	"github.com/toolscope/toolscope/agent"
)

// newModel, in the lean build (go build -tags lean), has no model to
// offer: the providers' SDKs are left out, for a binary a third the size
// that starts faster, for check, call, serve and hooks.
func newModel(spec string) (agent.Model, error) {
	return nil, usageErr("this toolscope was built with -tags lean, without the model providers: run and chat need the full build (go build ./cmd/toolscope)")
}
