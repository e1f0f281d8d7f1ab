package subagent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolscope/toolscope/permission"
)

// Definition is a kind of sub-agent the model may start: its name, when to
// use it, its system prompt, the tools it may use and how it is judged.
//
// Definitions come from Go or from Markdown files with YAML frontmatter,
// as Claude Code keeps them in .claude/agents/ (see [Parse]).
type Definition struct {
	// Name is what the model asks for (subagent_type): lower-case
	// letters, digits and '-'.
	Name string
	// Description tells the model when to use this sub-agent.
	Description string
	// Prompt is the sub-agent's system prompt.
	Prompt string
	// Tools are the names of the parent's tools the sub-agent may use;
	// nil means all of them (except the sub-agent tool itself: a
	// sub-agent starts no sub-agent).
	Tools []string
	// DisallowedTools are taken away from Tools (or from all).
	DisallowedTools []string
	// Model names the model ("" or "inherit": the parent's).
	Model string
	// Mode is the permission mode the sub-agent asks for; it gets it only
	// where it is no wider than its parent's (see [NarrowMode]). "" means
	// the parent's.
	Mode permission.Mode
	// MaxTurns bounds the sub-agent's model steps; 0 means the tool's
	// default.
	MaxTurns int
	// Source is where the definition comes from (a file), for messages.
	Source string
}

// GeneralPurpose is the sub-agent the model gets when it names none:
// every tool of its parent, in its parent's mode.
var GeneralPurpose = Definition{
	Name:        "general-purpose",
	Description: "General-purpose agent for researching complex questions, searching for code and doing multi-step tasks. Use it when a search or a piece of work would take many steps and only its outcome matters to you.",
	Prompt: "You are an agent working for another agent on one task it gave you. Do the task with the tools you have, completely, " +
		"then answer with a concise report of what you found or did: the other agent reads only your final answer, not your steps. " +
		"Name files by their paths. Do not ask questions: nobody can answer them; make a reasonable choice and say so.",
	Source: "built-in",
}

// Explore is a read-only sub-agent for searching a codebase fast.
var Explore = Definition{
	Name:        "Explore",
	Description: "Fast read-only agent for exploring a codebase: finding files by pattern, searching code for keywords, answering questions about how the code works. It changes nothing. Say how thorough it should be.",
	Prompt: "You are a read-only search agent working for another agent. Find what it asks for with the tools you have, without changing anything, " +
		"and answer with a concise report: the paths and lines that matter, and what you concluded. The other agent reads only your final answer.",
	Tools:  []string{"Read", "Grep", "Glob", "Bash"},
	Mode:   permission.Explore,
	Source: "built-in",
}

// validName reports a sub-agent's name as Claude Code's: 1 to 64
// lower-case letters, digits and '-', not starting with '-' (the built-in
// Explore keeps its capital). A function, not a regular expression: this
// package is initialised at every start of the toolscope command.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// claudeModes are Claude Code's names of permission modes, as its agent
// files write them.
var claudeModes = map[string]permission.Mode{
	"default": permission.Default, "acceptEdits": permission.AcceptEdits, "bypassPermissions": permission.Bypass,
	"plan": permission.Explore, "dontAsk": permission.DontAsk,
}

// Parse reads an agent file: YAML frontmatter (name, description, and
// optionally tools, disallowedTools, model, permissionMode, maxTurns)
// between lines "---", then the system prompt. tools is a list or a
// comma-separated string; permissionMode is Claude Code's name
// (acceptEdits, plan, ...) or toolscope's. Frontmatter keys toolscope does
// not use (color, skills, hooks, ...) are ignored. source names the file in
// errors.
func Parse(source string, data []byte) (Definition, error) {
	d, err := parse(data)
	if err != nil {
		return Definition{}, fmt.Errorf("%s: %w", source, err)
	}
	d.Source = source
	return d, nil
}

func parse(data []byte) (Definition, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return Definition{}, errors.New("no frontmatter: the file must start with a line \"---\", then YAML with name and description, then \"---\"")
	}
	rest := text[len("---\n"):]
	var front, body string
	if end := strings.Index(rest, "\n---\n"); end >= 0 {
		front, body = rest[:end], rest[end+len("\n---\n"):]
	} else if strings.HasSuffix(rest, "\n---") {
		front = strings.TrimSuffix(rest, "\n---")
	} else {
		return Definition{}, errors.New("the frontmatter is not closed: add a line \"---\" after it")
	}
	var meta map[string]any
	if err := yaml.Unmarshal([]byte(front), &meta); err != nil {
		return Definition{}, fmt.Errorf("the frontmatter is not valid YAML: %v", err)
	}
	str := func(key string, required bool) (string, error) {
		v, ok := meta[key]
		if !ok || v == nil {
			if required {
				return "", fmt.Errorf("the frontmatter has no %q", key)
			}
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%q must be a string, not %T", key, v)
		}
		return strings.TrimSpace(s), nil
	}
	var d Definition
	var err error
	if d.Name, err = str("name", true); err != nil {
		return d, err
	}
	if !validName(d.Name) {
		return d, fmt.Errorf("invalid name %q: use 1 to 64 lower-case letters, digits and '-', starting with a letter or digit", d.Name)
	}
	if d.Description, err = str("description", true); err != nil {
		return d, err
	}
	if d.Description == "" {
		return d, errors.New("the description is empty: say when the agent should be used")
	}
	if d.Tools, err = names(meta, "tools"); err != nil {
		return d, err
	}
	if d.DisallowedTools, err = names(meta, "disallowedTools"); err != nil {
		return d, err
	}
	if d.Model, err = str("model", false); err != nil {
		return d, err
	}
	mode, err := str("permissionMode", false)
	if err != nil {
		return d, err
	}
	if mode != "" {
		if m, ok := claudeModes[mode]; ok {
			d.Mode = m
		} else if m, err := permission.ParseMode(mode); err == nil {
			d.Mode = m
		} else {
			return d, fmt.Errorf("unknown permissionMode %q (want default, acceptEdits, plan, dontAsk or bypassPermissions)", mode)
		}
	}
	if v, ok := meta["maxTurns"]; ok && v != nil {
		n, ok := v.(int)
		if !ok || n < 1 {
			return d, fmt.Errorf("maxTurns must be a whole number of at least 1, not %v", v)
		}
		d.MaxTurns = n
	}
	d.Prompt = strings.TrimSpace(body)
	if d.Prompt == "" {
		return d, errors.New("the system prompt is empty: write it after the frontmatter")
	}
	return d, nil
}

// names reads a list of tool names: a YAML list or one comma-separated
// string. nil when the key is absent.
func names(meta map[string]any, key string) ([]string, error) {
	v, ok := meta[key]
	if !ok || v == nil {
		return nil, nil
	}
	var raw []string
	switch v := v.(type) {
	case string:
		raw = strings.Split(v, ",")
	case []any:
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%q must list tool names, not %v", key, x)
			}
			raw = append(raw, s)
		}
	default:
		return nil, fmt.Errorf("%q must be a list of tool names or a comma-separated string, not %T", key, v)
	}
	out := []string{}
	for _, s := range raw {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Load reads the agent files (*.md) of dirs, the first directory winning
// for a name found in several (give the project's .claude/agents before
// the user's). A directory that does not exist is skipped; a file that
// cannot be read or parsed is left out, its error returned among errs.
// The definitions come back sorted by name.
func Load(dirs ...string) (defs []Definition, errs []error) {
	seen := map[string]bool{}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			data, err := readSmall(path)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			d, err := Parse(path, data)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if seen[d.Name] {
				continue
			}
			seen[d.Name] = true
			defs = append(defs, d)
		}
	}
	slices.SortFunc(defs, func(a, b Definition) int { return strings.Compare(a.Name, b.Name) })
	return defs, errs
}

// maxFile bounds an agent file.
const maxFile = 256 << 10

func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	} else if fi.Size() > maxFile {
		return nil, fmt.Errorf("%s: %d bytes, more than an agent file may have (%d)", path, fi.Size(), maxFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("%s: more than an agent file may have (%d bytes)", path, maxFile)
	}
	return data, nil
}

// NarrowMode is the mode a sub-agent runs in: the mode it asks for where
// that is no wider than its parent's, otherwise the parent's. Under
// bypass any mode is narrower; under accept_edits any but bypass
// (dont_ask is accept_edits with every ask denied); under default and
// under dont_ask only explore, which denies all but reads (dont_ask
// under default would run the edits default asks about).
func NarrowMode(parent, want permission.Mode) permission.Mode {
	if want == "" || want == parent {
		return parent
	}
	switch parent {
	case permission.Bypass:
		return want
	case permission.AcceptEdits:
		if want != permission.Bypass {
			return want
		}
	case permission.Default, permission.DontAsk, "":
		if want == permission.Explore {
			return want
		}
	}
	return parent
}
