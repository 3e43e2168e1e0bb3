//go:build linux

package temporal

import (
	"context"
	"testing"
	"time"

	"github.com/shellcap/shellcap/temporal/internal/devserver"
	"github.com/shellcap/shellcap/toolset"
)

// BenchmarkFrontDoorRunTrue measures run_command `true` through the MCP
// front door (an MCP client over HTTP, the session workflow's update, the
// Call activity on the host's worker, against the dev server) and through
// the library (a toolset call on the same host), alternating in the same
// run. It reports both per call and their ratio (frontdoor/library).
func BenchmarkFrontDoorRunTrue(b *testing.B) {
	srv := devserver.ForTest(b)
	c := srv.Dial(b)
	host := "bench-" + sanitize(b.Name())
	ws := b.TempDir()
	w, err := NewWorker(c, testWorkerOptions(host, ws, b.TempDir(), time.Second))
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	ref := WorkspaceRef{Host: host, Path: ws}
	endpoint, _ := serveFrontDoor(b, c, ref)
	cs := connectMCP(b, endpoint, "", "", nil)
	local := localToolset(b, host, ws)
	args := map[string]any{"command": "true"}
	raw := []byte(`{"command":"true"}`)
	if _, isErr, _ := callText(b, cs, toolset.RunCommand, args); isErr { // the session workflow starts
		b.Fatal("run_command true failed through the front door")
	}
	var viaDoor, viaLibrary time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, isErr, _ := callText(b, cs, toolset.RunCommand, args); isErr {
			b.Fatal("run_command true failed through the front door")
		}
		t1 := time.Now()
		res, err := local.Call(context.Background(), nil, toolset.RunCommand, raw, toolset.Hooks{})
		if err != nil || res.IsError {
			b.Fatalf("run_command true failed in the library: %v %+v", err, res)
		}
		viaDoor += t1.Sub(t0)
		viaLibrary += time.Since(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(viaDoor.Nanoseconds())/n, "frontdoor-ns/call")
	b.ReportMetric(float64(viaLibrary.Nanoseconds())/n, "library-ns/call")
	b.ReportMetric(float64(viaDoor)/float64(viaLibrary), "ratio")
}
