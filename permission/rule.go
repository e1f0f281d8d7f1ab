package permission

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Rule is one user rule: for calls of Tool whose input matches Content, do
// Behavior. An empty Content matches every call of the tool. What Content means
// is up to the tool: a command prefix for Bash ("git log:*"), a path glob for
// Read ("src/**"); tools without patterns support only whole-tool rules.
//
// The string form is the one Claude Code uses: "Bash", "Bash(npm run:*)",
// "Read(src/**)", "mcp__fs__read_file". Inside the parentheses a backslash
// escapes '(', ')' and '\'; any other backslash is kept as written, so
// "Bash(echo \*)" holds the content `echo \*`.
type Rule struct {
	Tool     string   `json:"tool"`
	Content  string   `json:"content,omitempty"`
	Behavior Behavior `json:"behavior,omitempty"`
	// Source says where the rule came from ("userSettings", "suggested", "cli").
	Source string `json:"source,omitempty"`
}

// ParseRule parses the string form of a rule. The returned rule has no
// Behavior or Source; callers set them.
func ParseRule(s string) (Rule, error) {
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if err := checkToolName(s); err != nil {
			return Rule{}, fmt.Errorf("parse rule %q: %w", s, err)
		}
		return Rule{Tool: s}, nil
	}
	tool := s[:open]
	if err := checkToolName(tool); err != nil {
		return Rule{}, fmt.Errorf("parse rule %q: %w", s, err)
	}
	body := s[open+1:]
	var b strings.Builder
	closed := false
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body) && strings.IndexByte(`\()`, body[i+1]) >= 0:
			i++
			b.WriteByte(body[i])
		case c == ')' && i == len(body)-1:
			closed = true
		default:
			b.WriteByte(c)
		}
	}
	if !closed {
		return Rule{}, fmt.Errorf("parse rule %q: missing the closing ')' at the end (escape a literal one as \\))", s)
	}
	return Rule{Tool: tool, Content: b.String()}, nil
}

func checkToolName(name string) error {
	if name == "" {
		return fmt.Errorf("empty tool name (want a form like Bash, Bash(git log:*) or Read(src/**))")
	}
	for _, r := range name {
		if r == '(' || r == ')' || r == '\\' || r <= ' ' || r == 0x7f {
			return fmt.Errorf("invalid character %q in tool name %q", r, name)
		}
	}
	return nil
}

// String returns the rule's string form; [ParseRule] reads it back to the same
// Tool and Content.
func (r Rule) String() string {
	if r.Content == "" {
		return r.Tool
	}
	var b strings.Builder
	b.Grow(len(r.Tool) + len(r.Content) + 2)
	b.WriteString(r.Tool)
	b.WriteByte('(')
	for i := 0; i < len(r.Content); i++ {
		c := r.Content[i]
		if c == '\\' || c == '(' || c == ')' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte(')')
	return b.String()
}

// UnmarshalJSON accepts either the object form {"tool":…,"content":…,"behavior":…}
// or the string form "Bash(git log:*)" (whose behavior the enclosing list gives).
func (r *Rule) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		v, err := ParseRule(s)
		if err != nil {
			return err
		}
		*r = v
		return nil
	}
	type plain Rule
	var v plain
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if err := checkToolName(v.Tool); err != nil {
		return fmt.Errorf("rule: %w", err)
	}
	*r = Rule(v)
	return nil
}

// UnmarshalJSON accepts rules in the object or the string form, and sets the
// Behavior of rules in each list from the list they are in.
func (c *Context) UnmarshalJSON(data []byte) error {
	type plain Context
	var v plain
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	fix := func(rules []Rule, b Behavior) {
		for i := range rules {
			rules[i].Behavior = b
		}
	}
	fix(v.Allow, Allow)
	fix(v.Deny, Deny)
	fix(v.Ask, Ask)
	if v.Mode == "" {
		v.Mode = Default
	}
	*c = Context(v)
	return nil
}
