// Package toolsettest builds what the framework adapters' tests run on: a
// real Shell on a fresh workspace with toolset.Approve as its approver, a
// job Manager, and a toolset over both, all closed when the test ends (the
// jobs a test left running are stopped first). The adapters are nested
// modules under this module's path, so they may import it.
package toolsettest

import (
	"context"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

// Options adjust the fixture; the zero value is the usual one.
type Options struct {
	// Shell are the Shell's options. An empty Workspace means a fresh
	// temporary directory; a nil Approve means toolset.Approve.
	Shell shellcap.Options
	// Toolset are the toolset's options; Shell and Jobs are set here.
	Toolset toolset.Options
	// KeyDir is the job Manager's key directory; empty means the default.
	KeyDir string
}

// New returns the toolset and the workspace it runs in.
func New(t testing.TB, o Options) (*toolset.Toolset, string) {
	t.Helper()
	so := o.Shell
	if so.Workspace == "" {
		so.Workspace = t.TempDir()
	}
	if so.Approve == nil {
		so.Approve = toolset.Approve
	}
	sh, err := shellcap.New(so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	m, err := jobs.New(sh, jobs.Options{KillGrace: 500 * time.Millisecond, KeyDir: o.KeyDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if list, err := m.List(context.Background()); err == nil {
			for _, j := range list.Jobs {
				m.Stop(context.Background(), jobs.StopRequest{ID: j.ID})
			}
		}
		m.Close()
	})
	to := o.Toolset
	to.Shell, to.Jobs = sh, m
	ts, err := toolset.New(to)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return ts, so.Workspace
}
