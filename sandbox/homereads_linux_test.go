//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHomeUnreadable: under the sandbox, files in the home directory that
// no secret list names (another tool's token, another project's .env,
// shell history) cannot be read, while the project inside the home, the
// toolchain caches of DefaultHomeReads and Config.AllowRead can; a link
// from a readable place into the home leads nowhere.
func TestHomeUnreadable(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "src", "proj")
	files := map[string]string{
		".codex/auth.json":                 "CODEXTOKEN",
		".config/some-cli/hosts.yml":       "CLITOKEN",
		"other/.env.local.bak":             "OTHERENV",
		"notes.txt":                        "PRIVATENOTES",
		".local/share/app/logins.json":     "LOGINS",
		"go/pkg/mod/example.com/m@v1/m.go": "MODCACHE",
		".cargo/registry/index/x":          "CARGOREG",
		"allowed/extra.txt":                "EXTRAREAD",
		"src/proj/main.txt":                "PROJECTFILE",
		".gitconfig":                       "[user]\n\tname = GITNAME\n",
	}
	for rel, content := range files {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := t.TempDir()
	if err := os.Symlink(home, filepath.Join(outside, "homelink")); err != nil {
		t.Fatal(err)
	}
	s, st := newSandbox(t, &Config{Home: home, AllowRead: []string{filepath.Join(home, "allowed")}})
	need(t, st, FilesystemWrites, HomeReads)
	env := append(os.Environ(), "HOME="+home)
	for _, c := range []struct{ rel, want string }{
		{".codex/auth.json", ""},
		{".config/some-cli/hosts.yml", ""},
		{"other/.env.local.bak", ""},
		{"notes.txt", ""},
		{".local/share/app/logins.json", ""},
		{"go/pkg/mod/example.com/m@v1/m.go", "MODCACHE"},
		{".cargo/registry/index/x", "CARGOREG"},
		{"allowed/extra.txt", "EXTRAREAD"},
		{"src/proj/main.txt", "PROJECTFILE"},
		{".gitconfig", "GITNAME"},
	} {
		secret := strings.TrimSpace(strings.TrimPrefix(files[c.rel], "[user]\n\tname = "))
		for _, path := range []string{filepath.Join(home, c.rel), filepath.Join(outside, "homelink", c.rel)} {
			out, _, _ := run(t, s, proj, `cat "`+path+`" 2>&1; cat "$HOME/`+c.rel+`" 2>&1`, env)
			got := strings.Contains(out, secret)
			if c.want == "" && got {
				t.Errorf("%s: read in the sandbox:\n%s", path, out)
			}
			if c.want != "" && !strings.Contains(out, c.want) && !strings.HasPrefix(path, outside) {
				t.Errorf("%s: not readable in the sandbox:\n%s", path, out)
			}
		}
	}
	// Listing the home works (names are not secret); its files do not.
	out, err, rst := run(t, s, proj, `ls -a "$HOME" >/dev/null && echo listed; grep -r TOKEN "$HOME" 2>/dev/null; echo done`, env)
	if err != nil || !strings.Contains(out, "listed") || strings.Contains(out, "TOKEN\n") || !strings.Contains(out, "done") {
		t.Errorf("listing the home: %v\n%s", err, out)
	}
	if !rst.Has(HomeReads) {
		t.Errorf("the run's status lacks %s: %s", HomeReads, rst)
	}
}

// TestReadableExcept: the read grants skip the excluded paths and the
// links that lead into or above them.
func TestReadableExcept(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(dir, "a", "home")
	for _, d := range []string{"a/home/x", "a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(ex, filepath.Join(dir, "a", "tohome"))
	os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "c", "toa"))
	os.Symlink(filepath.Join(dir, "c"), filepath.Join(dir, "a", "toc"))
	reads, ok := readableExcept([]string{ex})
	if !ok {
		t.Fatal("not ok")
	}
	for _, bad := range []string{ex, filepath.Join(dir, "a"), filepath.Join(dir, "a", "tohome"), filepath.Join(dir, "c", "toa"), dir, "/"} {
		for _, r := range reads {
			if r == bad {
				t.Errorf("%s is granted", bad)
			}
		}
	}
	for _, good := range []string{filepath.Join(dir, "a", "b"), filepath.Join(dir, "a", "toc"), "/usr"} {
		found := false
		for _, r := range reads {
			found = found || r == good
		}
		if !found {
			t.Errorf("%s is not granted: %v", good, reads)
		}
	}
}
