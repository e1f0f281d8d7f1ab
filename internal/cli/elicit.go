package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/internal/inputview"
	"github.com/toolscope/toolscope/mcp"
)

// lineReader is where the user's answers come from, a line each.
type lineReader interface {
	ReadString(delim byte) (string, error)
}

// termElicitor puts MCP servers' questions to the user of chat, on the
// terminal the conversation runs on.
type termElicitor struct {
	in  lineReader
	out io.Writer
}

func (e termElicitor) Elicit(_ context.Context, r mcp.ElicitRequest) (mcp.ElicitResponse, error) {
	return askForm(e.in, e.out, r)
}

// Elicit implements mcp.Elicitor for `toolscope call`: a terminal asks;
// --yes, which approves calls, answers no question (it declines), and
// without a terminal the server hears that the user cannot be asked.
func (a *cliAsker) Elicit(_ context.Context, r mcp.ElicitRequest) (mcp.ElicitResponse, error) {
	if a.yes {
		fmt.Fprintf(a.stderr, "toolscope: MCP server %q asked a question, which --yes does not answer: declined.\n", inputview.Escape(r.Server))
		return mcp.ElicitResponse{Action: "decline"}, nil
	}
	answers, promptTo, closeAnswers := terminal(a.stdin, a.stderr, a.fromStdin)
	if answers == nil {
		return mcp.ElicitResponse{}, fmt.Errorf("MCP server %q asks a question, and there is no terminal to ask the user on", r.Server)
	}
	defer closeAnswers()
	return askForm(bufio.NewReader(answers), promptTo, r)
}

// formField is one field of an elicitation's form.
type formField struct {
	name        string
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Enum        []string `json:"enum"`
	Default     any      `json:"default"`
	required    bool
}

// formFields reads the fields of schema (an object of primitive
// properties), in the schema's order.
func formFields(schema json.RawMessage) ([]formField, error) {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("the form's schema is not a JSON object: %v", err)
	}
	if len(s.Properties) == 0 || string(s.Properties) == "null" {
		return nil, nil
	}
	var props map[string]formField
	if err := json.Unmarshal(s.Properties, &props); err != nil {
		return nil, fmt.Errorf("the form's properties: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []formField
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		f := props[name]
		f.name, f.required = name, slices.Contains(s.Required, name)
		out = append(out, f)
	}
	return out, nil
}

// askForm asks the user the server's question: whether to answer, then
// each field of the form, in the schema's order, until its answer fits
// the field's type. An empty answer leaves a field out (the schema's
// default applies) unless it is required.
func askForm(in lineReader, w io.Writer, r mcp.ElicitRequest) (mcp.ElicitResponse, error) {
	fields, err := formFields(r.Schema)
	if err != nil {
		return mcp.ElicitResponse{}, err
	}
	fmt.Fprintf(w, "MCP server %q asks: %s\nAnswer? [y/N] ", inputview.Escape(r.Server), inputview.Escape(r.Message))
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		return mcp.ElicitResponse{Action: "cancel"}, nil
	}
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return mcp.ElicitResponse{Action: "decline"}, nil
	}
	content := map[string]any{}
	for _, f := range fields {
		for {
			fmt.Fprintf(w, "%s: ", fieldPrompt(f))
			line, err := in.ReadString('\n')
			if err != nil && line == "" {
				return mcp.ElicitResponse{Action: "cancel"}, nil
			}
			v, ok, why := fieldValue(f, strings.TrimRight(line, "\r\n"))
			if why != "" {
				fmt.Fprintf(w, "  %s\n", why)
				continue
			}
			if ok {
				content[f.name] = v
			}
			break
		}
	}
	return mcp.ElicitResponse{Action: "accept", Content: content}, nil
}

func fieldPrompt(f formField) string {
	p := inputview.Escape(f.name)
	if t := f.Title; t != "" && t != f.name {
		p += " (" + inputview.Escape(t) + ")"
	}
	if f.Description != "" {
		p += " - " + inputview.Escape(f.Description)
	}
	var hints []string
	switch {
	case len(f.Enum) > 0:
		var opts []string
		for _, o := range f.Enum {
			opts = append(opts, inputview.Escape(o))
		}
		hints = append(hints, "one of "+strings.Join(opts, ", "))
	case f.Type == "boolean":
		hints = append(hints, "y/n")
	case f.Type != "" && f.Type != "string":
		hints = append(hints, f.Type)
	}
	if f.Default != nil {
		hints = append(hints, "default "+inputview.Escape(fmt.Sprint(f.Default)))
	}
	if f.required {
		hints = append(hints, "required")
	}
	if len(hints) > 0 {
		p += " [" + strings.Join(hints, "; ") + "]"
	}
	return p
}

// fieldValue reads the answer s to field f: the value and whether there
// is one, or why s does not fit.
func fieldValue(f formField, s string) (any, bool, string) {
	if strings.TrimSpace(s) == "" {
		if f.required && f.Default == nil {
			return nil, false, "an answer is required"
		}
		return nil, false, ""
	}
	switch {
	case len(f.Enum) > 0:
		if !slices.Contains(f.Enum, s) {
			return nil, false, "answer one of: " + strings.Join(f.Enum, ", ")
		}
		return s, true, ""
	case f.Type == "boolean":
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "y", "yes", "true":
			return true, true, ""
		case "n", "no", "false":
			return false, true, ""
		}
		return nil, false, "answer y or n"
	case f.Type == "integer":
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, false, "answer a whole number"
		}
		return n, true, ""
	case f.Type == "number":
		n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, false, "answer a number"
		}
		return n, true, ""
	}
	return s, true, ""
}
