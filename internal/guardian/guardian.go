// Package guardian makes the commands of a process die with it, even when
// it is killed with SIGKILL and has no chance to clean up.
//
// Start launches a small helper, this same binary re-executed (see package
// reexec), that holds the read end of a pipe from its parent. The parent
// registers each process group it starts and each scratch directory it
// creates; when the pipe reaches end-of-file, because the parent closed it
// or died, the helper kills every group still registered and removes every
// directory, then exits. A group is killed only while it is provably the
// one registered: its leader, if alive, must have the start time recorded
// at registration, so a reused process ID is never signalled.
//
// PR_SET_PDEATHSIG is not enough for this: it reaches only the process
// that set it, not the group's other members, and a shell script's
// children do not inherit it.
package guardian

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shellcap/shellcap/internal/proc"
	"github.com/shellcap/shellcap/internal/reexec"
)

// entry is the reexec name of the helper.
const entry = "guardian"

func init() { reexec.Register(entry, helperMain) }

// ErrUnsupported reports a platform without the process table the
// guardian relies on (/proc).
var ErrUnsupported = errors.New("guardian: supported on Linux only")

// ErrGone reports a guardian that can no longer be told about a group: it
// exited or was killed. Commands started now would not die with us.
var ErrGone = errors.New("guardian: the guardian process is gone")

// Guardian is the parent's end. It is safe for concurrent use.
type Guardian struct {
	mu     sync.Mutex
	w      *os.File
	err    error
	exited chan struct{}
	pid    int
}

// Start launches the helper.
func Start() (*Guardian, error) {
	if runtime.GOOS != "linux" {
		return nil, ErrUnsupported
	}
	cmd, err := reexec.Command(entry)
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin = r
	// Its own group, so a terminal's ^C to ours does not reach it first;
	// it ignores the termination signals anyway and ends on end-of-file.
	cmd.SysProcAttr = ownGroup()
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("guardian: %w", err)
	}
	r.Close()
	g := &Guardian{w: w, exited: make(chan struct{}), pid: cmd.Process.Pid}
	go func() {
		_ = cmd.Wait()
		close(g.exited)
	}()
	return g, nil
}

// PID returns the helper's process ID.
func (g *Guardian) PID() int { return g.pid }

// WatchGroup registers process group pgid, whose leader pgid is running
// (or a zombie not yet reaped). release unregisters it; call it once the
// group is known to be gone or is handed to someone else. An error means
// the group is not protected.
func (g *Guardian) WatchGroup(pgid int) (release func(), err error) {
	if pgid <= 1 {
		return nil, fmt.Errorf("guardian: invalid process group %d", pgid)
	}
	info, err := proc.Stat(pgid)
	if err != nil {
		return nil, fmt.Errorf("guardian: cannot read process %d: %w", pgid, err)
	}
	rec := strconv.Itoa(pgid) + " " + strconv.FormatUint(info.StartTicks, 10)
	if err := g.send("+g " + rec); err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { _ = g.send("-g " + rec) }) }, nil
}

// WatchDir registers a directory to remove when we die.
func (g *Guardian) WatchDir(path string) (release func(), err error) {
	rec := hex.EncodeToString([]byte(path))
	if err := g.send("+d " + rec); err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { _ = g.send("-d " + rec) }) }, nil
}

func (g *Guardian) send(line string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return g.err
	}
	// A write only fails once no process holds the pipe's read end; the
	// helper's own state says at once whether it is still there to act
	// on what it reads.
	if !g.alive() {
		g.err = fmt.Errorf("%w: process %d exited", ErrGone, g.pid)
		return g.err
	}
	if _, err := g.w.Write([]byte(line + "\n")); err != nil {
		g.err = fmt.Errorf("%w: %v", ErrGone, err)
		return g.err
	}
	return nil
}

// alive reports whether the helper runs: not reaped, not a zombie.
func (g *Guardian) alive() bool {
	select {
	case <-g.exited:
		return false
	default:
	}
	info, err := proc.Stat(g.pid)
	return err == nil && info.State != 'Z' && info.State != 'X'
}

// Close ends the guardian as our death would: whatever is still
// registered is killed or removed. It waits for the helper to exit.
func (g *Guardian) Close() error {
	g.mu.Lock()
	if g.err == nil {
		g.err = errors.New("guardian: closed")
	}
	w := g.w
	g.w = nil
	g.mu.Unlock()
	if w == nil {
		return nil
	}
	err := w.Close()
	select {
	case <-g.exited:
	case <-time.After(5 * time.Second):
		return errors.New("guardian: the helper did not exit")
	}
	return err
}

type group struct {
	pgid  int
	ticks uint64
}

// helperMain is the helper: it reads registrations until end-of-file,
// then kills and removes what is left.
func helperMain() int {
	ignoreSignals()
	groups := map[group]int{} // registrations may repeat
	dirs := map[string]int{}
	r := bufio.NewReader(os.Stdin)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			break
		}
		parseLine(strings.TrimSuffix(line, "\n"), groups, dirs)
	}
	for g := range groups {
		kill(g)
	}
	for d := range dirs {
		_ = os.RemoveAll(d)
	}
	return 0
}

func parseLine(line string, groups map[group]int, dirs map[string]int) {
	op, arg, ok := strings.Cut(line, " ")
	if !ok {
		return
	}
	switch op {
	case "+g", "-g":
		p, t, ok := strings.Cut(arg, " ")
		pgid, err1 := strconv.Atoi(p)
		ticks, err2 := strconv.ParseUint(t, 10, 64)
		if !ok || err1 != nil || err2 != nil || pgid <= 1 {
			return
		}
		count(groups, group{pgid, ticks}, op[0] == '+')
	case "+d", "-d":
		b, err := hex.DecodeString(arg)
		if err != nil || !strings.HasPrefix(string(b), "/") {
			return
		}
		count(dirs, string(b), op[0] == '+')
	}
}

func count[K comparable](m map[K]int, k K, add bool) {
	if add {
		m[k]++
		return
	}
	if m[k]--; m[k] <= 0 {
		delete(m, k)
	}
}

// kill SIGKILLs group g while it is still the registered one, until it
// has no member left (a member may fork while it is being killed).
func kill(g group) {
	for range 50 {
		if !same(g) {
			return
		}
		if err := proc.SignalGroup(g.pgid, sigKILL); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
		if members, err := proc.GroupMembers(g.pgid, 0); err == nil && len(members) == 0 {
			return
		}
	}
}

// same reports whether group g still exists as registered: a live leader
// must be the process recorded (same start time); without a leader, the
// group's ID cannot have been reused while members remain, since Linux
// does not hand out a process ID still in use as a group ID.
func same(g group) bool {
	if info, err := proc.Stat(g.pgid); err == nil {
		return info.StartTicks == g.ticks
	}
	members, err := proc.GroupMembers(g.pgid, 0)
	return err == nil && len(members) > 0
}
