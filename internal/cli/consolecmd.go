package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolscope/toolscope/console"
	"github.com/toolscope/toolscope/internal/textfile"
)

// isTokenName reports a name for --auth-token NAME=TOKEN: 1 to 64 of
// letters, digits and _ . @ -.
func isTokenName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.@-", r)) {
			return false
		}
	}
	return true
}

// runConsole is `toolscope console`: the web approval console of the run
// files in --runs DIR (default: the project, --cwd, or the current
// directory), or, with --export FILE, its decision log written out.
func runConsole(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return RunConsole(ctx, args, stdout, stderr)
}

// RunConsole is `toolscope console` with more sources of runs beside the
// run files (the Temporal build's namespace).
func RunConsole(ctx context.Context, args []string, stdout, stderr io.Writer, extra ...console.Source) error {
	c := newFlags("console", stdout, false)
	addr := c.fs.String("http", "127.0.0.1:0", "listen on this address (host:port; :0 picks a free port); loopback only unless --allow-remote")
	runs := c.fs.String("runs", "", "the directory of the run files (toolscope run --state DIR/NAME.json); default: --cwd, else the current directory")
	var tokens listFlag
	c.fs.Var(&tokens, "auth-token", "access token, TOKEN or NAME=TOKEN (the name is who answered, in the decision log; repeatable); default: a random one, printed in the URL")
	export := c.fs.String("export", "", "write the decision log (JSONL) to this file (- for standard output) and exit")
	remote := c.fs.Bool("allow-remote", false, "allow --http on an address beyond this machine (anyone who reaches it and has a token can answer)")
	if err := c.parse(args); err != nil {
		return err
	}
	if len(c.args) > 0 {
		return usageErr("console takes no arguments, got %q", c.args[0])
	}
	dir := *runs
	if dir == "" {
		dir = c.cwd
	}
	if dir == "" {
		dir = "."
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return usageErr("console: --runs %s: %v", *runs, err)
	}
	logFile := filepath.Join(dir, console.LogName)
	if *export != "" {
		// The log's answers, and every decision of the runs' transcripts.
		local, err := console.NewLocal(dir, nil)
		if err != nil {
			return usageErr("%v", err)
		}
		defer local.Close()
		var b bytes.Buffer
		n, err := console.ExportAll(ctx, logFile, &b, append([]console.Source{local}, extra...)...)
		if err != nil {
			return err
		}
		if *export == "-" {
			_, err = stdout.Write(b.Bytes())
			return err
		}
		if err := textfile.WriteAtomic(*export, b.Bytes(), &textfile.WriteOptions{Perm: 0o600}); err != nil {
			return fmt.Errorf("console --export %s: %w", *export, err)
		}
		fmt.Fprintf(stderr, "console: wrote %d entries (the decisions of the runs in %s and the answers of %s) to %s\n", n, dir, logFile, *export)
		return nil
	}
	named := map[string]string{}
	for _, t := range tokens {
		name, tok := "default", t
		if n, v, ok := strings.Cut(t, "="); ok && isTokenName(n) {
			name, tok = n, v
		}
		if len(tok) < minTokenLen {
			return usageErr("console: the --auth-token %s has %d characters, want at least %d: generate one, e.g. with `openssl rand -hex 32`", name, len(tok), minTokenLen)
		}
		if _, dup := named[name]; dup {
			return usageErr("console: two --auth-token values are named %q; name each, NAME=TOKEN", name)
		}
		named[name] = tok
	}
	generated := len(named) == 0
	if generated {
		b := make([]byte, 24)
		rand.Read(b)
		named["default"] = hex.EncodeToString(b)
	}
	host, port, err := net.SplitHostPort(*addr)
	if err != nil {
		return usageErr("console: --http %s: want host:port (%v)", *addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if (ip == nil || !ip.IsLoopback()) && !strings.EqualFold(host, "localhost") && !*remote {
		return usageErr("console: --http %s is beyond this machine: anyone who reaches it could see the runs and, with a token, answer them; listen on loopback (127.0.0.1:PORT) or give --allow-remote", *addr)
	}
	// The console key authenticates it to running chats and serves.
	key, err := consoleKey()
	if err != nil {
		fmt.Fprintf(stderr, "toolscope: warning: running chats and serve sessions cannot be shown: %v\n", err)
	}
	local, err := console.NewLocal(dir, &console.LocalOptions{LiveKey: key})
	if err != nil {
		return usageErr("%v", err)
	}
	defer local.Close()
	sources := []console.Source{local}
	if key != nil {
		sources = append(sources, console.NewLive(dir, key))
	}
	var hosts []string
	if *remote {
		hosts = append(hosts, host)
	}
	srv, err := console.New(&console.Options{Sources: append(sources, extra...), Tokens: named, LogFile: logFile, Hosts: hosts})
	if err != nil {
		return usage(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return usageErr("console: --http %s: %v", *addr, err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	base := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(stdout, "toolscope console: the runs in %s, the decision log in %s\n", dir, logFile)
	if generated {
		fmt.Fprintf(stdout, "open %s?token=%s\n", base, named["default"])
	} else {
		for name := range named {
			fmt.Fprintf(stdout, "open %s?token=<the token of %s>\n", base, name)
		}
	}
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	srv.Close()
	// Requests in flight get a moment to end; connections a browser
	// opened in advance and never used are then closed.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if serr := hs.Shutdown(sctx); serr != nil {
		hs.Close()
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
