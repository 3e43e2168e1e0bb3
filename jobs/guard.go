package jobs

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"time"
)

// JobGuarder is implemented by a Confiner whose confinement needs a check
// of the workspace after each job, run even when the host that started the
// job is gone: package sandbox's Confiner for the workspace-write profile,
// whose check quarantines what git or an agent on the host would obey that
// the job created or changed.
//
// JobGuard prepares, without starting it, the guard process for
// workspace; nil means the job needs none. The job's supervisor starts it
// before the job, with its standard input and output pipes to the
// supervisor (its own environment, directory and arguments as prepared;
// no other descriptor, no process attributes). The guard writes one JSON
// line {"ready": true} once it has taken the workspace as it is (or
// {"error": "..."}, and the job is not started); when its standard input
// ends (the job has ended, or the supervisor is gone), it checks and
// writes one line {"quarantined": [...], "error": "..."} and exits. The
// job's status and results carry what it quarantined
// (Enforcement.Quarantined) and why the check failed (QuarantineError).
type JobGuarder interface {
	JobGuard(workspace string) (*exec.Cmd, error)
}

// guardSpec is the guard process of a job, as the spec carries it.
type guardSpec struct {
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
}

// guardOf prepares c's guard for a job in workspace: nil when c has none
// or needs none for this job.
func guardOf(c any, workspace string) (*guardSpec, error) {
	g, ok := c.(JobGuarder)
	if !ok {
		return nil, nil
	}
	cmd, err := g.JobGuard(workspace)
	if err != nil || cmd == nil {
		return nil, err
	}
	if len(cmd.ExtraFiles) > 0 || cmd.SysProcAttr != nil || cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil {
		closeExtraFiles(cmd)
		return nil, errors.New("the Confiner's job guard must have no descriptors, streams or process attributes of its own")
	}
	env := cmd.Env
	if env == nil {
		env = []string{}
	}
	return &guardSpec{Path: cmd.Path, Args: cmd.Args, Env: env, Dir: cmd.Dir}, nil
}

// guardTimeout bounds each answer of a guard process.
const guardTimeout = 30 * time.Second

// guardReply is one line of a guard process.
type guardReply struct {
	Ready       bool     `json:"ready,omitempty"`
	Quarantined []string `json:"quarantined,omitempty"`
	Error       string   `json:"error,omitempty"`
}

// guardProc is a running guard process.
type guardProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *os.File
	r   *bufio.Reader
}

// startGuard starts the guard and waits until it is ready.
func startGuard(g *guardSpec) (*guardProc, error) {
	cmd := &exec.Cmd{Path: g.Path, Args: g.Args, Env: g.Env, Dir: g.Dir}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		in.Close()
		return nil, err
	}
	cmd.Stdout = outW
	err = cmd.Start()
	outW.Close()
	if err != nil {
		in.Close()
		outR.Close()
		return nil, errors.New("workspace guard: " + err.Error())
	}
	p := &guardProc{cmd: cmd, in: in, out: outR, r: bufio.NewReader(outR)}
	rep, err := p.read()
	if err == nil && !rep.Ready {
		err = errors.New(rep.Error)
	}
	if err != nil {
		p.finish()
		return nil, errors.New("workspace guard: " + err.Error())
	}
	return p, nil
}

func (p *guardProc) read() (guardReply, error) {
	var rep guardReply
	_ = p.out.SetReadDeadline(time.Now().Add(guardTimeout))
	line, err := p.r.ReadBytes('\n')
	if err != nil {
		return rep, errors.New("no answer: " + err.Error())
	}
	if err := json.Unmarshal(line, &rep); err != nil {
		return rep, errors.New("bad answer: " + err.Error())
	}
	return rep, nil
}

// finish tells the guard the job has ended and returns what it
// quarantined and, when the check failed, why. It does nothing for nil.
func (p *guardProc) finish() (quarantined []string, failure string) {
	if p == nil {
		return nil, ""
	}
	p.in.Close()
	rep, err := p.read()
	p.out.Close()
	if err != nil {
		_ = p.cmd.Process.Kill()
		rep.Error = err.Error()
	}
	_ = p.cmd.Wait()
	return rep.Quarantined, rep.Error
}
