//go:build linux

package jobs_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// markConfiner is a Confiner that is not package sandbox's: it runs the
// command through env(1) with JOBS_CONFINED=<mark> added, passes it a pipe
// as descriptor 3 holding a token, and, with guard, has a job guard (this
// test binary, see guardHelper) that reports one quarantined file.
type markConfiner struct {
	mark, token string
	guard       bool
	refuse      error
}

func (c markConfiner) Confine(cmd *exec.Cmd, workspace string) (*shellcap.Enforcement, error) {
	if c.refuse != nil {
		return nil, c.refuse
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fmt.Fprint(w, c.token)
	w.Close()
	cmd.Args = append([]string{"env", "JOBS_CONFINED=" + c.mark, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = "/usr/bin/env"
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	return &shellcap.Enforcement{Profile: "mark", Layers: []string{"env"}}, nil
}

// markGuarder is a markConfiner with a job companion (jobs.JobConfiner):
// this test binary (see guardHelper), passed a pipe holding "c-token".
type markGuarder struct{ markConfiner }

func (g markGuarder) ConfineJob(cmd *exec.Cmd, workspace string) (*shellcap.Enforcement, *exec.Cmd, error) {
	enf, err := g.Confine(cmd, workspace)
	if err != nil {
		return nil, nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprint(w, "c-token")
	w.Close()
	comp := exec.Command(os.Args[0])
	comp.Env = []string{helperEnv + "=guard", "SCTEST_JOBS_WS=" + workspace}
	comp.ExtraFiles = []*os.File{r}
	return enf, comp, nil
}

// guardHelper plays a job companion: ready, then, when its stdin ends, it
// reports guard-saw-<the file "made" in the workspace>-<what its
// descriptor 3 holds>.
func guardHelper() int {
	fmt.Println(`{"ready":true}`)
	_, _ = bufio.NewReader(os.Stdin).ReadString(0)
	data, _ := os.ReadFile(os.Getenv("SCTEST_JOBS_WS") + "/made")
	token, _ := io.ReadAll(os.NewFile(3, "token"))
	fmt.Printf("{\"quarantined\":[\"guard-saw-%s-%s\"]}\n", strings.TrimSpace(string(data)), token)
	return 0
}

// TestAnyConfinerConfinesJobs: a Confiner that is not package sandbox's
// confines a Manager's jobs, from the Shell or from Options.Confiner: the
// job runs the command as the Confiner rewrote it, with the descriptor it
// passed, and its results carry the Confiner's Enforcement; a
// JobConfiner's companion runs beside the job, with the descriptor it
// passed, and reports after the job ended; a Confiner that refuses fails
// New.
func TestAnyConfinerConfinesJobs(t *testing.T) {
	_, value, _ := strings.Cut(testMark, "=")
	for _, c := range []struct {
		name  string
		shell shellcap.Confiner // the Shell's
		opts  shellcap.Confiner // Options.Confiner
	}{
		{"shell's", markConfiner{mark: "from-shell", token: "tok-shell"}, nil},
		{"options'", nil, markConfiner{mark: "from-options", token: "tok-options"}},
		{"options' over shell's", markConfiner{mark: "from-shell", token: "tok-shell"}, markGuarder{markConfiner{mark: "from-options", token: "tok-options"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sh, err := shellcap.New(shellcap.Options{Workspace: t.TempDir(), Env: markEnv(value), Sandbox: c.shell})
			if err != nil {
				t.Fatal(err)
			}
			defer sh.Close()
			m := managerOn(t, sh, jobs.Options{Confiner: c.opts})
			want := c.shell
			if c.opts != nil {
				want = c.opts
			}
			mc, guarded := want.(markConfiner)
			if g, ok := want.(markGuarder); ok {
				mc, guarded = g.markConfiner, true
			} else {
				guarded = false
			}
			ctx := ctxFor(t)
			res, err := m.Start(ctx, jobs.StartRequest{Command: `echo "confined=$JOBS_CONFINED"; echo "token=$(cat <&3)"; echo job > made`})
			if err != nil || res.Err != nil {
				t.Fatalf("Start: %v %v", err, res.Err)
			}
			if res.Sandbox == nil || res.Sandbox.Profile != "mark" || !strings.HasSuffix(res.Text(), "\n[sandbox: mark]") {
				t.Fatalf("Start = %q (sandbox %+v)", res.Text(), res.Sandbox)
			}
			w, err := m.Wait(ctx, res.ID, jobs.MaxWait)
			if err != nil || w.Status != jobs.StatusFinished {
				t.Fatalf("Wait: %v %q", err, w.Text())
			}
			if want := "confined=" + mc.mark + "\ntoken=" + mc.token + "\n"; w.Stdout != want {
				t.Fatalf("stdout = %q, want %q (stderr %q)", w.Stdout, want, w.Stderr)
			}
			if w.Sandbox == nil || w.Sandbox.Profile != "mark" {
				t.Fatalf("JobResult.Sandbox = %+v", w.Sandbox)
			}
			var q []string
			if guarded {
				q = []string{"guard-saw-job-c-token"}
			}
			if fmt.Sprint(w.Sandbox.Quarantined) != fmt.Sprint(q) || w.QuarantineError != "" {
				t.Fatalf("quarantined %q (error %q), want %q", w.Sandbox.Quarantined, w.QuarantineError, q)
			}
		})
	}
	sh := newShell(t, "")
	refusal := errors.New("this confiner refuses")
	if _, err := jobs.New(sh, jobs.Options{Confiner: markConfiner{refuse: refusal}}); !errors.Is(err, refusal) {
		t.Fatalf("New with a refusing Confiner: %v", err)
	}
}
