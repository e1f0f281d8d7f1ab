package shell

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
)

type tarEntry struct {
	name, link string
	typ        byte
	body       []byte
}

func writeTar(t *testing.T, p string, gz bool, entries ...tarEntry) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.typ, Mode: 0o644, Size: int64(len(e.body))}
		if e.typ == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write(e.body)
		}
	}
	tw.Close()
	data := buf.Bytes()
	if gz {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		data = z.Bytes()
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeZip(t *testing.T, p string, names ...string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, _ := zw.Create(n)
		w.Write([]byte("x"))
	}
	zw.Close()
	os.WriteFile(p, buf.Bytes(), 0o644)
}

// An extraction writes what its archive's members name: the analyser
// reads their names and judges each as a write (a protected or secret
// path, a path or link leading out: an immune ask); an archive it cannot
// read is not covered by a wildcard rule.
func TestArchiveExtraction(t *testing.T) {
	proj := t.TempDir()
	os.MkdirAll(filepath.Join(proj, ".git", "hooks"), 0o755)
	os.MkdirAll(filepath.Join(proj, "sub"), 0o755)
	at := func(n string) string { return filepath.Join(proj, n) }
	writeTar(t, at("hooks.tar"), false, tarEntry{name: ".git/hooks/pre-commit", body: []byte("curl x | sh")})
	writeTar(t, at("rc.tgz"), true, tarEntry{name: "a/b.txt", body: []byte("x")}, tarEntry{name: "./.bashrc", body: []byte("x")})
	writeTar(t, at("up.tar"), false, tarEntry{name: "a/../../x", body: []byte("x")})
	writeTar(t, at("abs.tar"), false, tarEntry{name: "/etc/cron.d/x", body: []byte("x")})
	writeTar(t, at("symout.tar"), false, tarEntry{name: "l", link: "/etc", typ: tar.TypeSymlink}, tarEntry{name: "l/x", body: []byte("x")})
	writeTar(t, at("symgit.tar"), false, tarEntry{name: "h", link: ".git/hooks", typ: tar.TypeSymlink})
	writeTar(t, at("hard.tar"), false, tarEntry{name: "p", link: "/etc/passwd", typ: tar.TypeLink})
	writeTar(t, at("env.tar"), false, tarEntry{name: "conf/.env", body: []byte("K=v")})
	writeTar(t, at("clean.tar"), false, tarEntry{name: "src/a.go", body: []byte("package a")}, tarEntry{name: "src/l", link: "a.go", typ: tar.TypeSymlink})
	writeTar(t, at("clean.tgz"), true, tarEntry{name: "docs/a.md", body: []byte("x")})
	writeTar(t, at("strip.tar"), false, tarEntry{name: ".git/top/a.txt", body: []byte("x")})
	writeZip(t, at("hooks.zip"), ".git/hooks/post-checkout")
	writeZip(t, at("clean.zip"), "src/b.go")
	os.WriteFile(at("clean.txz"), []byte("\xfd7zXZ\x00 not inspected"), 0o644)
	big := make([]byte, 3<<20)
	rand.Read(big)
	writeTar(t, at("big.tgz"), true, tarEntry{name: "blob", body: big}, tarEntry{name: ".git/hooks/x", body: []byte("x")})

	opts := &Options{Cwd: proj}
	for _, cmd := range []string{
		"tar -xf hooks.tar", "tar xf hooks.tar", "tar --extract --file=hooks.tar", "tar -x -f hooks.tar", "tar -xvf hooks.tar -C .",
		"bsdtar -xf hooks.tar", "sudo tar -xf hooks.tar", "tar -xzf rc.tgz", "tar -xf up.tar", "tar -xPf abs.tar",
		"tar -xf symout.tar", "tar -xf symgit.tar", "tar -xf hard.tar", "tar -xf env.tar", "tar -xf strip.tar -C sub/..",
		"tar -xf hooks.tar -C sub", "tar -xf strip.tar --strip-components=0",
		"unzip hooks.zip", "unzip -o hooks.zip", "unzip -q hooks.zip -d .", "unzip -P secret hooks.zip",
	} {
		a := Analyze(cmd, opts)
		if a.Verdict != Ask || !a.BypassImmune {
			t.Errorf("%q: %s immune=%v (%s); want an immune ask", cmd, a.Verdict, a.BypassImmune, a.Reason)
		}
	}
	for _, c := range []struct {
		cmd, rule string
		ok        bool
	}{
		{"tar -xf clean.tar", "tar:*", true},
		{"tar -xzf clean.tgz -C sub", "tar:*", true},
		{"tar -xf strip.tar --strip-components=1", "tar:*", true},
		{"unzip clean.zip", "unzip:*", true},
		{"tar -xJf clean.txz", "tar:*", false}, // xz is not read
		{"tar -xJf clean.txz", "tar -xJf clean.txz", true},
		{"tar -xzf big.tgz", "tar:*", false}, // too large to read in time
		{"tar -xf missing.tar", "tar:*", false},
		{"tar -xf - < clean.tar", "tar:*", false},
		{"tar -xf clean.tar --transform=s/src/.git/", "tar:*", false},
		{"cp clean.tar c2.tar && tar -xf c2.tar", "cp:*", false},
	} {
		a := Analyze(c.cmd, opts)
		_, ok := a.AllowedBy([]string{c.rule, "cp:*"})
		if ok != c.ok {
			t.Errorf("%q with Bash(%s): allowed=%v (%s %s); want %v", c.cmd, c.rule, ok, a.Verdict, a.Reason, c.ok)
		}
		if all, _ := MatchRule(c.rule, c.cmd); all && c.rule == "tar:*" {
			t.Errorf("MatchRule(%q, %q): a wildcard rule covers an extraction without its members read", c.rule, c.cmd)
		}
	}
}
