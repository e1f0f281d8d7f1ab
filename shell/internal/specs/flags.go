package specs

import "strings"

// ArgKind says how an option treats a value.
type ArgKind uint8

const (
	ArgNone     ArgKind = iota + 1 // takes no value
	ArgValue                       // requires a value, attached or in the next word
	ArgOptional                    // optional value, attached only (-iSUF, --in-place=SUF)
	ArgDeny                        // using it disqualifies the command
)

// Flags describes a tool's options. Short options are single bytes; long
// options are names without the leading "--". GNU long options accept any
// unambiguous abbreviation, so a long option that is a prefix of a denied
// name is denied too.
type Flags struct {
	Short       map[byte]ArgKind
	Long        map[string]ArgKind
	StrictShort bool // unknown short options are refused
	StrictLong  bool // unknown long options are refused
	posix       bool // options end at the first operand
}

type opt struct {
	name     string // "o" or "output"
	long     bool
	value    string
	hasValue bool
	kind     ArgKind
}

// FlagResult is a command line parsed with Flags.
type FlagResult struct {
	opts     []opt
	Operands []word
	Bad      string // the first refused option, "" if none
}

func (r *FlagResult) Has(names ...string) bool {
	for _, o := range r.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

func (r *FlagResult) Value(names ...string) (string, bool) {
	for _, o := range r.opts {
		for _, n := range names {
			if o.name == n {
				return o.value, o.hasValue
			}
		}
	}
	return "", false
}

// ResolveLong maps a (possibly abbreviated) long option to its canonical
// name and kind. ok is false for unknown or ambiguous names.
func (fs *Flags) ResolveLong(name string) (string, ArgKind, bool) {
	if k, ok := fs.Long[name]; ok {
		return name, k, true
	}
	if name == "" {
		return name, 0, false
	}
	var found string
	var kind ArgKind
	n := 0
	for k, v := range fs.Long {
		if strings.HasPrefix(k, name) {
			if v == ArgDeny {
				return k, ArgDeny, true
			}
			n++
			found, kind = k, v
		}
	}
	if n == 1 {
		return found, kind, true
	}
	return name, 0, false
}

// ParseFlags splits args (without argv[0]) into options and operands.
func ParseFlags(fs *Flags, args []word) FlagResult {
	var r FlagResult
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if a == "--" {
			r.Operands = append(r.Operands, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			r.Operands = append(r.Operands, args[i])
			if fs.posix {
				r.Operands = append(r.Operands, args[i+1:]...)
				break
			}
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := a[2:], "", false
			if eq := strings.IndexByte(name, '='); eq >= 0 {
				name, val, hasVal = name[:eq], name[eq+1:], true
			}
			canon, kind, ok := fs.ResolveLong(name)
			if !ok {
				if fs.StrictLong {
					r.setBad("--" + name)
				}
				r.opts = append(r.opts, opt{name: name, long: true, value: val, hasValue: hasVal})
				continue
			}
			switch kind {
			case ArgDeny:
				r.setBad("--" + name)
			case ArgValue:
				if !hasVal && i+1 < len(args) {
					i++
					val, hasVal = args[i].Value, true
				}
			case ArgNone:
				if hasVal && fs.StrictLong {
					r.setBad("--" + name)
				}
			}
			r.opts = append(r.opts, opt{name: canon, long: true, value: val, hasValue: hasVal, kind: kind})
			continue
		}
		// short cluster
		for j := 1; j < len(a); j++ {
			c := a[j]
			kind := fs.Short[c]
			if kind == 0 {
				if fs.StrictShort {
					r.setBad("-" + string(c))
				}
				r.opts = append(r.opts, opt{name: string(c)})
				continue
			}
			o := opt{name: string(c), kind: kind}
			switch kind {
			case ArgDeny:
				r.setBad("-" + string(c))
			case ArgValue:
				if j+1 < len(a) {
					o.value, o.hasValue = a[j+1:], true
				} else if i+1 < len(args) {
					i++
					o.value, o.hasValue = args[i].Value, true
				}
				j = len(a)
			case ArgOptional:
				if j+1 < len(a) {
					o.value, o.hasValue = a[j+1:], true
				}
				j = len(a)
			}
			r.opts = append(r.opts, o)
		}
	}
	return r
}

func (r *FlagResult) setBad(s string) {
	if r.Bad == "" {
		r.Bad = s
	}
}

// Shorts builds a short-option table: chars in none take no value, chars in
// val take a value, chars in deny are refused.
func Shorts(none, val, deny string) map[byte]ArgKind {
	m := make(map[byte]ArgKind, len(none)+len(val)+len(deny))
	for i := 0; i < len(none); i++ {
		m[none[i]] = ArgNone
	}
	for i := 0; i < len(val); i++ {
		m[val[i]] = ArgValue
	}
	for i := 0; i < len(deny); i++ {
		m[deny[i]] = ArgDeny
	}
	return m
}

// Longs builds a long-option table from space-separated lists.
func Longs(none, val, deny string) map[string]ArgKind {
	m := map[string]ArgKind{}
	for _, n := range strings.Fields(none) {
		m[n] = ArgNone
	}
	for _, n := range strings.Fields(val) {
		m[n] = ArgValue
	}
	for _, n := range strings.Fields(deny) {
		m[n] = ArgDeny
	}
	return m
}
