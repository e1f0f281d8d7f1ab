package tool

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/permission"
)

// Skill is a procedure an agent learns by reading it, in the Agent Skills
// format of Claude Code: a directory with a SKILL.md whose frontmatter
// names and describes the skill and whose body holds the instructions,
// with any scripts and resources beside it. Package skill loads them.
type Skill struct {
	// Name is the skill's name: at most 64 of [a-z0-9-].
	Name string
	// Description says what the skill does and when to use it; the model
	// reads it in the system prompt to decide whether to open the skill.
	Description string
	// Dir is the skill's directory, where the files its body mentions are.
	Dir string
	// Body is SKILL.md without its frontmatter.
	Body string
	// Metadata holds the frontmatter's other keys (license, allowed-tools,
	// ...).
	Metadata map[string]any
}

// SkillSource lists skills (package skill's loaders are SkillSources).
// Put them in ToolkitOptions.Skills (always available) or in a [Group].
type SkillSource interface {
	Skills(ctx context.Context) ([]Skill, error)
}

const skillViewerName = "Skill"

// skills returns the skills of the basic group and of the active groups,
// in group order; a later skill of the same name replaces an earlier one.
func (tk *Toolkit) skills(ctx context.Context, active []string) []Skill {
	tk.mu.RLock()
	var sources []SkillSource
	for _, g := range tk.groups {
		if g.Name == BasicGroup || slices.Contains(active, g.Name) {
			sources = append(sources, g.Skills...)
		}
	}
	tk.mu.RUnlock()
	var out []Skill
	for _, src := range sources {
		list, err := src.Skills(ctx)
		if err != nil {
			tk.logger.Warn("toolkit: a skill source failed; its skills are unavailable", "err", err)
			continue
		}
		for _, s := range list {
			if i := indexSkill(out, s.Name); i >= 0 {
				tk.logger.Warn("toolkit: two skills have one name; the later one is used", "skill", s.Name, "dir", s.Dir, "replaced", out[i].Dir)
				out = append(out[:i], out[i+1:]...)
			}
			out = append(out, s)
		}
	}
	return out
}

func indexSkill(list []Skill, name string) int {
	return slices.IndexFunc(list, func(s Skill) bool { return s.Name == name })
}

// SkillPrompt returns the part of the system prompt that tells the model
// which skills it has (those of the basic group and of the active groups)
// and how to use them, as AgentScope words it; "" when there are none. An
// agent appends it to its system prompt at every turn.
func (tk *Toolkit) SkillPrompt(ctx context.Context, activeGroups []string) string {
	skills := tk.skills(ctx, activeGroups)
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<agent-skills>\nSkills are a collection of instructions, scripts, and resources to extend your capabilities.\n\n")
	b.WriteString("**IMPORTANT**: Skills are NOT tools, and you cannot call a skill directly. To use a skill, you MUST use the `" + skillViewerName + "` tool to read the skill's full instructions, and then follow those instructions to use the tools and resources provided by the skill.\n\n")
	b.WriteString("# Available Skills:")
	for _, s := range skills {
		b.WriteString("\n<skill>\n<name>" + s.Name + "</name>\n<description>" + s.Description + "</description>\n<dir>" + s.Dir + "</dir>\n</skill>")
	}
	b.WriteString("\n</agent-skills>\n")
	return b.String()
}

// skillViewer is the Skill tool: the model reads a skill's instructions
// with it. The toolkit offers it when skills are available.
type skillViewer struct{ tk *Toolkit }

const skillViewerDescription = `Reads the full instructions of one of your skills (listed in the system prompt under "Available Skills").

A skill is not a tool and cannot be called: read it with this tool first, then follow its instructions, using the tools and the files in the skill's directory as they say. Read a skill as soon as the task at hand matches its description, before you start the work.`

var skillViewerSchema = json.RawMessage(`{"type":"object","properties":{"skill":{"type":"string","description":"The exact name of the skill to view."}},"required":["skill"]}`)

func (v *skillViewer) Info() Info {
	return Info{Name: skillViewerName, Title: "Read a skill", Description: skillViewerDescription, InputSchema: skillViewerSchema,
		ReadOnly: true, ConcurrencySafe: true, StateInjected: true}
}

func (v *skillViewer) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Allow, Message: "Skill is always allowed to be called.", Reason: "Skill viewer"}, nil
}

func (v *skillViewer) Call(ctx context.Context, call *Call) iter.Seq2[*Chunk, error] {
	return func(yield func(*Chunk, error) bool) {
		var in struct {
			Skill string `json:"skill"`
		}
		if err := DecodeInput(call.Input, &in); err != nil {
			yield(Errorf("%v", err), nil)
			return
		}
		var active []string
		if call.State != nil {
			active = call.State.ActiveGroups()
		}
		skills := v.tk.skills(ctx, active)
		i := indexSkill(skills, in.Skill)
		if i < 0 {
			yield(Errorf("SkillNotFoundError: Skill '%s' not found.", in.Skill), nil)
			return
		}
		s := skills[i]
		yield(Text("Skill directory: "+s.Dir+"\n\n"+s.Body), nil)
	}
}
