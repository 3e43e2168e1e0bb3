package mcpserver_test

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/mcpserver"
)

// BenchmarkRunCommandStdio compares an MCP run_command("true") over stdio
// with the library's Run("true"), interleaved in the same run, and reports
// the extra cost of the protocol per call (target: at most 1 ms).
func BenchmarkRunCommandStdio(b *testing.B) {
	ws := b.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "SCTEST_STDIO_SERVER=1", "SCTEST_WORKSPACE="+ws)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	sh, err := shellcap.New(shellcap.Options{Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	defer sh.Close()
	n := max(b.N, 30)
	var lib, viaMCP []time.Duration
	for range n {
		start := time.Now()
		if _, err := sh.Run(ctx, shellcap.Request{Command: "true"}); err != nil {
			b.Fatal(err)
		}
		lib = append(lib, time.Since(start))
		start = time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.RunCommand, Arguments: map[string]any{"command": "true"}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
		viaMCP = append(viaMCP, time.Since(start))
	}
	l, m := median(lib), median(viaMCP)
	b.ReportMetric(float64(l)/1e6, "ms/lib")
	b.ReportMetric(float64(m)/1e6, "ms/mcp")
	b.ReportMetric(float64(m-l)/1e6, "ms-extra")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
