package builtin

import (
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/toolscope/toolscope/tool"
)

// The built-in tools' parts of an agent's [tool.State], each a slot this
// package owns, with the rules two runs' changes of it merge by (see
// tool.MergeStateJSON): the files read, by path; the task list, by id and
// field by field; the shell's working directory, as a whole.
var (
	readSlot  = tool.NewMergingSlot[[]FileRecord]("builtin.read_files", mergeByKey("path", false))
	taskSlot  = tool.NewRecordSlot[Task]("builtin.tasks", "id", true)
	shellSlot = tool.NewSlot[string]("builtin.cwd")
)

func mergeByKey(key string, byField bool) tool.SlotMerge {
	return func(base, ours, theirs json.RawMessage) (json.RawMessage, bool) {
		return tool.MergeRecords(base, ours, theirs, key, byField)
	}
}

// MaxReadFiles bounds the read cache of a state: past it, the least
// recently used record is dropped (a later Edit of that file then needs a
// new Read).
const MaxReadFiles = 100

// FileRecord is what a tool saw of a file when it last read or wrote it.
// Write and Edit compare it with the disk to refuse changing a file that
// changed behind the agent's back.
type FileRecord struct {
	// Path is canonical: absolute, symbolic links resolved.
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	// SHA256 is the hex digest of the whole content, "" if it was not hashed
	// (a file too large to hash cheaply).
	SHA256 string `json:"sha256,omitempty"`
	// Whole reports that the agent saw the entire file, not a slice of it.
	Whole bool `json:"whole,omitempty"`
}

// Task is one item of an agent's task list.
type Task struct {
	ID          string         `json:"id"`
	Subject     string         `json:"subject"`
	Description string         `json:"description"`
	Status      string         `json:"status"`
	Owner       string         `json:"owner,omitempty"`
	Blocks      []string       `json:"blocks,omitempty"`
	BlockedBy   []string       `json:"blocked_by,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	CreatedAt   time.Time      `json:"created_at"`
}

// Data is the built-in tools' data in one agent state: DataOf(st).Tasks(),
// DataOf(st).Cwd(). Its methods are safe for concurrent use. A Data of a
// nil state holds nothing and keeps nothing.
type Data struct{ st *tool.State }

// DataOf returns the built-in tools' data in st.
func DataOf(st *tool.State) Data { return Data{st} }

// LastRead returns the record of the file at canonical path, and
// marks it recently used.
func (d Data) LastRead(path string) (FileRecord, bool) {
	if d.st == nil {
		return FileRecord{}, false
	}
	var rec FileRecord
	found := false
	_ = readSlot.Update(d.st, func(files []FileRecord) []FileRecord {
		i := slices.IndexFunc(files, func(r FileRecord) bool { return r.Path == path })
		if i < 0 {
			return files
		}
		rec, found = files[i], true
		return append(slices.Delete(slices.Clone(files), i, i+1), rec)
	})
	return rec, found
}

// RecordRead stores rec, replacing an older record of the same path,
// and drops the least recently used records beyond [MaxReadFiles].
func (d Data) RecordRead(rec FileRecord) {
	if d.st == nil {
		return
	}
	_ = readSlot.Update(d.st, func(files []FileRecord) []FileRecord {
		files = slices.DeleteFunc(slices.Clone(files), func(r FileRecord) bool { return r.Path == rec.Path })
		if n := len(files) + 1 - MaxReadFiles; n > 0 {
			files = slices.Delete(files, 0, n)
		}
		return append(files, rec)
	})
}

// ForgetRead drops the record of path.
func (d Data) ForgetRead(path string) {
	if d.st == nil {
		return
	}
	_ = readSlot.Update(d.st, func(files []FileRecord) []FileRecord {
		return slices.DeleteFunc(slices.Clone(files), func(r FileRecord) bool { return r.Path == path })
	})
}

// Tasks returns a copy of the task list.
func (d Data) Tasks() []Task {
	tasks, _ := taskSlot.All(d.st)
	return tasks
}

// Task returns the task id, and false when the list has none. Only that
// task is read: a list of 10,000 read from a state file is not decoded.
func (d Data) Task(id string) (Task, bool) {
	t, ok, err := taskSlot.Record(d.st, id)
	return t, ok && err == nil
}

// editTasks runs fn on the task list record by record (see
// tool.RecordSlot.Edit): the tasks it does not read are not decoded, the
// ones it does not put are saved as they were read.
func (d Data) editTasks(fn func(r *tool.Records[Task]) error) error {
	if d.st == nil {
		return errors.New("no agent state")
	}
	return taskSlot.Edit(d.st, fn)
}

// UpdateTasks replaces the task list with what fn returns,
// atomically; fn gets a copy of the list.
func (d Data) UpdateTasks(fn func(tasks []Task) []Task) error {
	if d.st == nil {
		return errors.New("no agent state")
	}
	return taskSlot.Update(d.st, func(tasks []Task) []Task { return fn(slices.Clone(tasks)) })
}

// Cwd returns the shell's working directory ("" until Bash sets it).
func (d Data) Cwd() string {
	dir, _ := shellSlot.Get(d.st)
	return dir
}

// SetCwd records the shell's working directory ("" forgets it:
// the next command runs in the root).
func (d Data) SetCwd(dir string) {
	switch {
	case d.st == nil:
	case dir == "":
		shellSlot.Delete(d.st)
	default:
		shellSlot.Set(d.st, dir)
	}
}
