//go:build unix && !darwin && (!linux || shellcap_portable)

package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// Without /proc and without a process-table sysctl this package can
// decode, the facts come from ps(1), which every Unix has: one line per
// process, "pid ppid pgid stat lstart ucomm". lstart has whole seconds,
// so StartTicks are seconds since the Unix epoch here. Linux built with
// the shellcap_portable tag uses this reader, so the portable path is
// tested where no BSD machine is at hand.

// psFields are the columns asked for, with empty headers.
const psFields = "pid=,ppid=,pgid=,stat=,lstart=,ucomm="

// lstartLayout is ctime(3)'s format, which ps prints in the C locale.
const lstartLayout = "Mon Jan 2 15:04:05 2006"

var (
	errNoProcess = fmt.Errorf("proc: no such process: %w", fs.ErrNotExist)
	errBadPS     = errors.New("proc: malformed ps line")
)

// psPath is the ps(1) the reader runs: a fixed system path, never one
// found through the environment's PATH.
var psPath = func() string {
	for _, p := range []string{"/bin/ps", "/usr/bin/ps"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return "/bin/ps"
}()

// ps runs ps(1) with args and parses its lines.
func ps(args ...string) ([]Info, error) {
	cmd := exec.Command(psPath, append([]string{"-o", psFields}, args...)...)
	// The C locale and UTC make lstart parseable and unambiguous.
	cmd.Env = []string{"LC_ALL=C", "TZ=UTC", "PATH=/bin:/usr/bin"}
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		// ps exits 1 when -p names no process.
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) == 0 {
			return nil, nil
		}
		return nil, err
	}
	return parsePS(out)
}

// parsePS parses ps(1) output in psFields' columns.
func parsePS(out []byte) ([]Info, error) {
	var infos []Info
	for line := range bytes.Lines(out) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		info, err := parsePSLine(line)
		if err != nil {
			return nil, err
		}
		infos = append(infos, info)
	}
	return infos, nil
}

func parsePSLine(line []byte) (Info, error) {
	f := bytes.Fields(line)
	// pid ppid pgid stat, five words of lstart, and a name that may
	// hold spaces.
	if len(f) < 10 || len(f[3]) == 0 {
		return Info{}, errBadPS
	}
	pid, err1 := strconv.Atoi(string(f[0]))
	ppid, err2 := strconv.Atoi(string(f[1]))
	pgid, err3 := strconv.Atoi(string(f[2]))
	start, err4 := time.Parse(lstartLayout, string(bytes.Join(f[4:9], []byte(" "))))
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || start.Unix() < 0 {
		return Info{}, errBadPS
	}
	// The name is the rest of the line after the year, as ps printed it.
	rest := line[bytes.Index(line, f[8])+len(f[8]):]
	return Info{
		PID:        pid,
		PPID:       ppid,
		PGID:       pgid,
		State:      f[3][0],
		Comm:       string(bytes.TrimSpace(rest)),
		StartTicks: uint64(start.Unix()),
	}, nil
}

// Stat reads one process's line from ps(1).
func Stat(pid int) (Info, error) {
	if pid <= 0 {
		return Info{}, errNoProcess
	}
	infos, err := ps("-p", strconv.Itoa(pid))
	if err != nil {
		return Info{}, err
	}
	for _, info := range infos {
		if info.PID == pid {
			return info, nil
		}
	}
	return Info{}, errNoProcess
}

// GroupMembers lists the live (non-zombie) processes in group pgid,
// leaving out the process exclude (pass 0 to keep all).
func GroupMembers(pgid, exclude int) ([]Info, error) {
	if pgid <= 0 {
		return nil, nil
	}
	// ps's options that select by group differ between systems; -A does not.
	infos, err := ps("-A")
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, info := range infos {
		if info.PGID == pgid && info.PID != exclude && !info.gone() {
			out = append(out, info)
		}
	}
	return out, nil
}

// HasChild reports whether process pid has a child.
func HasChild(pid int) bool {
	infos, err := ps("-A")
	if err != nil {
		return false
	}
	for _, info := range infos {
		if info.PPID == pid {
			return true
		}
	}
	return false
}

// TicksAt converts a time to StartTicks' unit.
func TicksAt(t time.Time) (uint64, bool) { return uint64(max(t.Unix(), 0)), true }
