package builtin

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"iter"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolscope/toolscope/internal/textfile"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// Helpers shared by Read, Write and Edit.

// pathRules gives a file tool its rule matching and suggestions, on the
// file_path of the input.
type pathRules struct {
	c    *config
	tool string
}

// MatchRule implements [tool.RuleMatcher] with path globs ("src/**", "/etc/*",
// "~/notes/*"); relative patterns are relative to the project root.
func (p pathRules) MatchRule(ctx context.Context, rule permission.Rule, input json.RawMessage) bool {
	return p.c.matchPath(rule, inputPath(input))
}

// Suggestions implements [tool.Suggester]: the file's directory.
func (p pathRules) Suggestions(ctx context.Context, input json.RawMessage) []permission.Rule {
	name := p.tool
	if name == "Write" {
		name = "Edit" // Edit rules govern Write
	}
	return p.c.suggestDir(name, inputPath(input))
}

// single is the Call of a tool that decodes its input and answers with one
// chunk.
func single[In any](call *tool.Call, body func(In) *tool.Chunk) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		var in In
		if err := tool.DecodeInput(call.Input, &in); err != nil {
			yield(tool.Errorf("%v", err), nil)
			return
		}
		yield(body(in), nil)
	}
}

type pathInput struct {
	FilePath string `json:"file_path"`
}

func inputPath(input json.RawMessage) string {
	var in pathInput
	_ = json.Unmarshal(input, &in)
	return in.FilePath
}

// absError is the error for a relative path: it names the absolute path the
// model probably meant.
func (c *config) absError(p string) *tool.Chunk {
	return tool.Errorf("Error: file_path must be an absolute path, got: %s (relative to the project root that would be %s)", p, filepath.Join(c.root, p))
}

// record turns a fingerprint into the read state's record.
func record(path string, fp textfile.Fingerprint, whole bool) FileRecord {
	r := FileRecord{Path: path, Size: fp.Size, ModTime: fp.ModTime, Whole: whole}
	if fp.Hashed {
		r.SHA256 = hex.EncodeToString(fp.SHA256[:])
	}
	return r
}

// seen is what the state says the agent last saw of a file, taken when a
// Write or Edit call starts: a change made after that moment, by anyone
// (another goroutine's Edit included), makes the call stale.
type seen struct {
	canon string // the file's canonical path
	rec   FileRecord
	ok    bool
}

func lastSeen(path string, st *tool.State) seen {
	s := seen{canon: canonical(path)}
	if st != nil {
		s.rec, s.ok = DataOf(st).LastRead(s.canon)
	}
	return s
}

// lockFor locks the directory of the file s names, so that its check and
// its replacement are one step for every toolscope writer (see
// textfile.Lock). It returns nil, and no error, when the directory does not
// exist yet (WriteAtomic creates it and then locks it) or is no directory.
func lockFor(s seen) (*textfile.DirLock, *tool.Chunk) {
	dir := filepath.Dir(s.canon)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, nil // the write creates it, or fails with its own error
	}
	l, err := textfile.Lock(dir)
	if err != nil {
		return nil, tool.Errorf("Error: cannot lock %s for writing: %v. Nothing was changed; try again.", dir, err)
	}
	return l, nil
}

// staleMsg is the refusal of a change to a file that changed since the
// agent read it.
func staleMsg(path string) *tool.Chunk {
	return tool.Errorf("Error: File %s has been modified since it was last read (by the user or another program). %s", path, readStateExplains)
}

// fresh checks, under the directory's lock, before Write or Edit change
// the existing file at path, that the agent read it and that it did not
// change since. It returns the file's fingerprint and, when the file is at
// most keep bytes, its current content (nil for a larger file, which is
// never read whole: its staleness check is its size and modification
// time, as for every file over hashLimit).
func fresh(path string, s seen, st *tool.State, notRead string, keep int64) ([]byte, textfile.Fingerprint, *tool.Chunk) {
	if !s.ok {
		return nil, textfile.Fingerprint{}, tool.Errorf("%s", notRead)
	}
	fp, data, err := textfile.FingerprintFile(s.canon, hashLimit)
	if err != nil {
		return nil, fp, tool.Errorf("Error reading file: %v", err)
	}
	stale := fp.Size != s.rec.Size || !fp.ModTime.Equal(s.rec.ModTime)
	if !stale && s.rec.SHA256 != "" && fp.Hashed {
		stale = hex.EncodeToString(fp.SHA256[:]) != s.rec.SHA256
	}
	if stale {
		forget(st, s)
		return nil, fp, staleMsg(path)
	}
	switch {
	case fp.Size > keep:
		data = nil // not wanted: let it go now
	case data == nil: // too large to hash, small enough to keep: read it whole now
		if data, err = os.ReadFile(s.canon); err != nil {
			return nil, fp, tool.Errorf("Error reading file: %v", err)
		}
	}
	return data, fp, nil
}

// forget drops the state's record of a file found changed, unless a newer
// record replaced the one the call started from (another call's write).
func forget(st *tool.State, s seen) {
	if st == nil {
		return
	}
	if now, ok := DataOf(st).LastRead(s.canon); ok && now == s.rec {
		DataOf(st).ForgetRead(s.canon)
	}
}

// errChanged and errCreated abandon a write whose file changed, or came to
// exist, between the check and the rename.
var (
	errChanged = errors.New("the file changed while the new content was being written")
	errCreated = errors.New("the file was created by another writer meanwhile")
)

// commit writes data to path atomically and records the new content in the
// state, so a following Edit needs no new Read. lock is the directory lock
// taken before the check (nil if the directory did not exist). The file must
// still be as the check saw it (was, for an existing file; absent when
// was is nil) at the instant of the rename, or nothing is written.
func commit(path string, data []byte, st *tool.State, lock *textfile.DirLock, s seen, was *textfile.Fingerprint) error {
	verify := func() error {
		fi, err := os.Stat(s.canon)
		switch {
		case was == nil && err == nil:
			return errCreated
		case was == nil:
			return nil
		case err != nil || fi.Size() != was.Size || !fi.ModTime().Equal(was.ModTime):
			return errChanged
		}
		return nil
	}
	if err := textfile.WriteAtomic(path, data, &textfile.WriteOptions{CreateDirs: true, Locked: lock, Verify: verify}); err != nil {
		return err
	}
	ownWrites.add(s.canon)
	if st != nil {
		if fp, _, err := textfile.FingerprintFile(s.canon, hashLimit); err == nil {
			DataOf(st).RecordRead(record(s.canon, fp, true))
		}
	}
	return nil
}

// commitError is the model's message for a failed commit.
func commitError(path string, err error, st *tool.State, s seen) *tool.Chunk {
	switch {
	case errors.Is(err, errChanged):
		forget(st, s)
		return staleMsg(path)
	case errors.Is(err, errCreated):
		return tool.Errorf("Error: %s was created by another writer while this call ran; it was not overwritten. Read it, then write again.", path)
	}
	return tool.Errorf("Error writing file: %v", err)
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
