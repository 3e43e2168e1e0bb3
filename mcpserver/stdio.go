package mcpserver

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client on r and w (a process's stdin and stdout)
// until the client disconnects or ctx ends. It does not close r or w.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.mcp.Run(ctx, &mcp.IOTransport{Reader: nopReadCloser{r}, Writer: nopWriteCloser{w}})
}

type nopReadCloser struct{ io.Reader }

func (nopReadCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
