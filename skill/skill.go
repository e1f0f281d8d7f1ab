// Package skill loads Agent Skills: directories holding a SKILL.md, in the
// format Claude Code uses, that teach an agent a procedure without new
// code.
//
// A SKILL.md starts with YAML frontmatter that names and describes the
// skill; the rest is the instructions:
//
//	---
//	name: release-notes
//	description: Writes release notes from the git log. Use when the user asks for a changelog.
//	---
//	# Release notes
//	1. Run `git log --oneline v1.2.0..HEAD` ...
//
// A [Loader] lists skills. [Local] reads the skills of a directory on disk
// (each subdirectory with a SKILL.md is a skill); [FS] reads them from any
// fs.FS, such as an embed.FS compiled into the program. Give loaders to a
// Toolkit (tool.ToolkitOptions.Skills, or a tool.Group's Skills): the
// model is told of the skills in its system prompt
// (tool.Toolkit.SkillPrompt) and reads one with the Skill tool.
//
// A SKILL.md that cannot be used (no frontmatter, bad YAML, a missing or
// invalid name or description) is skipped with a warning naming the file
// and the problem; it never stops the others from loading.
package skill

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/toolscope/toolscope/tool"
)

// Skill is a loaded skill (the same type as tool.Skill).
type Skill = tool.Skill

// Loader lists skills; every Loader is a tool.SkillSource.
type Loader interface {
	Skills(ctx context.Context) ([]Skill, error)
}

// Options configures [Local] and [FS]; nil means the defaults.
type Options struct {
	// Recursive finds skills at any depth, not only in the directory's
	// immediate subdirectories. A skill's own subdirectories are not
	// searched.
	Recursive bool
	// Logger gets the warnings about skipped skills; nil means
	// slog.Default().
	Logger *slog.Logger
}

// The limits of the Agent Skills format.
const (
	MaxNameLength        = 64
	MaxDescriptionLength = 1024
)

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9-]+$`) })

// xmlTag finds what could open or close an XML tag: a skill's description
// is put between tags in the system prompt, where one could end the block.
var xmlTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<\s*/?\s*[A-Za-z]`) })

// Parse reads a SKILL.md. dir is the skill's directory as the model should
// see it. The error says what is wrong, for the warning that skips it.
func Parse(data []byte, dir string) (Skill, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return Skill{}, errors.New("no frontmatter: the file must start with a line \"---\", then YAML with name and description, then \"---\"")
	}
	rest := text[len("---\n"):]
	end := strings.Index(rest, "\n---\n")
	var front, body string
	switch {
	case end >= 0:
		front, body = rest[:end], rest[end+len("\n---\n"):]
	case strings.HasSuffix(rest, "\n---"):
		front = strings.TrimSuffix(rest, "\n---")
	case strings.HasPrefix(rest, "---\n") || rest == "---":
		front, body = "", strings.TrimPrefix(strings.TrimPrefix(rest, "---"), "\n")
	default:
		return Skill{}, errors.New("the frontmatter is not closed: add a line \"---\" after it")
	}
	var meta map[string]any
	if err := yaml.Unmarshal([]byte(front), &meta); err != nil {
		return Skill{}, fmt.Errorf("the frontmatter is not valid YAML: %v", err)
	}
	str := func(key string) (string, error) {
		v, ok := meta[key]
		if !ok || v == nil {
			return "", fmt.Errorf("the frontmatter has no %q", key)
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%q must be a string, not %T", key, v)
		}
		return strings.TrimSpace(s), nil
	}
	name, err := str("name")
	if err != nil {
		return Skill{}, err
	}
	desc, err := str("description")
	if err != nil {
		return Skill{}, err
	}
	switch {
	case name == "" || len(name) > MaxNameLength || !validName().MatchString(name):
		return Skill{}, fmt.Errorf("invalid name %q: use 1 to %d lower-case letters, digits and '-'", name, MaxNameLength)
	case desc == "":
		return Skill{}, errors.New("the description is empty: say what the skill does and when to use it")
	case len([]rune(desc)) > MaxDescriptionLength:
		return Skill{}, fmt.Errorf("the description has %d characters, more than %d", len([]rune(desc)), MaxDescriptionLength)
	case xmlTag().MatchString(desc):
		return Skill{}, errors.New("the description contains an XML tag, which is not allowed (it would break the skill list in the system prompt)")
	}
	delete(meta, "name")
	delete(meta, "description")
	if len(meta) == 0 {
		meta = nil
	}
	return Skill{Name: name, Description: desc, Dir: dir, Body: strings.TrimLeft(body, "\n"), Metadata: meta}, nil
}

// FS is a loader of the skills in root of fsys: each directory with a
// SKILL.md (the immediate subdirectories of root, or any below it with
// Options.Recursive). display is how the model sees root: the directory on
// disk, or a name for an embedded tree ("" means root itself). Skills are
// read again only when a SKILL.md's modification time changed (never, in
// an embed.FS).
func FS(fsys fs.FS, root, display string, opts *Options) *DirLoader {
	l := &DirLoader{fsys: fsys, root: path.Clean(root), display: display, cache: map[string]cached{}}
	if opts != nil {
		l.opts = *opts
	}
	if l.display == "" {
		l.display = l.root
	}
	if l.opts.Logger == nil {
		l.opts.Logger = slog.Default()
	}
	return l
}

// Local is a loader of the skills in dir, a directory on disk; a leading
// "~" is the home directory. The skills' directories are shown to the
// model as absolute paths.
func Local(dir string, opts *Options) *DirLoader {
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, dir[1:])
		}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return FS(os.DirFS(dir), ".", dir, opts)
}

// DirLoader loads the skills of a directory tree; see [FS] and [Local].
type DirLoader struct {
	fsys    fs.FS
	root    string
	display string
	opts    Options

	mu    sync.Mutex
	cache map[string]cached // SKILL.md path -> what it held at a modification time
}

type cached struct {
	mtime time.Time
	skill Skill
	err   error
}

// Skills implements [Loader]: the skills in name order of their
// directories. A directory that cannot be listed is an error; a SKILL.md
// that cannot be used is skipped with a warning. When two skills have one
// name the later (in directory order) wins, with a warning.
func (l *DirLoader) Skills(ctx context.Context) ([]Skill, error) {
	files, err := l.find()
	if err != nil {
		return nil, fmt.Errorf("skill: listing %s: %w", l.display, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Skill
	seen := map[string]int{}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := l.load(f)
		if err != nil {
			l.opts.Logger.Warn("skill: skipping a skill", "file", l.shown(f), "problem", err.Error())
			continue
		}
		if i, dup := seen[s.Name]; dup {
			l.opts.Logger.Warn("skill: two skills have one name; the later one is used", "skill", s.Name, "file", l.shown(f), "replaced", out[i].Dir)
			out[i] = s
			continue
		}
		seen[s.Name] = len(out)
		out = append(out, s)
	}
	return out, nil
}

// find returns the SKILL.md files below root, sorted.
func (l *DirLoader) find() ([]string, error) {
	var files []string
	if !l.opts.Recursive {
		ents, err := fs.ReadDir(l.fsys, l.root)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if !isDir(l.fsys, path.Join(l.root, e.Name()), e) {
				continue
			}
			f := path.Join(l.root, e.Name(), "SKILL.md")
			if fi, err := fs.Stat(l.fsys, f); err == nil && fi.Mode().IsRegular() {
				files = append(files, f)
			}
		}
		return files, nil
	}
	err := fs.WalkDir(l.fsys, l.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == l.root {
				return err
			}
			return fs.SkipDir // an unreadable subdirectory: skip it
		}
		if !d.IsDir() || p == l.root {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" {
			return fs.SkipDir
		}
		f := path.Join(p, "SKILL.md")
		if fi, err := fs.Stat(l.fsys, f); err == nil && fi.Mode().IsRegular() {
			files = append(files, f)
			return fs.SkipDir // a skill's own directories are its resources
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// isDir reports whether the entry is a directory, following a link.
func isDir(fsys fs.FS, p string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink != 0 {
		fi, err := fs.Stat(fsys, p)
		return err == nil && fi.IsDir()
	}
	return false
}

// maxSkillFile bounds a SKILL.md.
const maxSkillFile = 1 << 20

// load parses the SKILL.md at f, through the cache. Must hold l.mu.
func (l *DirLoader) load(f string) (Skill, error) {
	fi, err := fs.Stat(l.fsys, f)
	if err != nil {
		return Skill{}, err
	}
	if c, ok := l.cache[f]; ok && c.mtime.Equal(fi.ModTime()) {
		return c.skill, c.err
	}
	var s Skill
	if fi.Size() > maxSkillFile {
		err = fmt.Errorf("the file is larger than %d bytes", maxSkillFile)
	} else {
		var data []byte
		if data, err = fs.ReadFile(l.fsys, f); err == nil {
			s, err = Parse(data, l.shown(path.Dir(f)))
		}
	}
	l.cache[f] = cached{mtime: fi.ModTime(), skill: s, err: err}
	return s, err
}

// shown is how the model sees p, a path of the tree.
func (l *DirLoader) shown(p string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(p, l.root), "/")
	if l.root == "." {
		rel = p
	}
	if filepath.IsAbs(l.display) {
		return filepath.Join(l.display, filepath.FromSlash(rel))
	}
	return path.Join(l.display, rel)
}
