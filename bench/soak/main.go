// Command soak runs toolscope's CLI under faults for a bounded time and
// counts what went wrong: writers killed with SIGKILL at random moments,
// processes racing on one --state file, an MCP stdio server fed malformed
// frames, and the processes a killed call leaves. It exits 1 when anything
// was lost, corrupted or left behind; .ci/run runs it before the tests.
//
//	go build -o /tmp/toolscope ./cmd/toolscope
//	go run ./bench/soak -bin /tmp/toolscope -duration 60s
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/internal/testproc"
	"github.com/toolscope/toolscope/internal/textfile"
	"github.com/toolscope/toolscope/tool"
)

var bin string

func main() {
	flag.StringVar(&bin, "bin", "", "the toolscope binary to soak (required)")
	total := flag.Duration("duration", 60*time.Second, "how long the whole soak runs (each phase gets a share)")
	flag.Parse()
	if bin == "" {
		fmt.Fprintln(os.Stderr, "usage: soak -bin TOOLSCOPE [-duration 60s]")
		os.Exit(2)
	}
	if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	start := time.Now()
	var failures []string
	for _, ph := range []struct {
		name  string
		share float64
		run   func(deadline time.Time) (report string, bad []string)
	}{
		{"kill -9 of writers", 0.3, killWriters},
		{"kill -9 of Bash calls", 0.15, killBash},
		{"concurrent calls", 0.3, concurrent},
		{"malformed frames", 0.25, frames},
	} {
		d := time.Duration(float64(*total) * ph.share)
		report, bad := ph.run(time.Now().Add(d))
		fmt.Printf("soak: %-22s %s\n", ph.name+":", report)
		for _, b := range bad {
			fmt.Printf("soak:   FAIL %s\n", b)
		}
		failures = append(failures, bad...)
	}
	fmt.Printf("soak: %d failures in %.0f s\n", len(failures), time.Since(start).Seconds())
	if len(failures) > 0 {
		os.Exit(1)
	}
}

// call runs the CLI in dir and returns its output and exit status.
func call(ctx context.Context, dir string, args ...string) (string, int) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		return err.Error(), -1
	}
	return string(out), 0
}

func tempDir() string {
	d, err := os.MkdirTemp("", "toolscope-soak-")
	if err != nil {
		panic(err)
	}
	return d
}

// killWriters starts a Write (or an Edit) with --state and kills it with
// SIGKILL after a random delay, again and again. After each kill the file
// holds one version whole, the state file reads, the user's own
// ".notes.tmp2024" is there, and the next write leaves no temporary file.
func killWriters(deadline time.Time) (string, []string) {
	dir := tempDir()
	defer os.RemoveAll(dir)
	f, st := filepath.Join(dir, "f.txt"), filepath.Join(dir, "st.json")
	foreign := filepath.Join(dir, ".notes.tmp2024")
	os.WriteFile(foreign, []byte("the user's"), 0o644)
	version := func(i int) string { return strings.Repeat(fmt.Sprintf("version %06d\n", i), 40000) } // 600 KB
	os.WriteFile(f, []byte(version(0)), 0o644)
	var bad []string
	trials, killed, temps, corrupt := 0, 0, 0, 0
	for i := 1; time.Now().Before(deadline); i++ {
		trials++
		if out, code := call(context.Background(), dir, "call", "--state", st, "Read", fmt.Sprintf(`{"file_path":%q,"limit":1}`, f)); code != 0 {
			bad = append(bad, fmt.Sprintf("trial %d: Read after a kill: exit %d: %.300s", i, code, out))
			break
		}
		args := []string{"call", "--state", st, "--mode", "accept_edits"}
		var input string
		if i%2 == 0 {
			args = append(args, "Write", "-")
			input = fmt.Sprintf(`{"file_path":%q,"content":%q}`, f, version(i))
		} else {
			cur, _ := os.ReadFile(f)
			args = append(args, "Edit", "-")
			input = fmt.Sprintf(`{"file_path":%q,"old_string":%q,"new_string":%q,"replace_all":true}`, f, firstLine(cur), fmt.Sprintf("version %06d", i))
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(input)
		if err := cmd.Start(); err != nil {
			bad = append(bad, "starting the writer: "+err.Error())
			break
		}
		time.Sleep(time.Duration(rand.IntN(40_000)) * time.Microsecond)
		if cmd.Process.Signal(syscall.SIGKILL) == nil {
			killed++
		}
		cmd.Wait()
		b, _ := os.ReadFile(f)
		if !whole(b) {
			corrupt++
			bad = append(bad, fmt.Sprintf("trial %d: the file is not one whole version (%d bytes)", i, len(b)))
		}
		if sb, err := os.ReadFile(st); err == nil && !json.Valid(sb) {
			corrupt++
			bad = append(bad, fmt.Sprintf("trial %d: the state file is not JSON", i))
		}
		if b, _ := os.ReadFile(foreign); string(b) != "the user's" {
			bad = append(bad, fmt.Sprintf("trial %d: the user's .notes.tmp2024 is gone", i))
		}
		names, _ := os.ReadDir(dir)
		for _, n := range names {
			if textfile.IsTempName(n.Name()) {
				temps++
			}
		}
	}
	// One more write sweeps what the killed writers left.
	call(context.Background(), dir, "call", "--state", st, "Read", fmt.Sprintf(`{"file_path":%q,"limit":1}`, f))
	call(context.Background(), dir, "call", "--state", st, "--mode", "accept_edits", "Write", fmt.Sprintf(`{"file_path":%q,"content":"end\n"}`, f))
	left := 0
	names, _ := os.ReadDir(dir)
	for _, n := range names {
		switch n.Name() {
		case "f.txt", "st.json", ".notes.tmp2024":
		default:
			left++
			bad = append(bad, "left after the last write: "+n.Name())
		}
	}
	return fmt.Sprintf("%d trials, %d killed, %d temporary files seen after kills, %d left after the next write, %d corrupt files", trials, killed, temps, left, corrupt), bad
}

func firstLine(b []byte) string {
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}

// whole reports a file of one version: all its lines the same.
func whole(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	first := firstLine(b) + "\n"
	return len(b)%len(first) == 0 && bytes.Count(b, []byte(first)) == len(b)/len(first)
}

// killBash starts Bash calls whose commands leave processes behind in
// several ways, kills `toolscope call` with SIGKILL while they run, and
// counts the processes that survive.
func killBash(deadline time.Time) (string, []string) {
	dir := tempDir()
	defer os.RemoveAll(dir)
	patterns := []string{
		"sleep %d",
		"setsid -f sleep %d; sleep 30",
		"nohup sleep %d >/dev/null 2>&1 & sleep 30",
		"(sleep %d &) ; sleep 30",
		"env -i setsid -f sleep %d; sleep 30",
		"env -u TOOLSCOPE_RUN setsid -f sleep %d; sleep 30",
		"sleep %d & disown; sleep 30",
		"python3 -c 'import os,time\nif os.fork()==0:\n os.setsid()\n if os.fork()==0: time.sleep(%d)\nelse: time.sleep(30)'",
	}
	cwdFiles := func() map[string]bool {
		m := map[string]bool{}
		ents, _ := os.ReadDir(os.TempDir())
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "toolscope-cwd-") {
				m[e.Name()] = true
			}
		}
		return m
	}
	before := cwdFiles()
	trials, survivors := 0, 0
	var bad []string
	for i := 0; time.Now().Before(deadline); i++ {
		trials++
		mark := 900000 + rand.IntN(99999) // a sleep length that names this trial's processes
		cmdline := fmt.Sprintf(patterns[i%len(patterns)], mark)
		cmd := exec.Command(bin, "call", "--yes", "--cwd", dir, "Bash", fmt.Sprintf(`{"command":%q,"timeout":60000}`, cmdline))
		cmd.Dir = dir
		cmd.Start()
		time.Sleep(400 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		time.Sleep(300 * time.Millisecond)
		left := testproc.With(fmt.Sprint(mark))
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		if len(left) > 0 {
			survivors += len(left)
			bad = append(bad, fmt.Sprintf("%q left %d processes after SIGKILL of toolscope", patterns[i%len(patterns)], len(left)))
		}
	}
	tmp := 0
	for n := range cwdFiles() {
		if !before[n] {
			tmp++
			bad = append(bad, "left "+filepath.Join(os.TempDir(), n))
		}
	}
	return fmt.Sprintf("%d trials over %d patterns, %d processes survived, %d toolscope-cwd-* files left", trials, len(patterns), survivors, tmp), bad
}

// concurrent runs 8 processes of mixed task calls and Edits on one state
// file at once, and checks that every change a call reported is there.
func concurrent(deadline time.Time) (string, []string) {
	const procs = 8
	created := regexp.MustCompile(`Task \(id=(\d+)\) created successfully: (\S+)`)
	rounds, calls, lost := 0, 0, 0
	var bad []string
	for time.Now().Before(deadline) {
		rounds++
		dir := tempDir()
		st := filepath.Join(dir, "st.json")
		call(context.Background(), dir, "call", "--state", st, "TaskCreate", `{"subject":"shared","description":"d"}`)
		var mu sync.Mutex
		ids := map[string]string{}
		meta := map[string]bool{}
		var wg sync.WaitGroup
		for p := 0; p < procs; p++ {
			wg.Add(1)
			go func(p int) {
				defer wg.Done()
				for j := 0; j < 12; j++ {
					var args []string
					key := fmt.Sprintf("p%d_%d", p, j)
					if j%2 == 0 {
						args = []string{"TaskCreate", fmt.Sprintf(`{"subject":"%s","description":"d"}`, key)}
					} else {
						args = []string{"TaskUpdate", fmt.Sprintf(`{"task_id":"1","metadata":{%q:true}}`, key)}
					}
					out, code := call(context.Background(), dir, append([]string{"call", "--state", st}, args...)...)
					mu.Lock()
					calls++
					switch {
					case code != 0:
						bad = append(bad, fmt.Sprintf("%s exit %d: %.200s", args[0], code, out))
					case j%2 == 0:
						if m := created.FindStringSubmatch(out); m != nil {
							if _, dup := ids[m[1]]; dup {
								bad = append(bad, "two creates were told id "+m[1])
							}
							ids[m[1]] = m[2]
						}
					default:
						meta[key] = true
					}
					mu.Unlock()
				}
			}(p)
		}
		wg.Wait()
		// Read as toolscope reads it (the task list is package builtin's
		// slot of the state).
		state := tool.NewState(nil)
		b, _ := os.ReadFile(st)
		if err := json.Unmarshal(b, state); err != nil {
			bad = append(bad, "the state does not read: "+err.Error())
		}
		have := map[string]string{}
		var sharedMeta map[string]any
		for _, t := range builtin.DataOf(state).Tasks() {
			have[t.ID] = t.Subject
			if t.ID == "1" {
				sharedMeta = t.Metadata
			}
		}
		for id, subj := range ids {
			if have[id] != subj {
				lost++
			}
		}
		for k := range meta {
			if sharedMeta[k] != true {
				lost++
			}
		}
		os.RemoveAll(dir)
	}
	if lost > 0 {
		bad = append(bad, fmt.Sprintf("%d reported changes lost", lost))
	}
	return fmt.Sprintf("%d rounds of %d processes, %d calls, %d reported changes lost", rounds, procs, calls, lost), bad
}

// frames feeds `toolscope serve` (stdio) malformed frames between good
// requests and checks that it answers every request and keeps serving.
func frames(deadline time.Time) (string, []string) {
	dir := tempDir()
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--cwd", dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return "", []string{"serve: " + err.Error()}
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	answers := make(chan map[string]any, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				answers <- m
			}
		}
		close(answers)
	}()
	send := func(s string) { io.WriteString(stdin, s+"\n") }
	await := func(id float64) (map[string]any, bool) {
		timeout := time.After(10 * time.Second)
		for {
			select {
			case m, ok := <-answers:
				if !ok {
					return nil, false
				}
				if v, _ := m["id"].(float64); v == id {
					return m, true
				}
			case <-timeout:
				return nil, false
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`)
	if _, ok := await(1); !ok {
		return "", []string{"serve did not answer initialize"}
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	malformed := []string{
		`not json`, `{}`, `[]`, `null`, `42`, `"str"`, `{"jsonrpc":"1.0","id":7,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, `[{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`,
		strings.Repeat("[", 100000) + strings.Repeat("]", 100000), `{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/list"} trailing`, `{"jsonrpc":"2.0","id":10}`, `{"jsonrpc":"2.0","method":5,"id":11}`,
		`{"jsonrpc":"2.0","id":12,"method":"no/such"}`, `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":"x"}`,
		`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, "\x00\x01\x02", `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"nope"}}`,
		`{"jsonrpc":"2.0","id":15,"method":"tools/list","params":[]}`, `{`,
	}
	sent, good, answered := 0, 0, 0
	var bad []string
	id := 100.0
	for i := 0; time.Now().Before(deadline); i++ {
		send(malformed[i%len(malformed)])
		sent++
		if i%50 == 7 {
			send(strings.Repeat("x", 20<<20)) // a frame over the size bound
			sent++
		}
		id++
		good++
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"Read","arguments":{"file_path":%q}}}`, int(id), filepath.Join(dir, "a.txt")))
		m, ok := await(id)
		if !ok {
			select {
			case <-exited:
				bad = append(bad, fmt.Sprintf("serve exited after the frame %.60q", malformed[i%len(malformed)]))
			default:
				bad = append(bad, fmt.Sprintf("no answer to a good request after the frame %.60q", malformed[i%len(malformed)]))
			}
			break
		}
		if res, _ := json.Marshal(m["result"]); !strings.Contains(string(res), "hello") {
			bad = append(bad, fmt.Sprintf("a good Read answered %.200s", res))
		}
		answered++
	}
	stdin.Close()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		bad = append(bad, "serve did not exit when its input closed")
	}
	return fmt.Sprintf("%d malformed frames sent (%d kinds, and 20 MB frames), %d of %d good requests answered, server alive until its input closed: %v", sent, len(malformed), answered, good, len(bad) == 0), bad
}
