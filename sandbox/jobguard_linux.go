package sandbox

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"

	"github.com/shellcap/shellcap/internal/reexec"
)

// jobGuardEntry is the re-exec entry point of a job's workspace guard: the
// process a job's supervisor keeps beside a confined job so that what git
// or an agent would obey that the job creates is quarantined when the job
// ends, even when the host that started the job is gone (see
// confiner.JobGuard).
const jobGuardEntry = "sandbox-job-guard"

// jobGuardEnv carries the guard's Config (not a secret: the workspace and
// the writable roots).
const jobGuardEnv = "SHELLCAP_SANDBOX_JOB_GUARD"

func init() { reexec.Register(jobGuardEntry, jobGuardMain) }

// jobGuardReply is one line the guard writes on its stdout: Ready once it
// has taken the workspace as it is (the job may start), then, after its
// stdin ended, what it quarantined.
type jobGuardReply struct {
	Ready       bool     `json:"ready,omitempty"`
	Quarantined []string `json:"quarantined,omitempty"`
	Error       string   `json:"error,omitempty"`
}

// jobGuardCmd prepares the guard process for cfg (its Workspace filled
// in); nil when cfg's profile needs no guard.
func jobGuardCmd(cfg Config) (*exec.Cmd, error) {
	if prof, err := cfg.profile(); err != nil || prof != WorkspaceWrite {
		return nil, err
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	cmd, err := reexec.Command(jobGuardEntry)
	if err != nil {
		return nil, err
	}
	cmd.Env = []string{jobGuardEnv + "=" + string(data)}
	cmd.Dir = "/"
	return cmd, nil
}

func jobGuardMain() int {
	out := json.NewEncoder(os.Stdout)
	var cfg Config
	if err := json.Unmarshal([]byte(os.Getenv(jobGuardEnv)), &cfg); err != nil {
		_ = out.Encode(jobGuardReply{Error: "sandbox: job guard: bad configuration: " + err.Error()})
		return 2
	}
	g, err := NewGuard(cfg)
	if err != nil {
		_ = out.Encode(jobGuardReply{Error: err.Error()})
		return 1
	}
	if out.Encode(jobGuardReply{Ready: true}) != nil {
		return 1
	}
	// Until the job has ended, or the supervisor is gone: either way the
	// check runs.
	_, _ = io.Copy(io.Discard, os.Stdin)
	q, err := g.AfterCommand()
	r := jobGuardReply{Quarantined: q}
	if err != nil {
		r.Error = err.Error()
	}
	_ = out.Encode(r)
	return 0
}
