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
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// chatHelp is what /help says.
const chatHelp = `Commands:
  /help              this list
  /mode [MODE]       the permission mode, or set it (default, accept_edits, explore, bypass, dont_ask)
  /allow RULE        allow calls like Bash(git log:*) for the rest of the conversation
  /tools             the tools the model has
  /prompts           the MCP servers' prompts, as commands
  /mcp__SERVER__PROMPT ARG...   send an MCP server's prompt
  /quit              end the conversation (so does end of input)`

// chatCommand handles a chat line that starts with "/": the commands of
// chatHelp. It returns the text to send to the model in the user's name
// (a prompt), quit for /quit, and ok false for a line that is no command
// (it goes to the model as written).
func chatCommand(ctx context.Context, ws *host.Workspace, st *tool.State, line string, w io.Writer) (text string, quit, ok bool) {
	cmd, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch cmd {
	case "/help":
		fmt.Fprintln(w, chatHelp)
	case "/quit", "/exit":
		return "", true, true
	case "/mode":
		pc := st.Permissions().Clone()
		if rest == "" {
			fmt.Fprintf(w, "mode: %s\n", cmp.Or(string(pc.Mode), "default"))
			break
		}
		m, err := host.ParseMode(rest)
		if err != nil {
			fmt.Fprintf(w, "toolscope: %v\n", err)
			break
		}
		pc.Mode = m
		st.SetPermissions(pc)
		fmt.Fprintf(w, "mode: %s\n", m)
	case "/allow":
		r, err := permission.ParseRule(rest)
		if err != nil || rest == "" {
			fmt.Fprintf(w, "toolscope: /allow needs a rule, such as Bash(git log:*) or Read(src/**): %v\n", err)
			break
		}
		r.Behavior, r.Source = permission.Allow, "chat"
		st.AddRule(r)
		fmt.Fprintf(w, "allowed for this conversation: %s\n", inputview.Escape(r.String()))
	case "/tools":
		for _, sc := range ws.Toolkit.Schemas(ctx, st.ActiveGroups()) {
			fmt.Fprintf(w, "%-20s %s\n", inputview.Escape(sc.Name), inputview.Escape(firstLine(cmp.Or(sc.Title, sc.Description))))
		}
	default:
		if t, handled := promptCommand(ctx, ws, line, w); handled {
			return t, false, true
		}
		if strings.HasPrefix(cmd, "/") && !strings.Contains(cmd[1:], "/") {
			fmt.Fprintf(w, "toolscope: unknown command %s (/help lists them; start the line with a space to send it as it is)\n", inputview.Escape(cmd))
			return "", false, true
		}
		return "", false, false
	}
	return "", false, true
}

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
