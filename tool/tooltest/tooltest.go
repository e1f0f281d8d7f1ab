// Package tooltest checks that a [tool.Tool] keeps the contract every
// toolkit relies on, as testing/fstest checks a file system:
//
//	func TestMyTool(t *testing.T) {
//		tooltest.Run(t, mytool.New(), nil)
//	}
//
// It checks that Info is stable and well formed (a valid name, a
// description, an input schema of type object with properties, which
// compiles when the tool says so: [tool.TestedSchema]), that bad
// input through a [tool.Toolkit] is an error result and never a panic or a
// Go error, that calls with a cancelled context end promptly, and that no
// panic escapes Call or CheckPermissions for the inputs it tries.
package tooltest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// Options configures [Run]; nil means the defaults.
type Options struct {
	// Inputs are valid inputs to try (with a cancelled context, so that the
	// tool does not do its work). Nil means only "{}" and the bad inputs.
	Inputs []json.RawMessage
	// Deadline bounds how long a call with a cancelled context may take;
	// 0 means 5 seconds.
	Deadline time.Duration
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// Run checks tl; each problem [Check] finds is a test failure.
func Run(t *testing.T, tl tool.Tool, o *Options) {
	t.Helper()
	for _, err := range Check(tl, o) {
		t.Error(err)
	}
}

// Check checks tl and returns the problems it finds.
func Check(tl tool.Tool, o *Options) (problems []error) {
	if o == nil {
		o = &Options{}
	}
	deadline := o.Deadline
	if deadline <= 0 {
		deadline = 5 * time.Second
	}
	var mu sync.Mutex
	report := func(format string, args ...any) {
		mu.Lock()
		problems = append(problems, fmt.Errorf(format, args...))
		mu.Unlock()
	}
	info, ok := safeInfo(tl, report)
	if !ok {
		return problems
	}
	if again, ok := safeInfo(tl, report); ok && !reflect.DeepEqual(info, again) {
		report("Info: changed between calls:\n%+v\n%+v", info, again)
	}
	if !namePattern.MatchString(info.Name) {
		report("Info: name %q: want letters, digits, '_' and '-' (at most 128)", info.Name)
	}
	if info.Description == "" {
		report("Info: no description: the model knows a tool only by it")
	}
	var schema map[string]any
	if err := json.Unmarshal(info.InputSchema, &schema); err != nil {
		report("Info: input schema is not a JSON object: %v", err)
	} else {
		if schema["type"] != "object" {
			report("Info: input schema type %v, want \"object\"", schema["type"])
		}
		if _, ok := schema["properties"].(map[string]any); !ok {
			report("Info: input schema has no \"properties\" object (providers require one)")
		}
	}

	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{tl}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		report("Toolkit: refuses the tool: %v", err)
		return problems
	}
	if _, ok := tl.(tool.TestedSchema); ok && len(tk.Schemas(context.Background(), nil)) != 1 {
		// A Toolkit compiles a tested schema at the tool's first use;
		// listing the tool compiles it now.
		report("TestedSchema: the tool says its input schema compiles, and it does not")
	}
	bypass := func() *tool.State { return tool.NewState(&permission.Context{Mode: permission.Bypass}) }

	for _, in := range []string{`not json`, `[]`, `"x"`, `{`} {
		r, err := callNoPanic(tk, &tool.Call{ID: "bad", Name: info.Name, Input: json.RawMessage(in), State: bypass()})
		switch {
		case err != nil:
			report("BadInput: input %s: %v; bad input must be an error result", in, err)
		case r.Status == tool.StatusSuccess:
			report("BadInput: input %s: succeeded", in)
		}
	}

	if !info.External {
		inputs := append([]json.RawMessage{json.RawMessage(`{}`)}, o.Inputs...)
		for _, in := range inputs {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				defer func() {
					if v := recover(); v != nil {
						report("Cancelled: input %s: Call panicked: %v", in, v)
					}
				}()
				for range tl.Call(ctx, &tool.Call{ID: "c", Name: info.Name, Input: in, State: bypass()}) {
				}
			}()
			select {
			case <-done:
			case <-time.After(deadline):
				report("Cancelled: input %s: Call with a cancelled context still running after %s", in, deadline)
			}
		}
	}

	for _, in := range append([]json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`null`), nil}, o.Inputs...) {
		func() {
			defer func() {
				if v := recover(); v != nil {
					report("NoPanic: input %s: CheckPermissions panicked: %v", in, v)
				}
			}()
			tl.CheckPermissions(tool.WithState(context.Background(), bypass()), in, &permission.Context{Mode: permission.Default})
		}()
	}
	return problems
}

func safeInfo(tl tool.Tool, report func(string, ...any)) (info tool.Info, ok bool) {
	defer func() {
		if v := recover(); v != nil {
			report("Info: panicked: %v", v)
			ok = false
		}
	}()
	return tl.Info(), true
}

// callNoPanic runs a call through the Toolkit; a panic is an error.
func callNoPanic(tk *tool.Toolkit, c *tool.Call) (r *tool.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic through the Toolkit: %v", v)
		}
	}()
	return tk.Call(context.Background(), c)
}
