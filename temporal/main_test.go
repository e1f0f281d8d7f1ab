package temporal_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/toolscope/toolscope/internal/cli"
	"github.com/toolscope/toolscope/internal/peers"
	"github.com/toolscope/toolscope/temporal/internal/tcli"
)

func TestMain(m *testing.M) {
	if os.Getenv("TOOLSCOPE_TEST_AS_CLI") == "1" {
		// The test binary as the CLI: the worker processes the tests kill.
		os.Exit(cli.Main(os.Args[1:], tcli.Options()))
	}
	code := m.Run()
	dev.stop()
	os.Exit(code)
}

// devServer is a Temporal dev server on loopback, started once for the
// tests that need one.
type devServer struct {
	once sync.Once
	addr string
	cmd  *exec.Cmd
	err  error
	skip string
	logs bytes.Buffer
}

var dev devServer

// temporalCLI finds the temporal CLI: $TOOLSCOPE_TEMPORAL_CLI, else where
// .ci/temporal-cli builds it, else on PATH.
func temporalCLI() string {
	if p := os.Getenv("TOOLSCOPE_TEMPORAL_CLI"); p != "" {
		return p
	}
	if p := filepath.Join(peers.CacheDir(), "temporal-cli-v1.5.1", "temporal"); fileExists(p) {
		return p
	}
	p, _ := exec.LookPath("temporal")
	return p
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// server returns the address of the dev server, starting it. Without the
// temporal CLI the test is skipped, unless CI is set: there it fails.
func server(t testing.TB) string {
	t.Helper()
	dev.once.Do(dev.start)
	if dev.skip != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must run the Temporal tests: %s", dev.skip)
		}
		t.Skip(dev.skip)
	}
	if dev.err != nil {
		t.Fatalf("the Temporal dev server: %v\n%s", dev.err, dev.logs.String())
	}
	return dev.addr
}

func (d *devServer) start() {
	bin := temporalCLI()
	if bin == "" {
		d.skip = "needs the temporal CLI: .ci/temporal-cli builds it (go install github.com/temporalio/cli/cmd/temporal@v1.5.1), or put it on PATH or in $TOOLSCOPE_TEMPORAL_CLI"
		return
	}
	var ports [3]int
	for i := range ports {
		if ports[i], d.err = freePort(); d.err != nil {
			return
		}
	}
	d.addr = fmt.Sprintf("127.0.0.1:%d", ports[0])
	d.cmd = exec.Command(bin, "server", "start-dev", "--headless", "--ip", "127.0.0.1",
		"--port", fmt.Sprint(ports[0]), "--http-port", fmt.Sprint(ports[1]), "--metrics-port", fmt.Sprint(ports[2]),
		"--log-level", "error",
		// One partition per task queue: with the default four, a task can
		// wait for a poller of another partition (tens to hundreds of ms).
		"--dynamic-config-value", "matching.numTaskqueueReadPartitions=1",
		"--dynamic-config-value", "matching.numTaskqueueWritePartitions=1",
		// The dev server's one history shard reads its transfer queue (the
		// tasks that dispatch workflow and activity tasks) at most 20
		// times a second by default: 50ms added to each step of a run.
		"--dynamic-config-value", "history.transferProcessorMaxPollRPS=2000",
		// A tool call on the workflow's own queue starts with the workflow
		// task that scheduled it, without a dispatch of its own.
		"--dynamic-config-value", "system.enableActivityEagerExecution=true")
	d.cmd.Stdout, d.cmd.Stderr = &d.logs, &d.logs
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if d.err = d.cmd.Start(); d.err != nil {
		return
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := client.Dial(client.Options{HostPort: d.addr, Logger: quietLogger{}})
		if err == nil {
			_, err = c.CheckHealth(context.Background(), nil)
			c.Close()
			if err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			d.err = fmt.Errorf("not up after 60s: %v", err)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (d *devServer) stop() {
	if d.cmd != nil && d.cmd.Process != nil {
		syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		d.cmd.Wait()
	}
}

// dial returns a client of the dev server.
func dial(t testing.TB) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: server(t), Logger: quietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// quietLogger drops the SDK's messages.
type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}

// toolscope runs the CLI in this process.
func toolscope(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := cli.Run(ctx, args, strings.NewReader(""), &out, &errb, tcli.Options())
	code = cli.ExitCode(err, &errb)
	return out.String(), errb.String(), code
}

// workerProc is a worker in a process of its own, to be killed.
type workerProc struct {
	cmd  *exec.Cmd
	logs *bytes.Buffer
	done chan struct{}
}

// startWorker starts `toolscope worker` for the workspace dir on queue,
// with the model server's address and env added.
func startWorker(t testing.TB, dir, queue string, model *modelServer, args []string, env ...string) *workerProc {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(os.Args[0], append([]string{"worker", "--temporal", server(t), "--task-queue", queue,
		"--cwd", dir, "--model", "openai:scripted", "--no-claude-settings", "--model-queue", queue + "-model"}, args...)...)
	cmd.Env = append(os.Environ(), "TOOLSCOPE_TEST_AS_CLI=1", "HOME="+home,
		"OPENAI_BASE_URL="+model.url+"/v1", "OPENAI_API_KEY=test")
	cmd.Env = append(cmd.Env, env...)
	logs := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerProc{cmd: cmd, logs: logs, done: make(chan struct{})}
	go func() { cmd.Wait(); close(w.done) }()
	t.Cleanup(func() { w.kill() })
	return w
}

// kill ends the worker with SIGKILL: no goodbye to the server.
func (w *workerProc) kill() {
	w.cmd.Process.Kill()
	<-w.done
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func readFile(t testing.TB, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}
