package shell

import (
	"path/filepath"
	"strings"
)

// hasMeta reports whether s contains a glob metacharacter.
func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

func splitComps(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
}

// matchName compares a path component (possibly a glob pattern) with a
// protected name, case-insensitively.
func matchName(comp, name string, glob bool) bool {
	if strings.EqualFold(comp, name) {
		return true
	}
	if glob && hasMeta(comp) {
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(comp, ".") {
			return false // a leading dot must be matched explicitly
		}
		if !strings.HasPrefix(name, ".") && strings.IndexAny(comp, "*?[") == 0 {
			return false // a bare * is not taken to aim at id_rsa and friends
		}
		ok, err := filepath.Match(strings.ToLower(comp), strings.ToLower(name))
		return ok || err != nil
	}
	return false
}

// pathForms returns the raw spelling and, when it resolves, the cleaned
// absolute form of a path word.
func (an *analyzer) pathForms(w word, cwd string) []string {
	forms := []string{w.s}
	if p, ok := an.resolve(w, cwd); ok && p != w.s {
		forms = append(forms, p)
	}
	return forms
}

// anyComponentIs reports whether a path component matches one of names
// (case-insensitively; as a glob pattern when glob is set).
func anyComponentIs(comps, names []string, glob bool) bool {
	for _, c := range comps {
		for _, n := range names {
			if matchName(c, n, glob) {
				return true
			}
		}
	}
	return false
}

// isDangerousTarget reports whether writing p would touch a protected file
// or directory (by name, anywhere in the path).
func (an *analyzer) isDangerousTarget(w word, cwd string) bool {
	if w.s == "" {
		return false
	}
	for _, p := range an.pathForms(w, cwd) {
		comps := splitComps(p)
		if len(comps) == 0 {
			continue
		}
		if anyComponentIs(comps, an.cfg.dangerDirs, w.glob) {
			return true
		}
		last := comps[len(comps)-1]
		lp := strings.ToLower(p)
		for _, f := range an.cfg.dangerFiles {
			if strings.Contains(f, "/") {
				lf := strings.ToLower(f)
				if lp == lf || strings.HasSuffix(lp, "/"+lf) {
					return true
				}
				if w.glob {
					fc := splitComps(f)
					if len(comps) >= len(fc) {
						ok := true
						for i := range fc {
							if !matchName(comps[len(comps)-len(fc)+i], fc[i], true) {
								ok = false
							}
						}
						if ok {
							return true
						}
					}
				}
				continue
			}
			if matchName(last, f, w.glob) {
				return true
			}
			if f == ".env" && strings.HasPrefix(strings.ToLower(last), ".env.") && !envTemplate(last) {
				return true
			}
		}
	}
	return false
}

var secretBaseNames = []string{
	".env", ".env.local", ".env.production", ".env.development", ".envrc",
	".netrc", ".npmrc", ".pypirc", ".pgpass", ".git-credentials",
	"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
	".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history",
}

var secretDirs = []string{".ssh", ".aws", ".gnupg"}

var secretSuffixes = []string{".kube/config", ".docker/config.json", ".config/gh/hosts.yml", ".config/gcloud/credentials.db"}

var secretAbs = []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/master.passwd", "/etc/shadow-", "/etc/gshadow-"}

// isSecret reports whether reading s (a path, possibly a glob) could expose
// credentials.
func (an *analyzer) isSecret(w word, cwd string) bool {
	if w.s == "" {
		return false
	}
	if !w.glob && !containsAnyFold(w.s, secretKeywords) && !an.secretCwd(cwd) {
		return false
	}
	for _, p := range an.pathForms(w, cwd) {
		comps := splitComps(p)
		if len(comps) == 0 {
			continue
		}
		if anyComponentIs(comps, secretDirs, w.glob) {
			return true
		}
		last := strings.ToLower(comps[len(comps)-1])
		if strings.HasPrefix(last, ".env") && !envTemplate(last) {
			if last == ".env" || last == ".envrc" || strings.HasPrefix(last, ".env.") {
				return true
			}
		}
		for _, k := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"} {
			if strings.HasPrefix(last, k) {
				return true
			}
		}
		for _, n := range secretBaseNames {
			if matchName(last, n, w.glob) {
				return true
			}
		}
		lp := strings.ToLower(p)
		for _, s := range secretSuffixes {
			if lp == s || strings.HasSuffix(lp, "/"+s) {
				return true
			}
		}
		if filepath.IsAbs(p) {
			for _, s := range secretAbs {
				if lp == s || strings.HasSuffix(lp, s) || w.glob && globMatch(lp, s) {
					return true
				}
			}
			if len(comps) >= 3 && comps[0] == "proc" && (comps[len(comps)-1] == "environ" || comps[len(comps)-1] == "mem" ||
				w.glob && globMatch(comps[len(comps)-1], "environ")) {
				return true
			}
			if len(comps) == 3 && comps[0] == "etc" && comps[1] == "ssh" && (strings.HasSuffix(last, "_key") || w.glob) {
				return true
			}
		}
	}
	return false
}

func globMatch(pattern, name string) bool {
	ok, err := filepath.Match(pattern, name)
	return ok || err != nil
}

// wordCandidates yields the spellings of a path that a word may carry: the
// word itself and the values after '=' or ':' (--file=.env, HEAD:.env).
func wordCandidates(w word, fn func(word) bool) bool {
	if fn(w) {
		return true
	}
	s := w.s
	for i := 0; i < len(s); i++ {
		if s[i] == '=' || s[i] == ':' || s[i] == '@' {
			v := w
			v.s = s[i+1:]
			v.tilde = strings.HasPrefix(v.s, "~")
			if v.s != "" && fn(v) {
				return true
			}
		}
	}
	if len(s) > 2 && s[0] == '-' && s[1] != '-' {
		v := w
		v.s = s[2:]
		if fn(v) {
			return true
		}
	}
	return false
}

// critical reports whether removing p would remove a critical directory:
// the root, the home directory or a direct child of the root.
func (an *analyzer) critical(p string) bool {
	return p == "/" || (an.cfg.home != "" && p == an.cfg.home) || filepath.Dir(p) == "/"
}

// searchers read file contents recursively.
var searchers = map[string]bool{"grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true, "ack": true, "zgrep": true}

// coversHome reports whether a recursive read of p would include the home
// directory (p is the root, the home, or an ancestor of it).
func (an *analyzer) coversHome(p string) bool {
	if p == "/" {
		return true
	}
	if an.cfg.home == "" {
		return false
	}
	rel, err := filepath.Rel(p, an.cfg.home)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// secretKeywords: a path can only be a secret if its spelling contains one
// of these (or it is a glob, or it is relative to a secret directory).
var secretKeywords = []string{".env", "id_", ".ssh", ".aws", ".gnupg", "netrc", "npmrc", "pypirc", ".pgpass",
	".git-credentials", "history", ".kube", ".docker", "gh/hosts", "gcloud", "shadow", "sudoers", "master.passwd",
	"environ", "/mem", "_key"}

func containsAnyFold(s string, keys []string) bool {
	for _, k := range keys {
		n := len(k)
		for i := 0; i+n <= len(s); i++ {
			if strings.EqualFold(s[i:i+n], k) {
				return true
			}
		}
	}
	return false
}

// secretCwd reports whether relative paths under cwd may be secrets.
func (an *analyzer) secretCwd(cwd string) bool {
	if an.secretCwdFor == cwd && an.secretCwdSet {
		return an.secretCwdVal
	}
	v := containsAnyFold(cwd, secretKeywords)
	if strings.HasPrefix(cwd, "/proc") || strings.HasPrefix(cwd, "/etc") || cwd == "/" || strings.Contains(strings.ToLower(cwd), "/.kube") ||
		strings.Contains(strings.ToLower(cwd), "/.docker") || strings.Contains(strings.ToLower(cwd), "/.config") {
		v = true
	}
	an.secretCwdFor, an.secretCwdVal, an.secretCwdSet = cwd, v, true
	return v
}

// envTemplate reports .env.example-style files, which hold no secrets.
func envTemplate(name string) bool {
	name = strings.ToLower(name)
	for _, suf := range []string{".example", ".sample", ".template", ".dist", ".defaults"} {
		if strings.HasSuffix(name, suf) {
			return true
		}
	}
	return false
}
