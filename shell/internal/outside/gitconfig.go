package outside

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/toolscope/toolscope/internal/proc"
)

var gitPath struct {
	once sync.Once
	path string
	err  error
}

// gitConfigList lists the entries of the configuration file path as git
// reads them: a file in the plain subset (see parsePlainConfig) here,
// any other by git config --file PATH --no-includes --list -z, git's own
// parser on that file alone, without following includes, without any
// repository or user configuration.
func gitConfigList(path string) ([]ConfigEntry, error) {
	if b, err := readRegular(path, maxConfig, false); err == nil {
		if entries, ok := parsePlainConfig(b); ok {
			return entries, nil
		}
	}
	return gitConfigListByGit(path)
}

// maxConfig bounds a configuration file read here (the caller refuses
// larger ones).
const maxConfig = 1 << 20

// gitConfigListByGit runs git config --list on path.
func gitConfigListByGit(path string) ([]ConfigEntry, error) {
	gitPath.once.Do(func() { gitPath.path, gitPath.err = exec.LookPath("git") })
	if gitPath.err != nil {
		return nil, fmt.Errorf("git is not installed to read it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := proc.Command(ctx, gitPath.path, "config", "--file", path, "--no-includes", "--list", "-z")
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_DIR=/nonexistent", "GIT_CEILING_DIRECTORIES=/"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(firstLine(msg))
	}
	var entries []ConfigEntry
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		k, v, _ := bytes.Cut(rec, []byte{'\n'})
		entries = append(entries, ConfigEntry{string(k), string(v)})
	}
	return entries, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
