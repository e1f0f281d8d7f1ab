package builtin

import (
	"encoding/hex"
	"encoding/json"
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
func (p pathRules) MatchRule(rule permission.Rule, input json.RawMessage) bool {
	return p.c.matchPath(rule, inputPath(input))
}

// Suggestions implements [tool.Suggester]: the file's directory.
func (p pathRules) Suggestions(input json.RawMessage) []permission.Rule {
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
func record(path string, fp textfile.Fingerprint, whole bool) tool.FileRecord {
	r := tool.FileRecord{Path: path, Size: fp.Size, ModTime: fp.ModTime, Whole: whole}
	if fp.Hashed {
		r.SHA256 = hex.EncodeToString(fp.SHA256[:])
	}
	return r
}

// fresh checks, before Write or Edit change the existing file at path, that
// the agent read it and that it did not change since. It returns the file's
// current content.
func fresh(path string, st *tool.State, notRead string) ([]byte, *tool.Chunk) {
	canon := canonical(path)
	rec, ok := tool.FileRecord{}, false
	if st != nil {
		rec, ok = st.LastRead(canon)
	}
	if !ok {
		return nil, tool.Errorf("%s", notRead)
	}
	fp, data, err := textfile.FingerprintFile(canon, hashLimit)
	if err != nil {
		return nil, tool.Errorf("Error reading file: %v", err)
	}
	stale := fp.Size != rec.Size || !fp.ModTime.Equal(rec.ModTime)
	if !stale && rec.SHA256 != "" && fp.Hashed {
		stale = hex.EncodeToString(fp.SHA256[:]) != rec.SHA256
	}
	if stale {
		st.ForgetRead(canon)
		return nil, tool.Errorf("Error: File %s has been modified since it was last read (by the user or another program). %s", path, readStateExplains)
	}
	if data == nil { // too large to hash: read it whole now
		if data, err = os.ReadFile(canon); err != nil {
			return nil, tool.Errorf("Error reading file: %v", err)
		}
	}
	return data, nil
}

// commit writes data to path atomically and records the new content in the
// state, so a following Edit needs no new Read.
func commit(path string, data []byte, st *tool.State) error {
	if err := textfile.WriteAtomic(path, data, &textfile.WriteOptions{CreateDirs: true}); err != nil {
		return err
	}
	if st != nil {
		canon := canonical(path)
		if fp, _, err := textfile.FingerprintFile(canon, hashLimit); err == nil {
			st.RecordRead(record(canon, fp, true))
		}
	}
	return nil
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
