package shell

import (
	"strings"
)

// cmdName is the command name used by the deny-side checks: the base name,
// so /bin/rm and ./rm are judged like rm.
func cmdName(w word) string {
	s := w.Value
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ash": true, "mksh": true, "fish": true, "csh": true, "tcsh": true, "rbash": true, "yash": true}

// peeled is a command with the commands it runs through wrappers.
type peeled struct {
	argvs   [][]word
	sudo    []bool
	scripts []string
	dynamic string
	deep    bool
}

func (an *analyzer) gather(argv []word, p *peeled, depth int, sudo bool) {
	p.argvs = append(p.argvs, argv)
	p.sudo = append(p.sudo, sudo)
	if len(argv) == 0 {
		return
	}
	if depth > maxPeelDepth {
		p.deep = true
		return
	}
	name := cmdName(argv[0])
	inners, scripts := peelOne(name, argv[1:])
	p.scripts = append(p.scripts, scripts...)
	for _, in := range inners {
		if len(in) == 0 {
			continue
		}
		if (!in[0].Literal || in[0].Glob) && p.dynamic == "" {
			p.dynamic = in[0].Value
		}
		an.gather(in, p, depth+1, sudo || name == "sudo" || name == "doas")
	}
}

// skipOpts skips leading options of a wrapper. withVal lists short options
// taking a value; longVal lists long options taking a value in the next word.
func skipOpts(args []word, withVal, longVal string) []word {
	for len(args) > 0 {
		a := args[0].Value
		if a == "--" {
			return args[1:]
		}
		if len(a) < 2 || a[0] != '-' {
			return args
		}
		args = args[1:]
		if strings.HasPrefix(a, "--") {
			if !strings.Contains(a, "=") && strings.Contains(" "+longVal+" ", " "+a[2:]+" ") && len(args) > 0 {
				args = args[1:]
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(withVal, a[j]) >= 0 {
				if j == len(a)-1 && len(args) > 0 {
					args = args[1:]
				}
				break
			}
		}
	}
	return args
}

func skipAssigns(args []word) []word {
	for len(args) > 0 && isAssignWord(args[0].Value) {
		args = args[1:]
	}
	return args
}

func isAssignWord(s string) bool {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func joinWords(ws []word) string {
	return strings.Join(argvStrings(ws), " ")
}

// peelOne returns the commands a wrapper runs, and shell scripts it runs.
func peelOne(name string, args []word) ([][]word, []string) {
	one := func(a []word) [][]word { return [][]word{a} }
	switch name {
	case "sudo", "doas":
		return one(skipAssigns(skipOpts(args, "ugCDhprtTUa", "user group close-from chdir host prompt role type command-timeout other-user"))), nil
	case "env":
		var scripts []string
		rest := args
		for len(rest) > 0 {
			a := rest[0].Value
			if a == "-S" || a == "--split-string" {
				if len(rest) > 1 {
					scripts = append(scripts, joinWords(rest[1:]))
				}
				return nil, scripts
			}
			if strings.HasPrefix(a, "--split-string=") || strings.HasPrefix(a, "-S") && len(a) > 2 {
				v := strings.TrimPrefix(strings.TrimPrefix(a, "--split-string="), "-S")
				scripts = append(scripts, v+" "+joinWords(rest[1:]))
				return nil, scripts
			}
			break
		}
		return one(skipAssigns(skipOpts(args, "uCP", "unset chdir"))), nil
	case "nice":
		return one(skipOpts(args, "n", "adjustment")), nil
	case "busybox", "toybox":
		return one(args), nil
	case "nohup", "builtin", "setsid", "unbuffer", "caffeinate", "catchsegv", "pkexec", "fakeroot", "proxychains",
		"proxychains4", "torsocks", "firejail", "unshare", "systemd-run", "nsenter", "chronic", "doas-keepenv":
		return one(skipOpts(args, "", "")), nil
	case "time":
		return one(skipOpts(args, "fo", "format output")), nil
	case "timeout":
		r := skipOpts(args, "sk", "signal kill-after")
		if len(r) > 0 {
			r = r[1:]
		}
		return one(r), nil
	case "stdbuf":
		return one(skipOpts(args, "ioe", "input output error")), nil
	case "command":
		for _, a := range args {
			if a.Value == "-v" || a.Value == "-V" {
				return nil, nil
			}
			if !strings.HasPrefix(a.Value, "-") {
				break
			}
		}
		return one(skipOpts(args, "", "")), nil
	case "exec":
		return one(skipOpts(args, "a", "")), nil
	case "xargs":
		return one(skipOpts(args, "ILnPsdEa", "max-args max-lines max-procs max-chars delimiter arg-file process-slot-var")), nil
	case "ionice":
		return one(skipOpts(args, "cnp", "class classdata pid")), nil
	case "taskset":
		r := skipOpts(args, "", "")
		if len(r) > 0 {
			r = r[1:]
		}
		return one(r), nil
	case "flock":
		r := skipOpts(args, "wEc", "timeout conflict-exit-code command")
		for i, a := range args {
			if (a.Value == "-c" || a.Value == "--command") && i+1 < len(args) {
				return nil, []string{args[i+1].Value}
			}
		}
		if len(r) > 0 {
			r = r[1:]
		}
		return one(r), nil
	case "strace", "ltrace":
		return one(skipOpts(args, "oepsuEaSPXI", "output")), nil
	case "chroot":
		r := skipOpts(args, "", "userspec groups")
		if len(r) > 0 {
			r = r[1:]
		}
		return one(r), nil
	case "watch":
		r := skipOpts(args, "nq", "interval")
		if len(r) > 0 {
			return one(r), []string{joinWords(r)}
		}
		return nil, nil
	case "eval":
		if len(args) > 0 {
			return nil, []string{joinWords(args)}
		}
		return nil, nil
	case "su", "runuser", "sg", "script":
		for i, a := range args {
			if (a.Value == "-c" || a.Value == "--command") && i+1 < len(args) {
				return nil, []string{args[i+1].Value}
			}
			if strings.HasPrefix(a.Value, "--command=") {
				return nil, []string{strings.TrimPrefix(a.Value, "--command=")}
			}
		}
		return nil, nil
	case "find":
		var out [][]word
		for i := 0; i < len(args); i++ {
			switch args[i].Value {
			case "-exec", "-execdir", "-ok", "-okdir":
				j := i + 1
				for j < len(args) && args[j].Value != ";" && args[j].Value != "+" {
					j++
				}
				out = append(out, args[i+1:j])
				i = j
			}
		}
		return out, nil
	}
	if shells[name] {
		hasC := false
		for i := 0; i < len(args); i++ {
			s := args[i].Value
			switch {
			case s == "--":
				if hasC && i+1 < len(args) {
					return nil, []string{args[i+1].Value}
				}
				return nil, nil
			case s == "-o" || s == "+o" || s == "-O" || s == "+O" || s == "--rcfile" || s == "--init-file":
				i++
			case s == "--command" || s == "-c":
				hasC = true
			case strings.HasPrefix(s, "--"):
			case len(s) > 1 && (s[0] == '-' || s[0] == '+'):
				if strings.ContainsRune(s[1:], 'c') {
					hasC = true
				}
			default:
				if hasC {
					return nil, []string{s}
				}
				return nil, nil
			}
		}
	}
	return nil, nil
}
