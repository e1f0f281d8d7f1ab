package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// completionCommands are the commands (and sub-commands) that shells
// complete, each with the words that may follow it.
var completionCommands = []struct {
	name string
	subs []string
}{
	{"tools", nil}, {"check", nil}, {"call", nil}, {"serve", nil}, {"run", nil}, {"config", nil}, {"chat", nil},
	{"sandbox", []string{"status"}},
	{"mcp", []string{"login", "logout", "list"}},
	{"hook", []string{"claude-code", "cursor", "gemini", "install", "uninstall"}},
	{"console", nil},
	{"completion", []string{"bash", "zsh", "fish"}},
	{"version", nil}, {"help", nil},
}

var flagLine = regexp.MustCompile(`(?m)^  -([a-z][a-z-]*)`)

// commandFlags returns the flags of the command args, as its --help
// lists them (so that completion never goes out of step with the
// commands).
func commandFlags(args ...string) []string {
	var out bytes.Buffer
	run(context.Background(), append(args, "--help"), strings.NewReader(""), &out, io.Discard)
	var flags []string
	for _, m := range flagLine.FindAllStringSubmatch(out.String(), -1) {
		flags = append(flags, "--"+m[1])
	}
	slices.Sort(flags)
	return slices.Compact(flags)
}

// runCompletion is `toolscope completion bash|zsh|fish`: a script for the
// shell that completes toolscope's commands, sub-commands and flags.
func runCompletion(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return usageErr("usage: toolscope completion bash|zsh|fish (source its output: source <(toolscope completion bash))")
	}
	var names []string
	subs := map[string][]string{}
	flags := map[string][]string{}
	for _, c := range completionCommands {
		names = append(names, c.name)
		subs[c.name] = c.subs
		switch {
		case c.name == "sandbox":
			flags[c.name] = commandFlags("sandbox", "status")
		case c.name == "mcp":
			flags[c.name] = commandFlags("mcp", "list")
		case c.name == "hook":
			flags[c.name] = append(commandFlags("hook", "claude-code"), "--user", "--project", "--local", "--command")
		case c.subs == nil && c.name != "version" && c.name != "help":
			flags[c.name] = commandFlags(c.name)
		}
	}
	switch args[0] {
	case "bash":
		fmt.Fprintf(stdout, "# bash completion for toolscope: source <(toolscope completion bash)\n_toolscope() {\n")
		fmt.Fprintf(stdout, "  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]}\n")
		fmt.Fprintf(stdout, "  if [ \"$COMP_CWORD\" -eq 1 ]; then COMPREPLY=($(compgen -W %q -- \"$cur\")); return; fi\n", strings.Join(names, " "))
		fmt.Fprintf(stdout, "  local words=\n  case $cmd in\n")
		for _, n := range names {
			fmt.Fprintf(stdout, "    %s) words=%q ;;\n", n, strings.Join(append(slices.Clone(subs[n]), flags[n]...), " "))
		}
		fmt.Fprintf(stdout, "  esac\n  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n  [ ${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- \"$cur\"))\n}\ncomplete -F _toolscope toolscope\n")
	case "zsh":
		fmt.Fprintf(stdout, "#compdef toolscope\n# zsh completion for toolscope: toolscope completion zsh > \"${fpath[1]}/_toolscope\"\n_toolscope() {\n")
		fmt.Fprintf(stdout, "  if (( CURRENT == 2 )); then compadd -- %s; return; fi\n  case $words[2] in\n", strings.Join(names, " "))
		for _, n := range names {
			fmt.Fprintf(stdout, "    %s) compadd -- %s; _files ;;\n", n, strings.Join(append(slices.Clone(subs[n]), flags[n]...), " "))
		}
		fmt.Fprintf(stdout, "  esac\n}\ncompdef _toolscope toolscope\n")
	case "fish":
		fmt.Fprintf(stdout, "# fish completion for toolscope: toolscope completion fish > ~/.config/fish/completions/toolscope.fish\n")
		fmt.Fprintf(stdout, "complete -c toolscope -n __fish_use_subcommand -f -a %q\n", strings.Join(names, " "))
		for _, n := range names {
			if len(subs[n]) > 0 {
				fmt.Fprintf(stdout, "complete -c toolscope -n '__fish_seen_subcommand_from %s' -f -a %q\n", n, strings.Join(subs[n], " "))
			}
			for _, f := range flags[n] {
				fmt.Fprintf(stdout, "complete -c toolscope -n '__fish_seen_subcommand_from %s' -l %s\n", n, strings.TrimPrefix(f, "--"))
			}
		}
	default:
		return usageErr("toolscope completion: unknown shell %q (want bash, zsh or fish)", args[0])
	}
	return nil
}
