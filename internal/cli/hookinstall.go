package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/internal/jsonscan"
	"github.com/toolscope/toolscope/internal/textfile"
)

// hookMatcher is the tools toolscope judges in Claude Code: the others
// would only pay its start-up for no opinion.
const hookMatcher = "Bash|Read|Write|Edit|MultiEdit|Glob|Grep|NotebookEdit|mcp__.*"

// runHookInstall is `toolscope hook install|uninstall claude-code`: it adds
// (or removes) toolscope's PreToolUse entry in a Claude Code settings file,
// editing the file's text in place, so that its comments, its other hooks
// and its layout stay as they were, after a backup (FILE.toolscope-backup).
func runHookInstall(verb string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hook "+verb, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	user := fs.Bool("user", false, "~/.claude/settings.json (the default)")
	project := fs.Bool("project", false, ".claude/settings.json of --cwd (committed: the team's)")
	local := fs.Bool("local", false, ".claude/settings.local.json of --cwd (yours, not committed)")
	cwd := fs.String("cwd", "", "the project (with --project or --local)")
	command := fs.String("command", "", "the command Claude Code runs (default: this toolscope's path, then hook claude-code)")
	if len(args) == 0 {
		return usageErr("toolscope hook %s needs the agent: claude-code\n%s", verb, hookUsage)
	}
	agent := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return usageErr("toolscope hook %s: %v\n%s", verb, err, hookUsage)
	}
	if agent != "claude-code" {
		return usageErr("toolscope hook %s: only claude-code can be installed (Cursor's .cursor/hooks.json and Gemini CLI's settings.json take the command `toolscope hook cursor` or `toolscope hook gemini` by hand: see README.md)", verb)
	}
	if fs.NArg() > 0 {
		return usageErr("toolscope hook %s %s: unexpected argument %q", verb, agent, fs.Arg(0))
	}
	n := 0
	for _, b := range []bool{*user, *project, *local} {
		if b {
			n++
		}
	}
	if n > 1 {
		return usageErr("toolscope hook %s: give one of --user, --project and --local", verb)
	}
	var path string
	switch {
	case *project || *local:
		dir := *cwd
		if dir == "" {
			var err error
			if dir, err = os.Getwd(); err != nil {
				return err
			}
		}
		name := "settings.json"
		if *local {
			name = "settings.local.json"
		}
		path = filepath.Join(dir, ".claude", name)
	default:
		home, err := os.UserHomeDir()
		if err != nil {
			return usageErr("toolscope hook %s: no home directory (%v); give --project or --local", verb, err)
		}
		path = filepath.Join(home, ".claude", "settings.json")
	}
	cmd := *command
	if cmd == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding this toolscope's path: %w (give --command)", err)
		}
		if exe, err = filepath.EvalSymlinks(exe); err != nil {
			return fmt.Errorf("finding this toolscope's path: %w (give --command)", err)
		}
		cmd = shellWord(exe) + " hook claude-code"
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return usageErr("reading %s: %v", path, err)
	}
	exists := err == nil
	var out []byte
	var changed bool
	if verb == "install" {
		out, changed, err = installClaudeHook(old, cmd)
	} else {
		out, changed, err = uninstallClaudeHook(old)
	}
	if err != nil {
		return usageErr("%s: %v; the file is left as it was", path, err)
	}
	if !changed {
		if verb == "install" {
			fmt.Fprintf(stdout, "toolscope's hook is in %s already\n", path)
		} else {
			fmt.Fprintf(stdout, "toolscope's hook is not in %s; nothing to remove\n", path)
		}
		return nil
	}
	if exists {
		if err := textfile.WriteAtomic(path+".toolscope-backup", old, &textfile.WriteOptions{Perm: 0o600}); err != nil {
			return fmt.Errorf("backing up %s: %w; the file is left as it was", path, err)
		}
	}
	// Written only if the file is still what was read: Claude Code (or
	// the user) may be saving it at the same time.
	unchanged := func() error {
		now, err := os.ReadFile(path)
		if exists != (err == nil) || string(now) != string(old) {
			return fmt.Errorf("%s changed while toolscope edited it; run the command again", path)
		}
		return nil
	}
	if err := textfile.WriteAtomic(path, out, &textfile.WriteOptions{CreateDirs: true, Verify: unchanged}); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if verb == "install" {
		fmt.Fprintf(stdout, "toolscope's PreToolUse hook (%s) is in %s", cmd, path)
	} else {
		fmt.Fprintf(stdout, "toolscope's hook is removed from %s", path)
	}
	if exists {
		fmt.Fprintf(stdout, " (the file as it was: %s.toolscope-backup)", path)
	}
	fmt.Fprintln(stdout)
	return nil
}

// shellWord is s as one word for sh: as it is when it needs no quotes.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return shellQuote(s)
}

// isOurHook reports whether a hook command is toolscope's for Claude Code.
func isOurHook(cmd string) bool {
	return strings.Contains(cmd, "toolscope") && strings.HasSuffix(strings.TrimSpace(cmd), "hook claude-code")
}

// jsonNode is a value of a settings file, by its offsets in the text
// (comments and trailing commas made spaces: host.StripJSONC keeps them).
type jsonNode struct {
	start, end int // the value's bytes: b[start:end]
}

type jsonMember struct {
	key string
	val jsonNode
}

// members returns the members of the object at n.
func members(b []byte, n jsonNode) ([]jsonMember, error) {
	if b[n.start] != '{' {
		return nil, errors.New("not an object")
	}
	var out []jsonMember
	i := jsonscan.SkipSpace(b, n.start+1)
	for i < n.end && b[i] != '}' {
		ke := jsonscan.StringEnd(b, i)
		if b[i] != '"' || ke < 0 {
			return nil, errors.New("malformed object")
		}
		key, ok := jsonscan.Unquote(b[i:ke])
		if !ok {
			return nil, errors.New("malformed key")
		}
		i = jsonscan.SkipSpace(b, ke)
		if i >= n.end || b[i] != ':' {
			return nil, errors.New("malformed object")
		}
		vs := jsonscan.SkipSpace(b, i+1)
		ve := jsonscan.ValueEnd(b, vs)
		if ve < 0 {
			return nil, errors.New("malformed value")
		}
		out = append(out, jsonMember{key, jsonNode{vs, ve}})
		i = jsonscan.SkipSpace(b, ve)
		if i < n.end && b[i] == ',' {
			i = jsonscan.SkipSpace(b, i+1)
		}
	}
	return out, nil
}

// elements returns the elements of the array at n.
func elements(b []byte, n jsonNode) ([]jsonNode, error) {
	if b[n.start] != '[' {
		return nil, errors.New("not an array")
	}
	var out []jsonNode
	i := jsonscan.SkipSpace(b, n.start+1)
	for i < n.end && b[i] != ']' {
		e := jsonscan.ValueEnd(b, i)
		if e < 0 {
			return nil, errors.New("malformed array")
		}
		out = append(out, jsonNode{i, e})
		i = jsonscan.SkipSpace(b, e)
		if i < n.end && b[i] == ',' {
			i = jsonscan.SkipSpace(b, i+1)
		}
	}
	return out, nil
}

func member(ms []jsonMember, key string) (jsonNode, bool) {
	for _, m := range ms {
		if m.key == key {
			return m.val, true
		}
	}
	return jsonNode{}, false
}

// settingsRoot parses a settings file: its text with comments blanked,
// and its root object.
func settingsRoot(text []byte) ([]byte, jsonNode, error) {
	plain := host.StripJSONC(text)
	if !json.Valid(plain) {
		var v any
		err := json.Unmarshal(plain, &v)
		return nil, jsonNode{}, fmt.Errorf("not valid JSON (with comments): %v", err)
	}
	s := jsonscan.SkipSpace(plain, 0)
	if s >= len(plain) || plain[s] != '{' {
		return nil, jsonNode{}, errors.New("the settings are not a JSON object")
	}
	return plain, jsonNode{s, jsonscan.ValueEnd(plain, s)}, nil
}

// insert returns text with s inserted at i.
func insert(text []byte, i int, s string) []byte {
	out := make([]byte, 0, len(text)+len(s))
	out = append(out, text[:i]...)
	out = append(out, s...)
	return append(out, text[i:]...)
}

// insertMember returns text with the member m first in the object obj,
// followed by a comma when the object has members (others).
func insertMember(text []byte, obj jsonNode, others bool, m string) []byte {
	if others {
		m += ","
	}
	return insert(text, obj.start+1, m)
}

// installClaudeHook adds toolscope's PreToolUse group (running cmd) to the
// settings text, after the groups there are; changed is false when a
// toolscope hook is there already.
func installClaudeHook(text []byte, cmd string) (out []byte, changed bool, err error) {
	group, _ := json.Marshal(map[string]any{"matcher": hookMatcher, "hooks": []map[string]any{{"type": "command", "command": cmd}}})
	if len(strings.TrimSpace(string(text))) == 0 {
		out, _ := json.MarshalIndent(map[string]any{"hooks": map[string]any{"PreToolUse": []json.RawMessage{group}}}, "", "  ")
		return append(out, '\n'), true, nil
	}
	plain, root, err := settingsRoot(text)
	if err != nil {
		return nil, false, err
	}
	rms, err := members(plain, root)
	if err != nil {
		return nil, false, err
	}
	hooks, ok := member(rms, "hooks")
	switch {
	case !ok:
		out = insertMember(text, root, len(rms) > 0, fmt.Sprintf("\n  \"hooks\": {\"PreToolUse\": [%s]}", group))
	case plain[hooks.start] != '{':
		return nil, false, errors.New(`"hooks" is not an object`)
	default:
		hms, err := members(plain, hooks)
		if err != nil {
			return nil, false, err
		}
		pre, ok := member(hms, "PreToolUse")
		switch {
		case !ok:
			out = insertMember(text, hooks, len(hms) > 0, fmt.Sprintf("\n    \"PreToolUse\": [%s]", group))
		case plain[pre.start] != '[':
			return nil, false, errors.New(`"hooks"."PreToolUse" is not an array`)
		default:
			groups, err := elements(plain, pre)
			if err != nil {
				return nil, false, err
			}
			if len(ourHooks(plain, groups)) > 0 {
				return text, false, nil
			}
			if len(groups) == 0 {
				out = insert(text, pre.start+1, string(group))
			} else {
				out = insert(text, groups[len(groups)-1].end, ",\n      "+string(group))
			}
		}
	}
	if err := sameBut(text, out, true); err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// ourHooks returns, for each group of groups, the offsets of toolscope's
// hook entries in it (group index -> entries), for the groups that have
// any.
func ourHooks(plain []byte, groups []jsonNode) map[int][]jsonNode {
	found := map[int][]jsonNode{}
	for gi, g := range groups {
		if plain[g.start] != '{' {
			continue
		}
		gms, err := members(plain, g)
		if err != nil {
			continue
		}
		hs, ok := member(gms, "hooks")
		if !ok || plain[hs.start] != '[' {
			continue
		}
		entries, err := elements(plain, hs)
		if err != nil {
			continue
		}
		for _, e := range entries {
			var h struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(plain[e.start:e.end], &h) == nil && isOurHook(h.Command) {
				found[gi] = append(found[gi], e)
			}
		}
	}
	return found
}

// cut returns text without the element at index i of elems (and the comma
// that joined it to a neighbour).
func cut(text []byte, elems []jsonNode, i int) []byte {
	from, to := elems[i].start, elems[i].end
	switch {
	case i+1 < len(elems):
		to = elems[i+1].start
	case i > 0:
		from = elems[i-1].end
	}
	out := append([]byte{}, text[:from]...)
	return append(out, text[to:]...)
}

// preToolUseGroups returns the groups of hooks.PreToolUse in the settings
// object root; ok is false when there are none ("hooks" is not an object,
// or "PreToolUse" not an array).
func preToolUseGroups(plain []byte, root jsonNode) (groups []jsonNode, ok bool, err error) {
	rms, err := members(plain, root)
	if err != nil {
		return nil, false, err
	}
	hooks, ok := member(rms, "hooks")
	if !ok || plain[hooks.start] != '{' {
		return nil, false, nil
	}
	hms, err := members(plain, hooks)
	if err != nil {
		return nil, false, err
	}
	pre, ok := member(hms, "PreToolUse")
	if !ok || plain[pre.start] != '[' {
		return nil, false, nil
	}
	groups, err = elements(plain, pre)
	return groups, err == nil, err
}

// uninstallClaudeHook removes toolscope's hook entries from the settings
// text: a group of toolscope's alone goes whole, another keeps its other
// hooks.
func uninstallClaudeHook(text []byte) (out []byte, changed bool, err error) {
	if len(strings.TrimSpace(string(text))) == 0 {
		return text, false, nil
	}
	out = text
	for {
		plain, root, err := settingsRoot(out)
		if err != nil {
			return nil, false, err
		}
		groups, ok, err := preToolUseGroups(plain, root)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			break
		}
		ours := ourHooks(plain, groups)
		if len(ours) == 0 {
			break
		}
		// One removal at a time, then parse again: offsets move.
		for gi, entries := range ours {
			gms, _ := members(plain, groups[gi])
			hs, _ := member(gms, "hooks")
			all, _ := elements(plain, hs)
			if len(all) == len(entries) {
				out = cut(out, groups, gi)
			} else {
				for k, e := range all {
					if e == entries[0] {
						out = cut(out, all, k)
						break
					}
				}
			}
			break
		}
		changed = true
	}
	if !changed {
		return text, false, nil
	}
	if err := sameBut(text, out, false); err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// sameBut checks an edit: after, parsed, is before, parsed, with
// toolscope's hook added (added) or taken out; anything else changed (a
// comment eaten into a value, a member lost) is an error, and nothing is
// written.
func sameBut(before, after []byte, added bool) error {
	parse := func(text []byte) (map[string]any, error) {
		var v map[string]any
		if len(strings.TrimSpace(string(text))) == 0 {
			return map[string]any{}, nil
		}
		err := json.Unmarshal(host.StripJSONC(text), &v)
		return v, err
	}
	b, err := parse(before)
	if err != nil {
		return err
	}
	a, err := parse(after)
	if err != nil {
		return fmt.Errorf("the edit would make the file invalid (%v)", err)
	}
	strip(a)
	strip(b)
	if !reflect.DeepEqual(a, b) {
		return errors.New("the edit would change more than toolscope's hook")
	}
	return nil
}

// strip takes toolscope's hooks (and the groups and keys they leave
// empty) out of parsed settings, for sameBut's comparison.
func strip(s map[string]any) {
	hooks, ok := s["hooks"].(map[string]any)
	if !ok {
		return
	}
	groups, ok := hooks["PreToolUse"].([]any)
	if !ok {
		return
	}
	var keep []any
	for _, g := range groups {
		gm, ok := g.(map[string]any)
		hs, ok2 := gm["hooks"].([]any)
		if !ok || !ok2 {
			keep = append(keep, g)
			continue
		}
		var left []any
		for _, h := range hs {
			hm, _ := h.(map[string]any)
			if c, _ := hm["command"].(string); isOurHook(c) {
				continue
			}
			left = append(left, h)
		}
		if len(left) == 0 && len(hs) > 0 {
			continue
		}
		gm["hooks"] = left
		keep = append(keep, g)
	}
	if len(keep) == 0 {
		delete(hooks, "PreToolUse")
	} else {
		hooks["PreToolUse"] = keep
	}
	if len(hooks) == 0 {
		delete(s, "hooks")
	}
}
