package sandbox

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/reexec"
)

// jobCompanionEntry is the re-exec entry point of a background job's
// companion: the process a job's supervisor keeps beside the job, outside
// its sandbox, for what would otherwise run in the host that confined the
// job and may be gone before the job ends. It quarantines, when the job has
// ended, what git or an agent would obey that the job created or changed
// (workspace-write), and serves the job's network allowlist proxy.
const jobCompanionEntry = "sandbox-job-companion"

// jobCompanionEnv carries the companion's task: the Config (not a secret:
// the workspace, the roots, the allowlist) and what to do.
const jobCompanionEnv = "SHELLCAP_SANDBOX_JOB_COMPANION"

// proxyCtlFD is the companion's descriptor of the proxy's control socket.
const proxyCtlFD = 3

// proxyDrain bounds how long the companion waits, after the job ended,
// for its proxy to wind down.
const proxyDrain = 5 * time.Second

func init() { reexec.Register(jobCompanionEntry, jobCompanionMain) }

// jobCompanionTask is what the companion does.
type jobCompanionTask struct {
	Config Config `json:"config"`
	Guard  bool   `json:"guard,omitempty"`
	Proxy  bool   `json:"proxy,omitempty"` // the control socket is proxyCtlFD
}

// jobCompanionReply is one line the companion writes on its stdout: Ready
// once it has taken the workspace as it is (the job may start), then,
// after its stdin ended, what it quarantined.
type jobCompanionReply struct {
	Ready       bool     `json:"ready,omitempty"`
	Quarantined []string `json:"quarantined,omitempty"`
	Error       string   `json:"error,omitempty"`
}

// confineJob confines a background job's command as Wrap does, except that
// an allowlist proxy is not served by this process, and returns the
// companion the job needs (nil when it needs none).
func confineJob(cmd *exec.Cmd, cfg Config) (*shellcap.Enforcement, *exec.Cmd, error) {
	rep, ctl, err := wrapWith(cmd, cfg, true)
	if err != nil {
		return nil, nil, err
	}
	task := jobCompanionTask{Config: cfg, Guard: rep.Profile == WorkspaceWrite, Proxy: ctl != nil}
	if !task.Guard && !task.Proxy {
		return rep.enforcement(), nil, nil
	}
	comp, err := jobCompanionCmd(task)
	if err != nil {
		if ctl != nil {
			ctl.Close()
		}
		closeFiles(cmd.ExtraFiles)
		return nil, nil, err
	}
	if ctl != nil {
		comp.ExtraFiles = []*os.File{ctl}
	}
	return rep.enforcement(), comp, nil
}

func jobCompanionCmd(task jobCompanionTask) (*exec.Cmd, error) {
	data, err := json.Marshal(task)
	if err != nil {
		return nil, err
	}
	cmd, err := reexec.Command(jobCompanionEntry)
	if err != nil {
		return nil, err
	}
	cmd.Env = []string{jobCompanionEnv + "=" + string(data)}
	cmd.Dir = "/"
	return cmd, nil
}

func jobCompanionMain() int {
	out := json.NewEncoder(os.Stdout)
	fail := func(msg string) int {
		_ = out.Encode(jobCompanionReply{Error: msg})
		return 1
	}
	var task jobCompanionTask
	if err := json.Unmarshal([]byte(os.Getenv(jobCompanionEnv)), &task); err != nil {
		return fail("sandbox: job companion: bad task: " + err.Error())
	}
	proxyDone := make(chan struct{})
	if task.Proxy {
		rules, _, err := task.Config.allowlist(NetworkAllowlist)
		if err != nil {
			return fail(err.Error())
		}
		b, err := task.Config.bounds()
		if err != nil {
			return fail(err.Error())
		}
		ctl := os.NewFile(proxyCtlFD, "sandbox-control")
		if ctl == nil {
			return fail("sandbox: job companion: no control socket")
		}
		p := newProxy(rules, b.proxy)
		go func() { defer close(proxyDone); p.run(ctl) }()
	} else {
		close(proxyDone)
	}
	var g *Guard
	if task.Guard {
		var err error
		if g, err = NewGuard(task.Config); err != nil {
			return fail(err.Error())
		}
	}
	if out.Encode(jobCompanionReply{Ready: true}) != nil {
		return 1
	}
	// Until the job has ended, or the supervisor is gone: either way the
	// check runs.
	_, _ = io.Copy(io.Discard, os.Stdin)
	q, err := g.AfterCommand()
	r := jobCompanionReply{Quarantined: q}
	if err != nil {
		r.Error = err.Error()
	}
	_ = out.Encode(r)
	// The proxy ends with the sandbox's PID 1, which has exited.
	select {
	case <-proxyDone:
	case <-time.After(proxyDrain):
	}
	return 0
}
