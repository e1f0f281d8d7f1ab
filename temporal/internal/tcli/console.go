package tcli

import (
	"context"
	"io"
	"strings"

	"github.com/toolscope/toolscope/console"
	"github.com/toolscope/toolscope/internal/cli"
	"github.com/toolscope/toolscope/temporal/tconsole"
)

// runConsole is toolscope console with, given --temporal ADDR (or
// $TEMPORAL_ADDRESS), the runs of a Temporal namespace beside the run
// files.
func runConsole(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var rest []string
	addr, ns := "", ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || a == "--" || (name != "temporal" && name != "namespace") {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 == len(args) {
				return cli.UsageError("console: --%s needs a value", name)
			}
			i++
			val = args[i]
		}
		if name == "temporal" {
			addr = val
		} else {
			ns = val
		}
	}
	f := cli.NewFlags("console", stdout, false)
	cn := connFlags(f)
	if addr != "" {
		*cn.addr = addr
	}
	if ns != "" {
		*cn.namespace = ns
	}
	if *cn.addr == "" {
		return cli.RunConsole(ctx, rest, stdout, stderr)
	}
	c, err := cn.dial(stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	return cli.RunConsole(ctx, rest, stdout, stderr, console.Source(tconsole.New(c, *cn.namespace)))
}
