package outside

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitOrSkip returns git's path; without git the test is skipped, except
// in CI, where it fails.
func gitOrSkip(t testing.TB) string {
	g, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is needed")
		}
		t.Skip("needs git")
	}
	return g
}

// byGit writes b to a file and lists it with git itself.
func byGit(t testing.TB, dir string, b []byte) ([]ConfigEntry, error) {
	p := filepath.Join(dir, "config")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return gitConfigListByGit(p)
}

// TestPlainConfigTypical: the configurations git itself writes (git init,
// a remote, a branch, a user) are in the plain subset, so checking a git
// command in such a repository starts no process.
func TestPlainConfigTypical(t *testing.T) {
	gitOrSkip(t)
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	run("remote", "add", "origin", "https://example.com/team/repo.git")
	run("config", "user.name", "Ada Lovelace")
	run("config", "user.email", "ada@example.com")
	run("config", "branch.main.remote", "origin")
	run("config", "branch.main.merge", "refs/heads/main")
	b, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := parsePlainConfig(b)
	if !ok {
		t.Fatalf("git's own configuration is not in the plain subset:\n%s", b)
	}
	want, err := gitConfigListByGit(filepath.Join(dir, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("read here:\n%q\nby git:\n%q", got, want)
	}
}

// configPieces are lines and fragments, in and out of the plain subset,
// that the differential test combines.
var configPieces = []string{
	"[core]", "[Core]", "[remote \"origin\"]", "[remote \"Or.igin\"]", "[branch \"a b\"]", "[core.sub]",
	"[remote \"x\\\"y\"]", "[ core ]", "[core]  ", "[core] bare = true", "[remote  \"a\"]", "[remote \"\"]",
	"[-]", "[a-b]", "[9]", "[]", "[core", "\t[core]", "[remote \"a\"b]",
	"\tbare = false", "bare=true", "Bare = TRUE", "\tfilemode", "\tfilemode  ", "key =", "key = ", "k-2 = v",
	"\turl = https://example.com/a.git", "\tfetch = +refs/heads/*:refs/remotes/origin/*",
	"\tname = Ada  Lovelace", "\tname = a\tb", "\tv = \"quoted\"", "\tv = a # comment", "\tv = a ; c", "\tv = a\\",
	"\tv = a\\nb", "\t2key = v", "\tkey.x = v", "\tkey x = v", "\t-key = v", "\tkey = v=w", "\tkey == v",
	"# comment", "; comment", "   # indented", "", "\t", "\tv = \u00e9", "\tv = a\rb", "\xef\xbb\xbf[core]",
	"\tsshCommand = ssh -i key", "\thooksPath = /tmp/h", "[include]", "\tpath = other", "[includeIf \"gitdir:x\"]",
	"\tfsmonitor = true", "\tv = a  b  ", "\tv =   a", "key", "\tpager = less -R",
}

// TestPlainConfigMatchesGit: over thousands of configurations made of
// configPieces, whatever the plain reader accepts, git reads the same,
// entry for entry; and it accepts a good share of them (else the test
// would prove nothing).
func TestPlainConfigMatchesGit(t *testing.T) {
	gitOrSkip(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	n := 1500
	if testing.Short() {
		n = 300
	}
	accepted := 0
	for i := 0; i < n; i++ {
		var b strings.Builder
		if r.IntN(4) > 0 {
			b.WriteString("[core]\n")
		}
		for j := r.IntN(8); j >= 0; j-- {
			b.WriteString(configPieces[r.IntN(len(configPieces))])
			if j > 0 || r.IntN(3) > 0 {
				b.WriteByte('\n')
			}
		}
		if compare(t, dir, []byte(b.String())) {
			accepted++
		}
	}
	t.Logf("%d of %d configurations in the plain subset, each read the same by git", accepted, n)
	if accepted < n/10 {
		t.Errorf("only %d of %d configurations were in the plain subset", accepted, n)
	}
}

// compare checks that a configuration the plain reader accepts is one git
// reads the same way, and reports whether it accepted it.
func compare(t testing.TB, dir string, b []byte) bool {
	got, ok := parsePlainConfig(b)
	if !ok {
		return false
	}
	want, err := byGit(t, dir, b)
	if err != nil {
		t.Fatalf("read here as %q, but git refuses it (%v):\n%s", got, err, b)
	}
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Fatalf("read here:\n%q\nby git:\n%q\nfrom:\n%s", got, want, b)
	}
	return true
}

// FuzzPlainConfig: any input the plain reader accepts, git reads the
// same.
func FuzzPlainConfig(f *testing.F) {
	gitOrSkip(f)
	for _, p := range configPieces {
		f.Add([]byte("[core]\n" + p + "\n"))
	}
	f.Add([]byte("[remote \"origin\"]\n\turl = https://x/y\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if bytes.Count(b, []byte{'\n'}) > 64 {
			return
		}
		compare(t, dir, b)
	})
}
