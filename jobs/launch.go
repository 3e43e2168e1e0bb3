package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/internal/reexec"
)

// launchTimeout bounds how long Start waits for the supervisor to report
// that the command runs.
const launchTimeout = 30 * time.Second

// startConfig is one job to start.
type startConfig struct {
	command  string
	dir      string
	env      map[string]string
	stdin    bool
	combined bool
	timeout  time.Duration // 0: none
	// id is the caller-chosen job ID (StartRequest.ID); empty: a fresh
	// random one.
	id string
}

// startOutcome is a started job, or why none was started: refusal is the
// refusal for the model (a *shellcap.RequestError or a policy refusal).
// reattached reports a caller-chosen ID that named a job already: then
// job and st are that job, or, for one stopped and removed, final is the
// result its Stop recorded (and job is nil).
type startOutcome struct {
	job        *job
	st         *status
	refusal    error
	reattached bool
	final      *JobResult
}

// start admits, prepares, confines and starts a job, through the Shell's
// pipeline (core.Of(sh): Admit, Cmd) as Shell.Run does.
func (m *Manager) start(ctx context.Context, cfg startConfig) (startOutcome, error) {
	if err := m.usable(); err != nil {
		return startOutcome{}, err
	}
	if err := m.checkWorkspace(); err != nil {
		return startOutcome{}, err
	}
	if cfg.id != "" {
		if !validID(cfg.id) {
			return startOutcome{refusal: invalidID(cfg.id)}, nil
		}
		// A retried start of a job that exists runs nothing, so it is
		// not admitted again.
		if out, ok := m.existing(cfg); ok {
			return out, nil
		}
	}
	c := core.Of(m.sh)
	if err := c.Admit(ctx, cfg.command); err != nil {
		return startOutcome{refusal: err}, nil
	}
	cmd, err := c.Cmd(cfg.command, cfg.dir, cfg.env)
	if err != nil {
		var re *shellcap.RequestError
		if errors.As(err, &re) {
			return startOutcome{refusal: err}, nil
		}
		return startOutcome{}, err
	}
	hostEnv := cmd.Env // the supervisor's own environment (see supervisorEnv)
	sp := &spec{
		Command:      cfg.command,
		Combined:     cfg.combined,
		Stdin:        cfg.stdin,
		MaxLogBytes:  m.opts.MaxLogBytes,
		MaxFileBytes: c.Settings.MaxFileBytes,
		CPUTimeMS:    c.Settings.CPUTime.Milliseconds(),
		MemoryLimit:  c.Settings.MemoryLimit,
		MaxProcesses: c.Settings.MaxProcesses,
		GraceMS:      m.opts.KillGrace.Milliseconds(),
		TimeoutMS:    cfg.timeout.Milliseconds(),
	}
	var extra []*os.File // the confined command's descriptors, then its companion's
	if m.confiner != nil {
		var comp *exec.Cmd
		if sp.Sandbox, comp, err = confine(m.confiner, cmd, m.ws); err != nil {
			return startOutcome{}, &shellcap.StartError{Err: err}
		}
		extra = append(extra, cmd.ExtraFiles...)
		if comp != nil {
			extra = append(extra, comp.ExtraFiles...)
		}
		defer func() { // the supervisor has its copies
			for _, f := range extra {
				_ = f.Close()
			}
		}()
		if sp.Companion, err = companionOf(comp); err != nil {
			return startOutcome{}, &shellcap.StartError{Err: fmt.Errorf("cannot confine the job: %w", err)}
		}
	}
	if sp.Attr, err = attrOf(cmd.SysProcAttr); err == nil && len(extra) > maxExtraFiles {
		err = fmt.Errorf("the Confiner passes %d descriptors, more than a job can carry (%d)", len(extra), maxExtraFiles)
	}
	if err != nil {
		return startOutcome{}, &shellcap.StartError{Err: fmt.Errorf("cannot confine the job: %w", err)}
	}
	sp.Path, sp.Args, sp.Workdir, sp.Env, sp.ExtraFiles = cmd.Path, cmd.Args, cmd.Dir, cmd.Env, len(cmd.ExtraFiles)
	if cfg.id != "" {
		// One start of the ID at a time, in any process; the later ones
		// find the job the first one launched.
		lock, err := m.lockStart(ctx, cfg.id)
		if err != nil {
			return startOutcome{}, err
		}
		defer lock.release()
		if err := m.settleLaunch(ctx, cfg.id); err != nil {
			return startOutcome{}, err
		}
		if out, ok := m.existing(cfg); ok {
			return out, nil
		}
		sp.Named = true
	}
	j, refusal := m.reserve(cfg.id)
	if j == nil {
		return startOutcome{refusal: refusal}, nil
	}
	sp.ID, sp.Dir, sp.Key, sp.KeyDir = j.id, j.dir, m.key, m.keyDir
	st, err := m.launch(ctx, j, sp, hostEnv, extra)
	if err != nil {
		m.forget(j)
		_ = removeJobDir(j.dir)
		return startOutcome{}, err
	}
	j.mu.Lock()
	j.st = st
	j.mu.Unlock()
	j.launching.Store(false)
	return startOutcome{job: j, st: st}, nil
}

// reserve takes a slot under MaxJobs and the ID id (empty: a fresh one),
// or says why not. A caller-chosen ID is reserved under its start lock,
// after existing found no job with it.
func (m *Manager) reserve(id string) (*job, error) {
	m.mu.Lock()
	full := m.runningCount() >= m.opts.MaxJobs
	m.mu.Unlock()
	if full {
		// Some may have finished since we last looked.
		for _, j := range m.snapshot() {
			if !j.finished.Load() {
				_, _, _ = m.refresh(j)
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.runningCount() >= m.opts.MaxJobs {
		return nil, tooManyJobs(m.opts.MaxJobs)
	}
	if id == "" {
		id = newID()
	}
	j := m.newJob(id)
	j.ours = true
	j.launching.Store(true)
	m.jobs[j.id] = j
	return j, nil
}

// launch starts the supervisor for j and waits until it reports the
// command running. The spec travels over an inherited pipe, never in argv;
// extra are the descriptors of the confined command and its companion,
// passed on after it.
func (m *Manager) launch(ctx context.Context, j *job, sp *spec, env []string, extra []*os.File) (*status, error) {
	root, err := openJobsRoot(m.ws, true)
	if err != nil {
		return nil, err
	}
	d, err := root.MkdirAll(j.id, 0o700)
	root.Close()
	if err != nil {
		return nil, err
	}
	d.Close()
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	replyR, replyW, err := os.Pipe()
	if err != nil {
		closeFiles(specR, specW)
		return nil, err
	}
	sup, err := reexec.Command(supervisorEntry)
	if err != nil {
		closeFiles(specR, specW, replyR, replyW)
		return nil, err
	}
	sup.Env = supervisorEnv(env)
	sup.Dir = "/"
	sup.ExtraFiles = append([]*os.File{specR, replyW}, extra...)
	sup.SysProcAttr = sessionAttr()
	err = sup.Start()
	closeFiles(specR, replyW)
	if err != nil {
		closeFiles(specW, replyR)
		return nil, &shellcap.StartError{Err: err}
	}
	pid := sup.Process.Pid
	_ = sup.Process.Release() // reaped by m.reap, without a goroutine per job
	m.mu.Lock()
	m.children[pid] = j.dir
	m.mu.Unlock()

	deadline := time.Now().Add(launchTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	sp.StartBy = deadline.UnixNano()
	data, _ := json.Marshal(sp)
	_ = specW.SetWriteDeadline(deadline)
	_, werr := specW.Write(data)
	specW.Close()
	_ = replyR.SetReadDeadline(deadline)
	out, rerr := io.ReadAll(io.LimitReader(replyR, 1<<20))
	replyR.Close()
	var rep reply
	if werr == nil && rerr == nil && json.Unmarshal(out, &rep) == nil && rep.Error == "" && rep.Status != nil {
		return rep.Status, nil
	}
	m.abandon(pid, j.dir)
	switch {
	case rep.Error != "":
		err = errors.New(rep.Error)
	case werr != nil:
		err = werr
	case rerr != nil:
		err = rerr
	default:
		err = errors.New("the job supervisor exited without reporting")
	}
	return nil, &shellcap.StartError{Err: err}
}

// supervisorEnv is the supervisor's own environment: the command's (so
// that whatever finds a job's processes by their environment finds the
// supervisor too), and, unless set there, no race-detector exit delay
// (which only race-enabled builds read).
func supervisorEnv(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GORACE=") {
			return env
		}
	}
	return append(slices.Clip(env), "GORACE=atexit_sleep_ms=0")
}

// abandon makes sure a supervisor that failed to report leaves nothing
// running: it asks it to stop (which stops the command if it got that far),
// then kills it. It is this process's unreaped child, so its PID is safe
// to signal.
func (m *Manager) abandon(pid int, dir string) {
	// Take over reaping it, so that nobody else reaps it (and lets its
	// PID be reused) while it is being signalled.
	m.mu.Lock()
	_, ours := m.children[pid]
	delete(m.children, pid)
	m.mu.Unlock()
	if ours {
		_ = killPID(pid, syscall.SIGTERM)
		deadline := time.Now().Add(m.opts.KillGrace + 5*time.Second)
		for !reapChild(pid) {
			if time.Now().After(deadline) {
				_ = killPID(pid, syscall.SIGKILL)
				for !reapChild(pid) {
					time.Sleep(5 * time.Millisecond)
				}
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if st, _, err := readStatus(m.key, dir); err == nil && !st.finished() {
		killCommand(st, m.opts.KillGrace)
	}
}
