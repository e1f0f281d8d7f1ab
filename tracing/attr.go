package tracing

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ValueKind is the type of a [Value].
type ValueKind uint8

// The kinds of values, those of OTLP's AnyValue that toolscope uses.
const (
	KindEmpty ValueKind = iota
	KindString
	KindBool
	KindInt
	KindFloat
	KindStrings
)

// Value is an attribute's value: a string, a bool, an int64, a float64 or
// a list of strings.
type Value struct {
	kind ValueKind
	s    string
	n    int64
	f    float64
	ss   []string
}

// Kind returns the value's type.
func (v Value) Kind() ValueKind { return v.kind }

// Str returns a string value ("" for another kind).
func (v Value) Str() string { return v.s }

// Int returns an int value (0 for another kind).
func (v Value) Int() int64 { return v.n }

// Bool returns a bool value.
func (v Value) Bool() bool { return v.kind == KindBool && v.n != 0 }

// Float returns a float value.
func (v Value) Float() float64 { return v.f }

// Strings returns a list value.
func (v Value) Strings() []string { return v.ss }

// String formats the value, for tests and logs.
func (v Value) String() string {
	switch v.kind {
	case KindString:
		return v.s
	case KindBool:
		return strconv.FormatBool(v.n != 0)
	case KindInt:
		return strconv.FormatInt(v.n, 10)
	case KindFloat:
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	case KindStrings:
		return fmt.Sprintf("%q", v.ss)
	}
	return ""
}

// Attr is a span attribute: a key ("gen_ai.tool.name") and its value.
type Attr struct {
	Key   string
	Value Value
}

// maxValue bounds a string attribute, in bytes (longer ones are cut on a
// rune boundary and end with "…").
const maxValue = 8 << 10

// String returns a string attribute; a value over 8 KiB is cut.
func String(key, v string) Attr {
	return Attr{key, Value{kind: KindString, s: truncate(v, maxValue)}}
}

// Bool returns a bool attribute.
func Bool(key string, v bool) Attr {
	var n int64
	if v {
		n = 1
	}
	return Attr{key, Value{kind: KindBool, n: n}}
}

// Int returns an int attribute.
func Int(key string, v int64) Attr { return Attr{key, Value{kind: KindInt, n: v}} }

// Float returns a float attribute.
func Float(key string, v float64) Attr { return Attr{key, Value{kind: KindFloat, f: v}} }

// Strings returns a string list attribute.
func Strings(key string, v []string) Attr {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = truncate(s, maxValue)
	}
	return Attr{key, Value{kind: KindStrings, ss: out}}
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut,
// and makes it valid UTF-8 (protobuf strings must be).
func truncate(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
