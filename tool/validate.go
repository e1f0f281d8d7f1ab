package tool

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolscope/toolscope/internal/clip"
)

// checker is a validator compiled from a schema that uses only the keywords
// tool schemas use day to day. It checks a decoded JSON value without
// reflection and says what is wrong in terms a model acts on. Schemas with
// other keywords ($ref, anyOf, …) are validated by jsonschema-go instead.
type checker struct {
	types      []string // allowed JSON types; "integer" also admits whole numbers
	props      map[string]*checker
	propNames  []string // sorted, for messages
	required   []string
	addlFalse  bool     // additionalProperties: false
	addl       *checker // additionalProperties: schema
	items      *checker
	enum       []any
	constVal   *any
	min, max   *float64
	xmin, xmax *float64
	minLen     *int
	maxLen     *int
	minItems   *int
	maxItems   *int
	pattern    *regexp.Regexp
}

// annotations are keywords that never fail validation, each with the JSON
// type its value must have (as jsonschema-go reads it: a schema the fast
// checker compiles must be one it resolves, see FuzzCheckerImpliesResolves).
var annotations = map[string]func(any) bool{
	"description": isString, "title": isString, "$comment": isString, "$schema": isString, "$id": isString,
	"format": isString, "default": func(any) bool { return true }, "examples": isArray,
	"readOnly": isBool, "writeOnly": isBool, "deprecated": isBool,
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isArray(v any) bool  { _, ok := v.([]any); return ok }
func isBool(v any) bool   { _, ok := v.(bool); return ok }

// compileChecker returns nil when the schema uses a keyword it does not know.
func compileChecker(m map[string]any) *checker {
	c := &checker{}
	for k, v := range m {
		ok := true
		switch k {
		case "type":
			switch t := v.(type) {
			case string:
				c.types = []string{t}
			case []any:
				for _, x := range t {
					s, isStr := x.(string)
					ok = ok && isStr
					c.types = append(c.types, s)
				}
			default:
				ok = false
			}
		case "properties":
			pm, isMap := v.(map[string]any)
			ok = isMap
			c.props = map[string]*checker{}
			for name, sub := range pm {
				sm, isMap := sub.(map[string]any)
				if !isMap {
					return nil
				}
				if c.props[name] = compileChecker(sm); c.props[name] == nil {
					return nil
				}
				c.propNames = append(c.propNames, name)
			}
			slices.Sort(c.propNames)
		case "required":
			arr, isArr := v.([]any)
			ok = isArr
			for _, x := range arr {
				s, isStr := x.(string)
				ok = ok && isStr
				c.required = append(c.required, s)
			}
		case "additionalProperties":
			switch a := v.(type) {
			case bool:
				c.addlFalse = !a
			case map[string]any:
				c.addl = compileChecker(a)
				ok = c.addl != nil
			default:
				ok = false
			}
		case "items":
			im, isMap := v.(map[string]any)
			if !isMap {
				return nil
			}
			c.items = compileChecker(im)
			ok = c.items != nil
		case "enum":
			c.enum, ok = v.([]any)
		case "const":
			c.constVal = &v
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			f, isNum := v.(float64)
			ok = isNum
			*map[string]**float64{"minimum": &c.min, "maximum": &c.max, "exclusiveMinimum": &c.xmin, "exclusiveMaximum": &c.xmax}[k] = &f
		case "minLength", "maxLength", "minItems", "maxItems":
			f, isNum := v.(float64)
			n := int(f)
			ok = isNum && float64(n) == f
			*map[string]**int{"minLength": &c.minLen, "maxLength": &c.maxLen, "minItems": &c.minItems, "maxItems": &c.maxItems}[k] = &n
		case "pattern":
			s, isStr := v.(string)
			if !isStr {
				return nil
			}
			re, err := regexp.Compile(s)
			ok = err == nil
			c.pattern = re
		default:
			valid := annotations[k]
			ok = valid != nil && valid(v)
		}
		if !ok {
			return nil
		}
	}
	return c
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// fieldErr is a validation failure at a field path ("" for the whole input).
type fieldErr struct {
	path, msg string
}

func (e *fieldErr) Error() string {
	if e.path == "" {
		return e.msg
	}
	return fmt.Sprintf("field %q %s", clip.String(e.path, maxEcho), e.msg)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// maxEcho bounds what an error repeats of a field's name or path: a key
// of megabytes is cut, with its size.
const maxEcho = 200

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 40 {
		return string(b[:37]) + "..."
	}
	return string(b)
}

func (c *checker) check(v any, path string) *fieldErr {
	if len(c.types) > 0 {
		t := jsonType(v)
		if !slices.Contains(c.types, t) && !(t == "integer" && slices.Contains(c.types, "number")) {
			want := strings.Join(slices.DeleteFunc(slices.Clone(c.types), func(s string) bool { return s == "null" && len(c.types) > 1 }), " or ")
			return &fieldErr{path, fmt.Sprintf("must be %s %s, not %s %s", article(want), want, article(t), t+" ("+short(v)+")")}
		}
	}
	if c.enum != nil && !slices.ContainsFunc(c.enum, func(e any) bool { return jsonEqual(e, v) }) {
		var opts []string
		for _, e := range c.enum {
			opts = append(opts, short(e))
		}
		return &fieldErr{path, fmt.Sprintf("must be one of %s; got %s", strings.Join(opts, ", "), short(v))}
	}
	if c.constVal != nil && !jsonEqual(*c.constVal, v) {
		return &fieldErr{path, fmt.Sprintf("must be %s; got %s", short(*c.constVal), short(v))}
	}
	switch x := v.(type) {
	case float64:
		switch {
		case c.min != nil && x < *c.min:
			return &fieldErr{path, fmt.Sprintf("must be at least %v; got %v", *c.min, x)}
		case c.max != nil && x > *c.max:
			return &fieldErr{path, fmt.Sprintf("must be at most %v; got %v", *c.max, x)}
		case c.xmin != nil && x <= *c.xmin:
			return &fieldErr{path, fmt.Sprintf("must be greater than %v; got %v", *c.xmin, x)}
		case c.xmax != nil && x >= *c.xmax:
			return &fieldErr{path, fmt.Sprintf("must be less than %v; got %v", *c.xmax, x)}
		}
	case string:
		if c.minLen != nil || c.maxLen != nil {
			n := utf8.RuneCountInString(x)
			if c.minLen != nil && n < *c.minLen {
				return &fieldErr{path, fmt.Sprintf("must be at least %d characters long; got %d", *c.minLen, n)}
			}
			if c.maxLen != nil && n > *c.maxLen {
				return &fieldErr{path, fmt.Sprintf("must be at most %d characters long; got %d", *c.maxLen, n)}
			}
		}
		if c.pattern != nil && !c.pattern.MatchString(x) {
			return &fieldErr{path, fmt.Sprintf("must match the pattern %s; got %s", strconv.Quote(c.pattern.String()), short(x))}
		}
	case []any:
		if c.minItems != nil && len(x) < *c.minItems {
			return &fieldErr{path, fmt.Sprintf("must have at least %d items; got %d", *c.minItems, len(x))}
		}
		if c.maxItems != nil && len(x) > *c.maxItems {
			return &fieldErr{path, fmt.Sprintf("must have at most %d items; got %d", *c.maxItems, len(x))}
		}
		if c.items != nil {
			for i, e := range x {
				if err := c.items.check(e, path+"["+strconv.Itoa(i)+"]"); err != nil {
					return err
				}
			}
		}
	case map[string]any:
		for _, r := range c.required {
			if _, ok := x[r]; !ok {
				return &fieldErr{"", fmt.Sprintf("missing required field %q", clip.String(join(path, r), maxEcho))}
			}
		}
		for k, e := range x {
			if p := c.props[k]; p != nil {
				if err := p.check(e, join(path, k)); err != nil {
					return err
				}
				continue
			}
			if c.addl != nil {
				if err := c.addl.check(e, join(path, k)); err != nil {
					return err
				}
			} else if c.addlFalse {
				return &fieldErr{"", fmt.Sprintf("unknown field %q (the fields are: %s)", clip.String(join(path, k), maxEcho), strings.Join(c.propNames, ", "))}
			}
		}
	}
	return nil
}

func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an"
	}
	return "a"
}

func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case []any, map[string]any:
		ab, _ := json.Marshal(x)
		bb, _ := json.Marshal(b)
		return string(ab) == string(bb)
	}
	return a == b
}
