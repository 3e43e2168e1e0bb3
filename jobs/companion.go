package jobs

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/shellcap/shellcap"
)

// JobConfiner is implemented by a Confiner whose confinement of a job
// needs a companion process beside the job, outside the confinement, that
// must outlive the host that started the job: package sandbox's Confiner,
// whose companion quarantines, when the job ends, what git or an agent on
// the host would obey that the job created or changed (workspace-write),
// and serves the job's network allowlist proxy.
//
// ConfineJob confines cmd as Confine does and returns the companion,
// prepared but not started, or nil when the job needs none. The job's
// supervisor starts the companion before the job, with its standard input
// and output pipes to the supervisor, its own arguments, environment and
// directory, and its ExtraFiles (no process attributes). The companion
// writes one JSON line {"ready": true} when the job may start (or
// {"error": "..."}, and the job is not started); when its standard input
// ends (the job has ended, or the supervisor is gone), it writes one line
// {"quarantined": [...], "error": "..."} and exits. The job's status and
// results carry what it quarantined (Enforcement.Quarantined) and why its
// check failed (QuarantineError).
type JobConfiner interface {
	shellcap.Confiner
	ConfineJob(cmd *exec.Cmd, workspace string) (*shellcap.Enforcement, *exec.Cmd, error)
}

// companionSpec is the companion process of a job, as the spec carries
// it; its ExtraFiles descriptors follow the command's.
type companionSpec struct {
	Path       string   `json:"path"`
	Args       []string `json:"args"`
	Env        []string `json:"env"`
	Dir        string   `json:"dir"`
	ExtraFiles int      `json:"extra_files,omitempty"`
}

// companionOf checks a Confiner's companion and turns it into the spec's
// form; nil for nil.
func companionOf(cmd *exec.Cmd) (*companionSpec, error) {
	if cmd == nil {
		return nil, nil
	}
	if cmd.SysProcAttr != nil || cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil {
		return nil, errors.New("the Confiner's job companion must have no standard streams or process attributes of its own")
	}
	env := cmd.Env
	if env == nil {
		env = []string{}
	}
	return &companionSpec{Path: cmd.Path, Args: cmd.Args, Env: env, Dir: cmd.Dir, ExtraFiles: len(cmd.ExtraFiles)}, nil
}

// How long a companion may take to answer: that it is ready (within the
// start of the job, which Start bounds by launchTimeout as a whole), and
// what it found after the job (a scan of the workspace).
const (
	companionReadyTimeout = launchTimeout
	companionFinalTimeout = 2 * time.Minute
)

// companionReply is one line of a companion.
type companionReply struct {
	Ready       bool     `json:"ready,omitempty"`
	Quarantined []string `json:"quarantined,omitempty"`
	Error       string   `json:"error,omitempty"`
}

// companion is a running companion.
type companion struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *os.File
	r   *bufio.Reader
}

// startCompanion starts the companion, passing it extra, and waits until
// it is ready.
func startCompanion(g *companionSpec, extra []*os.File) (*companion, error) {
	cmd := &exec.Cmd{Path: g.Path, Args: g.Args, Env: g.Env, Dir: g.Dir, ExtraFiles: extra}
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
		return nil, errors.New("job companion: " + err.Error())
	}
	p := &companion{cmd: cmd, in: in, out: outR, r: bufio.NewReader(outR)}
	rep, err := p.read(companionReadyTimeout)
	if err == nil && !rep.Ready {
		err = errors.New(rep.Error)
	}
	if err != nil {
		p.finish()
		return nil, errors.New("job companion: " + err.Error())
	}
	return p, nil
}

func (p *companion) read(timeout time.Duration) (companionReply, error) {
	var rep companionReply
	_ = p.out.SetReadDeadline(time.Now().Add(timeout))
	line, err := p.r.ReadBytes('\n')
	if err != nil {
		return rep, errors.New("no answer: " + err.Error())
	}
	if err := json.Unmarshal(line, &rep); err != nil {
		return rep, errors.New("bad answer: " + err.Error())
	}
	return rep, nil
}

// finish tells the companion the job has ended and returns what it
// quarantined and, when the check failed, why. It does nothing for nil.
func (p *companion) finish() (quarantined []string, failure string) {
	if p == nil {
		return nil, ""
	}
	p.in.Close()
	rep, err := p.read(companionFinalTimeout)
	p.out.Close()
	if err != nil {
		_ = p.cmd.Process.Kill()
		rep.Error = err.Error()
	}
	_ = p.cmd.Wait()
	return rep.Quarantined, rep.Error
}
