package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/internal/textfile"
)

// LoadRun reads a run file (a paused or finished conversation, as
// [SaveRun] wrote it); a missing file is a new run. A file toolscope did
// not write (its seal does not verify) that grants permissions or holds
// calls waiting for approval is refused with an [*Error].
func LoadRun(path string) (*agent.Run, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return agent.NewRun(nil), nil
	}
	if err != nil {
		return nil, errorf("--state %s: %v", path, pathErr(err))
	}
	what, fresh := "run file "+path, "start the run again with a new --state file"
	b, sealed, err := openSealed(b, what, fresh)
	if err != nil {
		return nil, err
	}
	var r agent.Run
	if err := json.Unmarshal(b, &r); err != nil || r.State == nil {
		return nil, fmt.Errorf("--state %s is not a run file of toolscope run (%v); it was left untouched", path, err)
	}
	if !sealed {
		if err := unsealedGrants(b, what, fresh); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

// SaveRun writes r to path, sealed, atomically and private to the user
// (0600).
func SaveRun(path string, r *agent.Run) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := writeSealed(path, b, &textfile.WriteOptions{Perm: 0o600}); err != nil {
		return fmt.Errorf("saving the run to %s: %w", path, pathErr(err))
	}
	return nil
}
