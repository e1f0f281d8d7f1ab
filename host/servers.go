package host

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/tool"
)

// connectTimeout bounds the start of one configured MCP server.
const connectTimeout = 30 * time.Second

// lazyServer is a configured MCP server that connects the first time its
// tools are needed, so that a command that needs none (check of a shell
// command, a call of a built-in tool) starts no server. A server that
// cannot be reached is reported once on warn and has no tools.
type lazyServer struct {
	c    *mcp.Client
	warn io.Writer

	once sync.Once
	err  error
	used bool
}

func (l *lazyServer) Name() string        { return l.c.Name() }
func (l *lazyServer) ListVersion() uint64 { return l.c.ListVersion() }

func (l *lazyServer) Tools(ctx context.Context) ([]tool.Tool, error) {
	if !l.connect(ctx) {
		return nil, nil // said once; the toolkit need not say it at every listing
	}
	return l.c.Tools(ctx)
}

// connect connects the server the first time it is needed, and reports
// whether it runs. A server that cannot be reached is reported once.
func (l *lazyServer) connect(ctx context.Context) bool {
	l.once.Do(func() {
		cctx, cancel := context.WithTimeout(ctx, connectTimeout)
		defer cancel()
		l.err = l.c.Connect(cctx)
		if l.err != nil {
			fmt.Fprintf(l.warn, "toolscope: warning: MCP server %q is unavailable; its tools are left out: %v\n", l.c.Name(), l.err)
		}
		l.used = l.err == nil
	})
	return l.err == nil
}

// The server's resources (mcp.ResourceServer), for ListMcpResources and
// ReadMcpResource, and its prompts, for chat's commands.

func (l *lazyServer) OffersResources() bool { return l.c.OffersResources() }
func (l *lazyServer) TrustsHints() bool     { return l.c.TrustsHints() }

func (l *lazyServer) Resources(ctx context.Context) ([]mcp.Resource, error) {
	if !l.connect(ctx) {
		return nil, l.unavailable()
	}
	return l.c.Resources(ctx)
}

func (l *lazyServer) ReadResource(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
	if !l.connect(ctx) {
		return nil, l.unavailable()
	}
	return l.c.ReadResource(ctx, uri)
}

func (l *lazyServer) unavailable() error {
	return fmt.Errorf("MCP server %q is unavailable: %v", l.c.Name(), l.err)
}

// close ends the server's session (and its process) if it was started.
func (l *lazyServer) close() {
	l.once.Do(func() {}) // no connection after this
	if l.used {
		l.c.Close()
	}
}
