package shell

import "strings"

// argKind says how an option treats a value.
type argKind uint8

const (
	fNone     argKind = iota + 1 // takes no value
	fValue                       // requires a value, attached or in the next word
	fOptValue                    // optional value, attached only (-iSUF, --in-place=SUF)
	fDeny                        // using it disqualifies the command
)

// flagSpec describes a tool's options. Short options are single bytes; long
// options are names without the leading "--". GNU long options accept any
// unambiguous abbreviation, so a long option that is a prefix of a denied
// name is denied too.
type flagSpec struct {
	short       map[byte]argKind
	long        map[string]argKind
	strictShort bool // unknown short options are refused
	strictLong  bool // unknown long options are refused
	posix       bool // options end at the first operand
}

type opt struct {
	name     string // "o" or "output"
	long     bool
	value    string
	hasValue bool
	kind     argKind
}

type flagResult struct {
	opts     []opt
	operands []word
	bad      string // the first refused option, "" if none
}

func (r *flagResult) has(names ...string) bool {
	for _, o := range r.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

func (r *flagResult) value(names ...string) (string, bool) {
	for _, o := range r.opts {
		for _, n := range names {
			if o.name == n {
				return o.value, o.hasValue
			}
		}
	}
	return "", false
}

// resolveLong maps a (possibly abbreviated) long option to its canonical
// name and kind. ok is false for unknown or ambiguous names.
func (fs *flagSpec) resolveLong(name string) (string, argKind, bool) {
	if k, ok := fs.long[name]; ok {
		return name, k, true
	}
	if name == "" {
		return name, 0, false
	}
	var found string
	var kind argKind
	n := 0
	for k, v := range fs.long {
		if strings.HasPrefix(k, name) {
			if v == fDeny {
				return k, fDeny, true
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

// parseFlags splits args (without argv[0]) into options and operands.
func parseFlags(fs *flagSpec, args []word) flagResult {
	var r flagResult
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if a == "--" {
			r.operands = append(r.operands, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			r.operands = append(r.operands, args[i])
			if fs.posix {
				r.operands = append(r.operands, args[i+1:]...)
				break
			}
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := a[2:], "", false
			if eq := strings.IndexByte(name, '='); eq >= 0 {
				name, val, hasVal = name[:eq], name[eq+1:], true
			}
			canon, kind, ok := fs.resolveLong(name)
			if !ok {
				if fs.strictLong {
					r.setBad("--" + name)
				}
				r.opts = append(r.opts, opt{name: name, long: true, value: val, hasValue: hasVal})
				continue
			}
			switch kind {
			case fDeny:
				r.setBad("--" + name)
			case fValue:
				if !hasVal && i+1 < len(args) {
					i++
					val, hasVal = args[i].Value, true
				}
			case fNone:
				if hasVal && fs.strictLong {
					r.setBad("--" + name)
				}
			}
			r.opts = append(r.opts, opt{name: canon, long: true, value: val, hasValue: hasVal, kind: kind})
			continue
		}
		// short cluster
		for j := 1; j < len(a); j++ {
			c := a[j]
			kind := fs.short[c]
			if kind == 0 {
				if fs.strictShort {
					r.setBad("-" + string(c))
				}
				r.opts = append(r.opts, opt{name: string(c)})
				continue
			}
			o := opt{name: string(c), kind: kind}
			switch kind {
			case fDeny:
				r.setBad("-" + string(c))
			case fValue:
				if j+1 < len(a) {
					o.value, o.hasValue = a[j+1:], true
				} else if i+1 < len(args) {
					i++
					o.value, o.hasValue = args[i].Value, true
				}
				j = len(a)
			case fOptValue:
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

func (r *flagResult) setBad(s string) {
	if r.bad == "" {
		r.bad = s
	}
}

// shorts builds a short-option table: chars in none take no value, chars in
// val take a value, chars in deny are refused.
func shorts(none, val, deny string) map[byte]argKind {
	m := make(map[byte]argKind, len(none)+len(val)+len(deny))
	for i := 0; i < len(none); i++ {
		m[none[i]] = fNone
	}
	for i := 0; i < len(val); i++ {
		m[val[i]] = fValue
	}
	for i := 0; i < len(deny); i++ {
		m[deny[i]] = fDeny
	}
	return m
}

// longs builds a long-option table from space-separated lists.
func longs(none, val, deny string) map[string]argKind {
	m := map[string]argKind{}
	for _, n := range strings.Fields(none) {
		m[n] = fNone
	}
	for _, n := range strings.Fields(val) {
		m[n] = fValue
	}
	for _, n := range strings.Fields(deny) {
		m[n] = fDeny
	}
	return m
}
