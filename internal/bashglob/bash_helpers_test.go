package bashglob

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// needBash returns the path of a bash >= 5.2 running in a UTF-8 locale, or
// skips the test. When the CI environment variable is set, a missing or
// unsuitable bash fails the test instead.
func needBash(t *testing.T) string {
	t.Helper()
	miss := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format+" (CI is set, so this is an error)", args...)
		}
		t.Skipf(format+"; skipping the comparison with bash (set CI to make this an error)", args...)
	}
	path, err := exec.LookPath("bash")
	if err != nil {
		miss("bash not found in PATH")
	}
	out, err := bashCmd(path, `printf '%s.%s %s' "${BASH_VERSINFO[0]}" "${BASH_VERSINFO[1]}" "${#x}"`, "").Output()
	if err != nil {
		miss("running bash: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		miss("unexpected bash output %q", out)
	}
	v := strings.SplitN(f[0], ".", 2)
	major, _ := strconv.Atoi(v[0])
	minor, _ := strconv.Atoi(v[1])
	if major < 5 || (major == 5 && minor < 2) {
		miss("bash %s is older than 5.2", f[0])
	}
	if f[1] != "1" {
		miss("bash does not run in a UTF-8 locale with LC_ALL=C.UTF-8 (length of é is %s)", f[1])
	}
	if f[0] != "5.2" {
		t.Logf("note: comparing with bash %s; this package follows bash 5.2", f[0])
	}
	return path
}

// bashCmd runs script with bash in C.UTF-8, with a clean environment.
func bashCmd(bash, script, dir string) *exec.Cmd {
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", `x=é; `+script, "bash", dir)
	cmd.Env = []string{"LC_ALL=C.UTF-8", "PATH=" + os.Getenv("PATH")}
	return cmd
}

// sourceWord returns bash source text for a word whose internal quoted
// form is the pattern p: every escaped character becomes a quoted one, and
// unescaped characters stay unquoted when that is possible. Unescaped
// characters that the shell's parser would treat specially are quoted
// too, which does not change their meaning in a pattern (the generators
// never produce an unescaped '(' after '!', '+' or '@').
func sourceWord(p string) string {
	var b strings.Builder
	quote := func(s string) {
		if s == "'" {
			b.WriteString(`\'`)
			return
		}
		b.WriteString("'" + s + "'")
	}
	for i := 0; i < len(p); {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			_, n := decodeWide(p[i+1:])
			if n == 0 {
				n = 1
			}
			quote(p[i+1 : i+1+n])
			i += 1 + n
			continue
		}
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c >= 0x80,
			strings.IndexByte("*?[]!^-:=._,+%@/", c) >= 0:
			b.WriteByte(c)
		default:
			quote(string(c))
		}
		i++
	}
	return b.String()
}

// shellString returns a bash $'...' literal for an arbitrary string.
func shellString(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		b.WriteString(`\x`)
		b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
	}
	b.WriteString("'")
	return b.String()
}

// bashExpand returns, for every pattern, the words bash produces for it in
// a for loop run in dir with the given shopt settings (nullglob off).
func bashExpand(t *testing.T, bash, dir string, shopts string, patterns []string) [][]string {
	t.Helper()
	var s strings.Builder
	s.WriteString("cd -- \"$1\" || exit 1\n")
	if shopts != "" {
		s.WriteString("shopt " + shopts + "\n")
	}
	for _, p := range patterns {
		s.WriteString("for f in " + sourceWord(p) + "; do printf '%s\\0' \"$f\"; done; printf '\\0'\n")
	}
	script := filepath.Join(t.TempDir(), "expand.sh")
	if err := os.WriteFile(script, []byte(s.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := bashCmd(bash, `. "$2"`, dir)
	cmd.Args = append(cmd.Args, script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, stderr.String())
	}
	recs := strings.Split(string(out), "\x00")
	var res [][]string
	var cur []string
	for _, r := range recs[:len(recs)-1] {
		if r == "" {
			res = append(res, cur)
			cur = nil
			continue
		}
		cur = append(cur, r)
	}
	if len(res) != len(patterns) {
		t.Fatalf("bash produced %d results for %d patterns", len(res), len(patterns))
	}
	return res
}

// bashCase returns, for every (pattern, name) pair, whether bash's case
// statement matches the name against the pattern.
func bashCase(t *testing.T, bash string, shopts string, patterns, names []string) [][]bool {
	t.Helper()
	var s strings.Builder
	if shopts != "" {
		s.WriteString("shopt " + shopts + "\n")
	}
	s.WriteString("names=(")
	for _, n := range names {
		s.WriteString(" " + shellString(n))
	}
	s.WriteString(")\n")
	for _, p := range patterns {
		s.WriteString("for n in \"${names[@]}\"; do case $n in " + sourceWord(p) + ") printf 1;; *) printf 0;; esac; done; printf '\\n'\n")
	}
	script := filepath.Join(t.TempDir(), "case.sh")
	if err := os.WriteFile(script, []byte(s.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := bashCmd(bash, `. "$2"`, "")
	cmd.Args = append(cmd.Args, script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(patterns) {
		t.Fatalf("bash produced %d lines for %d patterns", len(lines), len(patterns))
	}
	res := make([][]bool, len(patterns))
	for i, l := range lines {
		if len(l) != len(names) {
			t.Fatalf("bash produced %d answers for %d names", len(l), len(names))
		}
		for _, c := range l {
			res[i] = append(res[i], c == '1')
		}
	}
	return res
}
