package toolset_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

var testMark = leaktest.Mark("SCTEST_TOOLSET_MARK")

func TestMain(m *testing.M) {
	os.Exit(leaktest.Main(m, testMark, 5*time.Second))
}

// newToolset builds a toolset on a Shell in a fresh workspace, with a job
// Manager and toolset.Approve as the Shell's approver.
func newToolset(t *testing.T, sopts shellcap.Options, topts toolset.Options) *toolset.Toolset {
	t.Helper()
	if sopts.Workspace == "" {
		sopts.Workspace = t.TempDir()
	}
	sopts.Env = leaktest.Env(testMark)
	if sopts.Approve == nil {
		sopts.Approve = toolset.Approve
	}
	sh, err := shellcap.New(sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	if topts.Jobs == nil {
		m, err := jobs.New(sh, jobs.Options{KillGrace: 500 * time.Millisecond})
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
		topts.Jobs = m
	}
	topts.Shell = sh
	ts, err := toolset.New(topts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return ts
}

// call runs one tool call and fails the test on an error of the call.
func call(t *testing.T, c *toolset.Conversation, name, args string, hooks toolset.Hooks) *toolset.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := c.Call(ctx, name, []byte(args), hooks)
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return res
}
