package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"runtime"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolscope/toolscope/permission"
)

// FunctionOptions configures a tool made by [NewFunction]. The zero value
// derives everything.
type FunctionOptions struct {
	// Name overrides the name derived from the Go function's name.
	Name string
	// InputSchema replaces the schema inferred from the input type.
	InputSchema json.RawMessage
	// Serial marks the tool as unsafe to run in parallel with other calls.
	// Function tools are concurrency-safe by default.
	Serial bool
	// ReadOnly declares that the function changes nothing: the permission
	// engine then lets every call through without asking.
	ReadOnly bool
	// StateInjected makes the agent's [State] available to the function
	// through [StateFromContext].
	StateInjected bool
	// Permissions replaces the default permission check, which asks the user
	// (a plain Ask: an allow rule for the tool lets it through).
	Permissions func(ctx context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error)
}

// Function is a [Tool] made from a typed Go function by [NewFunction].
type Function struct {
	info  Info
	call  func(ctx context.Context, input json.RawMessage) *Chunk
	perms func(ctx context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error)
}

// NewFunction makes a tool of fn. The input schema is inferred from In, which
// should be a struct: each exported field is a property named by its json tag;
// fields without omitempty (or omitzero) are required; the jsonschema tag gives
// the property's description, and an enum tag the allowed values, separated by
// commas:
//
//	type WeatherInput struct {
//		City  string `json:"city" jsonschema:"the city to look up"`
//		Units string `json:"units,omitempty" enum:"metric,imperial"`
//	}
//
// The result becomes the tool's output: a string as text, a *[Chunk] as is,
// anything else as JSON text. A non-nil error becomes an error result with the
// error's text, which the model reads. The description is required: it is
// what the model knows of the tool.
func NewFunction[In, Out any](description string, fn func(context.Context, In) (Out, error), opts *FunctionOptions) (*Function, error) {
	if opts == nil {
		opts = &FunctionOptions{}
	}
	if fn == nil {
		return nil, errors.New("tool.NewFunction: nil function")
	}
	if strings.TrimSpace(description) == "" {
		return nil, errors.New("tool.NewFunction: a description is required (the model only knows a tool by its description)")
	}
	name := opts.Name
	if name == "" {
		name = funcName(fn)
		if name == "" {
			return nil, errors.New("tool.NewFunction: cannot derive a name from an anonymous function; set FunctionOptions.Name")
		}
	}
	schema := opts.InputSchema
	if len(schema) == 0 {
		var err error
		if schema, err = inferSchema[In](); err != nil {
			return nil, fmt.Errorf("tool.NewFunction %s: %w", name, err)
		}
	}
	if _, err := compileSchema(schema); err != nil {
		return nil, fmt.Errorf("tool.NewFunction %s: %w", name, err)
	}
	f := &Function{
		info: Info{Name: name, Description: description, InputSchema: schema,
			ConcurrencySafe: !opts.Serial, ReadOnly: opts.ReadOnly, StateInjected: opts.StateInjected},
		perms: opts.Permissions,
	}
	f.call = func(ctx context.Context, input json.RawMessage) *Chunk {
		var in In
		if err := DecodeInput(input, &in); err != nil {
			return Errorf("Invalid input for tool '%s': %s. Fix the input and call the tool again.", name, errorText(err))
		}
		out, err := fn(ctx, in)
		if err != nil {
			return Errorf("%v", err)
		}
		return outputChunk(out)
	}
	return f, nil
}

// Info implements [Tool].
func (f *Function) Info() Info { return f.info }

// CheckPermissions implements [Tool]: FunctionOptions.Permissions, or a plain
// Ask that an allow rule for the tool overrides.
func (f *Function) CheckPermissions(ctx context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	if f.perms != nil {
		return f.perms(ctx, input, pc)
	}
	return permission.Decision{Behavior: permission.Ask, Message: "Custom function tools must be explicitly allowed by the user.", Reason: "Function tools ask by default"}, nil
}

// Call implements [Tool].
func (f *Function) Call(ctx context.Context, call *Call) iter.Seq2[*Chunk, error] {
	return func(yield func(*Chunk, error) bool) {
		yield(f.call(ctx, call.Input), nil)
	}
}

func outputChunk(out any) *Chunk {
	switch v := out.(type) {
	case string:
		return Text(v)
	case *Chunk:
		return v
	case nil:
		return Text("")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return Text(fmt.Sprint(out))
	}
	return Text(strings.TrimSuffix(b.String(), "\n"))
}

// funcName returns the Go name of a named function, or "" for a closure.
func funcName(fn any) string {
	full := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	full = full[strings.LastIndexByte(full, '/')+1:]
	parts := strings.Split(full, ".")
	name := strings.TrimSuffix(parts[len(parts)-1], "-fm")
	if len(parts) < 2 || strings.HasPrefix(name, "func") || !validName(name) {
		return ""
	}
	return name
}

// inferSchema builds the input schema of In, adding the enum tags that the
// jsonschema library does not read.
func inferSchema[In any]() (json.RawMessage, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, fmt.Errorf("infer input schema: %w", err)
	}
	applyEnums(reflect.TypeFor[In](), s)
	return json.Marshal(s)
}

func applyEnums(t reflect.Type, s *jsonschema.Schema) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		applyEnums(t.Elem(), s.Items)
	case reflect.Map:
		if s.AdditionalProperties != nil {
			applyEnums(t.Elem(), s.AdditionalProperties)
		}
	case reflect.Struct:
		for f := range t.Fields() {
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if f.Anonymous && f.Tag.Get("json") == "" {
				applyEnums(f.Type, s)
				continue
			}
			p := s.Properties[name]
			if p == nil {
				continue
			}
			if tag, ok := f.Tag.Lookup("enum"); ok {
				target, ft := p, f.Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if (ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array) && p.Items != nil {
					target = p.Items // an enum on a list constrains its items
				}
				for _, v := range strings.Split(tag, ",") {
					target.Enum = append(target.Enum, enumValue(f.Type, v))
				}
			}
			applyEnums(f.Type, p)
		}
	}
}

// enumValue converts an enum tag entry to the JSON type of the field.
func enumValue(t reflect.Type, v string) any {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	var x any
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.Bool:
		if json.Unmarshal([]byte(v), &x) == nil {
			return x
		}
	}
	return v
}
