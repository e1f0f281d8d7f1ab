package pathpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a home with credentials and a project with links into it.
type fixture struct {
	r, home, proj string
	p             *Policy
}

func newFixture(t *testing.T) *fixture {
	r := tree(t, []string{
		"home/.ssh", "home/.aws", "home/.config/gh", "home/.config/gcloud", "home/.config/git", "home/.config/other",
		"home/.kube", "home/.docker", "home/.cargo", "home/.azure", "home/.terraform.d", "home/.gnupg",
		"proj/src", "proj/.git/hooks", "proj/tmpl/.git", "proj/bare.git/objects", "proj/bare.git/refs", "proj2", "out",
	}, map[string]string{
		"proj/awslink":  "@/home/.aws",
		"proj/gl":       ".git",
		"proj/keylink":  "../home/.ssh/id_rsa",
		"proj/outlink":  "@/out",
		"proj/dotenv":   ".env",
		"proj/src/root": "../..",
		"proj/etclink":  "/etc",
	})
	for _, f := range []string{"home/.ssh/id_rsa", "home/.ssh/id_rsa.pub", "home/.aws/credentials", "home/.netrc", "home/_netrc",
		"home/.git-credentials", "home/.docker/config.json", "home/.cargo/credentials.toml", "home/.vault-token", "home/.my.cnf",
		"proj/.env", "proj/.env.local", "proj/.env.example", "proj/main.go", "proj/bare.git/HEAD", "proj/.git/HEAD"} {
		if err := os.WriteFile(filepath.Join(r, f), []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{r: r, home: r + "/home", proj: r + "/proj"}
	f.p = New(&Options{WorkingDirs: []string{f.proj}, Home: f.home})
	return f
}

func TestClassifySecret(t *testing.T) {
	f := newFixture(t)
	secret := []string{
		"@H/.ssh", "@H/.ssh/id_rsa", "@H/.ssh/config", "@H/.aws/credentials", "@H/.config/gh/hosts.yml", "@H/.config/gcloud",
		"@H/.config/git/credentials", "@H/.kube/config", "@H/.docker/config.json", "@H/.netrc", "@H/_netrc",
		"@H/.git-credentials", "@H/.cargo/credentials", "@H/.cargo/credentials.toml", "@H/.vault-token", "@H/.my.cnf",
		"@H/.azure/x", "@H/.terraform.d/credentials.tfrc.json", "@H/.gnupg/private-keys-v1.d",
		"@P/.env", "@P/.env.local", "@P/.env.production", "@P/.env-prod", "@P/sub/.env", "@P/.ENV",
		"@P/awslink/credentials", "@P/awslink", "@P/keylink", "@P/dotenv", "@P/src/root/../home/.ssh/id_rsa",
		"/proc/self/environ", "/proc/1/environ", "/proc/1/task/1/environ", "/dev/fd/../environ", "/proc/self/fd/3",
		"/proc/self/cwd/x", "/var/run/secrets/kubernetes.io/token", "/run/secrets/db", "/etc/shadow",
		"/etc/ssh/ssh_host_ed25519_key", "/other/home/.ssh/id_ed25519", "/backup/id_rsa",
		"@P/credentials.json", "@P/infra/terraform.tfstate", "@P/Terraform.tfstate.backup", "@P/.yarnrc.yml", "@P/.s3cfg",
		"@P/.htpasswd", "@P/.boto", "@P/.dockercfg",
		"@H/.m2/settings.xml", "@H/.config/rclone/rclone.conf", "@H/.gradle/gradle.properties", "@H/.oci/config",
		"@H/.composer/auth.json", "@H/.databrickscfg", "@H/.terraformrc", "@H/.huggingface/token",
		"@H/.cache/huggingface/token", "@H/.ngrok2/ngrok.yml", "@H/.config/op/config", "@H/.Xauthority",
		"@H/.claude/.credentials.json", "@H/.local/share/fish/fish_history", "@P/.dev.vars", "@P/.streamlit/secrets.toml",
		"@P/config/master.key",
	}
	notSecret := []string{
		"@P/main.go", "@P/.env.example", "@P/.env.sample", "@P/.env.template", "@H/.ssh-notes", "@H/.config/other/x",
		"@P/id_rsa.pub", "@P/id_ed25519.pub", "/etc/hosts", "/etc/passwd", "/usr/bin/ls", "@P/environment.go",
	}
	ex := strings.NewReplacer("@H", f.home, "@P", f.proj)
	for _, s := range secret {
		if x := f.p.Classify(ex.Replace(s)); !x.Secret || !x.Protected {
			t.Errorf("%s: secret=%v protected=%v (real %s, err %v), want secret and protected", s, x.Secret, x.Protected, x.Resolved.Path, x.Err)
		}
	}
	for _, s := range notSecret {
		if x := f.p.Classify(ex.Replace(s)); x.Secret {
			t.Errorf("%s: secret, want not (real %s)", s, x.Resolved.Path)
		}
	}
}

func TestClassifyProtectedInsideHarmless(t *testing.T) {
	f := newFixture(t)
	ex := strings.NewReplacer("@H", f.home, "@P", f.proj, "@R", f.r)
	for _, c := range []struct {
		path                        string
		inside, protected, harmless bool
	}{
		{"@P/main.go", true, false, false},
		{"@P/new/dir/file", true, false, false},
		{"@P", true, false, false},
		{"@P/.git/config", true, true, false},
		{"@P/gl/config", true, true, false}, // gl -> .git
		{"@P/gl/hooks/pre-commit", true, true, false},
		{"@P/tmpl/.git/config", true, true, false},
		{"@P/bare.git/config", true, true, false}, // a committed bare repository
		{"@P/bare.git/hooks/post-update", true, true, false},
		{"@P/.bashrc", true, true, false},
		{"@P/.vscode/settings.json", true, true, false},
		{"@H/.bashrc", false, true, false},
		{"@P/src/root/../ESCAPED", false, false, false}, // .. after a link
		{"@P/outlink/x", false, false, false},
		{"@R/proj2/x", false, false, false}, // a sibling sharing the prefix
		{"@P/../proj2/x", false, false, false},
		{"@P/etclink/os-release", false, false, true},
		{"/usr/share/doc", false, false, true},
		{"/etc/os-release", false, false, true},
		{"/etc/passwd", false, false, false},
		{"/dev/null", false, false, true},
		{"/dev/stdin", false, false, true},
		{"/dev/fd/0", false, false, true},
		{"/dev/tty", false, false, false}, // the user's terminal: its keystrokes
		{"/tmp", false, false, false},
	} {
		x := f.p.Classify(ex.Replace(c.path))
		if (x.Inside != "") != c.inside || x.Protected != c.protected || x.Harmless != c.harmless {
			t.Errorf("%s: inside=%q protected=%v harmless=%v (real %s, err %v); want inside=%v protected=%v harmless=%v",
				c.path, x.Inside, x.Protected, x.Harmless, x.Resolved.Path, x.Err, c.inside, c.protected, c.harmless)
		}
	}
	// An unresolvable path is never inside.
	loop := f.proj + "/loop"
	os.Symlink("loop", loop)
	if x := f.p.Classify(loop + "/x"); x.Err == nil || x.Inside != "" || x.ReadOK() {
		t.Errorf("a link loop: %+v", x)
	}
}

func TestTree(t *testing.T) {
	f := newFixture(t)
	clean := tree(t, []string{"src/pkg", "node_modules/x/.env"}, nil)
	os.WriteFile(clean+"/src/pkg/a.go", nil, 0o644)
	os.WriteFile(clean+"/node_modules/x/.env", nil, 0o644) // skipped: not the user's
	p := New(&Options{WorkingDirs: []string{f.proj, clean}, Home: f.home})

	for _, c := range []struct {
		root            string
		o               TreeOptions
		secret, outside bool
	}{
		{clean, TreeOptions{Hidden: true}, false, false},
		{f.proj + "/src", TreeOptions{Hidden: true}, false, false},
		{f.proj, TreeOptions{Hidden: true}, true, false},               // .env
		{f.proj, TreeOptions{Hidden: false}, false, false},             // rg skips dotfiles; keylink is not followed
		{f.proj, TreeOptions{Hidden: false, Follow: true}, true, true}, // keylink leads out, to a secret
		{f.home, TreeOptions{}, true, false},
		{f.home + "/.config", TreeOptions{}, true, false},
		{f.r, TreeOptions{}, true, false}, // holds the home
		{"/", TreeOptions{}, true, false},
		{f.r + "/out", TreeOptions{}, false, true},
		{"/usr/share", TreeOptions{}, false, false},
	} {
		rep := p.Tree(c.root, &c.o)
		if (rep.Secret != "") != c.secret || (rep.Outside != "") != c.outside || rep.Incomplete {
			t.Errorf("Tree(%s, %+v) = %+v; want secret=%v outside=%v", c.root, c.o, rep, c.secret, c.outside)
		}
	}
	// A followed link that leads out (a new policy: one policy is one
	// decision's picture of the file system).
	os.Symlink(f.r+"/out", clean+"/src/outlink")
	p = New(&Options{WorkingDirs: []string{f.proj, clean}, Home: f.home})
	if rep := p.Tree(clean, &TreeOptions{Follow: true}); rep.Outside == "" {
		t.Errorf("followed link out: %+v", rep)
	}
	if rep := p.Tree(clean, &TreeOptions{}); !rep.OK() {
		t.Errorf("unfollowed link out: %+v", rep)
	}
	// A tree too large to check is incomplete.
	if rep := p.Tree(clean, &TreeOptions{MaxEntries: 2}); !rep.Incomplete || rep.OK() {
		t.Errorf("bounded: %+v", rep)
	}
}

// maybeSensitive is only a quick filter: whenever it says no, Spelling's
// full judgment must say no too.
func TestMaybeSensitiveNeverHides(t *testing.T) {
	p := New(&Options{Home: "/home/u"})
	names := []string{"", ".", "..", "...", ".ssh", ".env", ".env.local", "id_rsa", "_netrc", "credentials", "x.tfstate", "master.key",
		".git", "config", "HEAD", ".bashrc", "lefthook.yml", "proc", "self", "environ", "etc", "shadow", "run", "secrets", "var",
		"src", "a.b", "a..", "..a", ".a.", "home", "u", ".aws", ".kube", ".config", "gh", ".docker", "config.json", "K", "\u212a"}
	var walk func(prefix string, depth int)
	walk = func(prefix string, depth int) {
		for _, n := range names {
			path := prefix + "/" + n
			sec, prot := p.Spelling(path)
			if (sec || prot) && !p.maybeSensitive(path) {
				t.Errorf("%q: Spelling says secret=%v protected=%v, the quick filter says no", path, sec, prot)
			}
			if depth < 2 {
				walk(path, depth+1)
			}
		}
	}
	walk("", 0)
	walk("/home/u", 1)
	for _, c := range []struct {
		path string
		want bool
	}{{"/p/.", false}, {"/p/..", false}, {"/p/./a/../b", false}, {"/p/.x", true}, {"/p/...", true}, {"..x", true}, {"/p/a.b/c", false}} {
		if got := hasDotName(c.path); got != c.want {
			t.Errorf("hasDotName(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

// The one-pass filter says what a plain reading of its rule says: a path
// is worth a full check when it holds a protected name without a leading
// dot or a secret name part, in any case, or lies under /proc, /etc, /run
// or /var/run. For the default names and for others.
func TestQuickScanAgrees(t *testing.T) {
	rule := func(p *Policy, path string) bool {
		lower := strings.ToLower(path)
		for _, n := range append(append([]string(nil), p.names.odd...), quickSecretNames...) {
			if strings.Contains(lower, n) {
				return true
			}
		}
		for _, s := range []string{"/proc", "/etc/", "/run/", "/var/run/"} {
			if strings.Contains(path, s) {
				return true
			}
		}
		return hasDotName(path)
	}
	policies := []*Policy{New(nil), New(&Options{ProtectedFiles: []string{"Makefile", ".x"}, ProtectedDirs: []string{"ci"}})}
	paths := []string{"/", "/tmp/x", "/home/u/ID_rsa", "/a/Lefthook.YML", "/a/_NetRC", "/p/my-credentials", "/x/TFSTATE",
		"/m/Master.Key", "/proc", "/procx/a", "/etc/passwd", "/etc", "/var/run/x", "/run/secrets", "/srv/runner", "/a/.x",
		"/i", "/id", "/a/i_d_", "/a/credential", "/usr/lib/x", "ID_", "/a/b/c/d/e/f/g/h/master.ke", "/a/b/master.key/c",
		"/src/MakeFile", "/a/CI/b", "/a/cia"}
	for i := 0; i < 20000; i++ {
		b := make([]byte, 1+i%23)
		for j := range b {
			b[j] = "/._-aAcCdDeEfFiIkKlLmMnNoOpPrRsStTyY"[(i*31+j*7+j*j*i)%36]
		}
		paths = append(paths, string(b))
	}
	for _, p := range policies {
		for _, path := range paths {
			if got, want := p.maybeSensitive(path), rule(p, path); got != want {
				t.Fatalf("odd names %v, %q: the filter says %v, its rule %v", p.names.odd, path, got, want)
			}
		}
	}
	// A path that lower-cases to a name (the Kelvin sign folds into k) is
	// caught; the filter may say more than the rule there, never less.
	if p := policies[0]; !p.maybeSensitive("/a/master.\u212aey") {
		t.Error("master.\u212aey (Kelvin sign) passed the filter")
	}
}
