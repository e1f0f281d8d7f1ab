package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/internal/inputview"
	"github.com/toolscope/toolscope/mcp"
)

// promptCommand handles a chat line that calls an MCP server's prompt, as
// Claude Code spells it: "/mcp__SERVER__PROMPT ARG...", the arguments in
// the prompt's order, separated by spaces ("double quotes" keep one with
// spaces; the last argument takes the rest of the line), and "/prompts",
// which lists them. It returns the text to send to the model in the
// user's name, or handled without text when it only told the user
// something (on w). ok is false for any other line.
func promptCommand(ctx context.Context, ws *host.Workspace, line string, w io.Writer) (text string, ok bool) {
	cmd, rest, _ := strings.Cut(line, " ")
	switch {
	case cmd == "/prompts":
		listPrompts(ctx, ws, w)
		return "", true
	case !strings.HasPrefix(cmd, "/mcp__"):
		return "", false
	}
	server, name, found := strings.Cut(strings.TrimPrefix(cmd, "/mcp__"), "__")
	if !found || server == "" || name == "" {
		fmt.Fprintf(w, "toolscope: %s is not a prompt command; they read /mcp__SERVER__PROMPT (/prompts lists them)\n", inputview.Escape(cmd))
		return "", true
	}
	prompts, _ := ws.Prompts(ctx)
	// The name as the server gives it, or as a tool name would spell it
	// (a prompt "fix bug" is /mcp__s__fixxbug, as a tool would be).
	var p *mcp.Prompt
	for i := range prompts {
		if prompts[i].Server != server {
			continue
		}
		if prompts[i].Name == name {
			p = &prompts[i]
			break
		}
		if p == nil && mcp.ToolName(server, prompts[i].Name) == mcp.ToolName(server, name) {
			p = &prompts[i]
		}
	}
	if p == nil {
		fmt.Fprintf(w, "toolscope: MCP server %q has no prompt %q (/prompts lists them)\n", inputview.Escape(server), inputview.Escape(name))
		return "", true
	}
	args, err := promptArgs(*p, rest)
	if err != nil {
		fmt.Fprintf(w, "toolscope: %v\n", err)
		return "", true
	}
	msgs, err := ws.GetPrompt(ctx, server, p.Name, args)
	if err != nil {
		fmt.Fprintf(w, "toolscope: %v\n", err)
		return "", true
	}
	var parts []string
	for _, m := range msgs {
		t := m.Content.Text
		if t == "" {
			t = fmt.Sprintf("[%s content from the prompt, not shown]", m.Content.MediaType)
		}
		if m.Role == "assistant" {
			t = "(assistant) " + t
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		fmt.Fprintf(w, "toolscope: the prompt %s of %s is empty\n", inputview.Escape(p.Name), inputview.Escape(server))
		return "", true
	}
	return strings.Join(parts, "\n\n"), true
}

// promptArgs gives the words of rest to p's arguments in order.
func promptArgs(p mcp.Prompt, rest string) (map[string]string, error) {
	words := splitArgs(rest, len(p.Arguments))
	if len(words) > len(p.Arguments) {
		return nil, fmt.Errorf("the prompt %s takes no arguments", inputview.Escape(p.Name))
	}
	args := map[string]string{}
	var missing []string
	for i, a := range p.Arguments {
		switch {
		case i < len(words):
			args[a.Name] = words[i]
		case a.Required:
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the prompt %s needs %s; usage: %s", inputview.Escape(p.Name), strings.Join(missing, ", "), promptUsage(p))
	}
	return args, nil
}

// splitArgs splits s into at most n words (n > 0): spaces separate them,
// double quotes keep spaces in one, and the last takes the rest. With n
// == 0 it returns s's one word, if any, so that an argument to a prompt
// without any is seen.
func splitArgs(s string, n int) []string {
	s = strings.TrimSpace(s)
	var out []string
	for s != "" {
		if n > 0 && len(out) == n-1 {
			out = append(out, strings.Trim(s, `"`))
			break
		}
		var w string
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				w, s = s[1:], ""
			} else {
				w, s = s[1:1+end], s[2+end:]
			}
		} else {
			w, s, _ = strings.Cut(s, " ")
		}
		out = append(out, w)
		s = strings.TrimSpace(s)
		if n == 0 {
			break
		}
	}
	return out
}

func promptUsage(p mcp.Prompt) string {
	u := "/" + mcp.ToolName(p.Server, p.Name)
	for _, a := range p.Arguments {
		if a.Required {
			u += " <" + a.Name + ">"
		} else {
			u += " [" + a.Name + "]"
		}
	}
	return u
}

// listPrompts tells the user the prompt commands of the MCP servers.
func listPrompts(ctx context.Context, ws *host.Workspace, w io.Writer) {
	prompts, errs := ws.Prompts(ctx)
	for _, err := range errs {
		fmt.Fprintf(w, "toolscope: %v\n", err)
	}
	if len(prompts) == 0 {
		fmt.Fprintln(w, "No MCP server offers prompts.")
		return
	}
	for _, p := range prompts {
		fmt.Fprintf(w, "%s", inputview.Escape(promptUsage(p)))
		if d := cmp.Or(p.Description, p.Title); d != "" {
			fmt.Fprintf(w, "  %s", inputview.Escape(firstLine(d)))
		}
		fmt.Fprintln(w)
	}
}
