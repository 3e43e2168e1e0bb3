//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/shellcap/shellcap/internal/proc"
)

// dirPrefix names a session's private directory; the creating process's
// ID follows it.
const dirPrefix = "shellcap-session-"

var sweepOnce sync.Once

// removeStaleDirs removes the private directories of sessions whose
// creating process is gone (killed before it could clean up): the PID in
// the name is no longer running, or now belongs to a process started
// after the directory was made. A directory whose creator may be alive,
// that is not ours, or not a plain directory, is left alone.
func removeStaleDirs(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), dirPrefix)
		if !ok {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		path := filepath.Join(tmp, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
			continue
		}
		if creatorAlive(pid, fi) {
			continue
		}
		_ = os.RemoveAll(path)
	}
}

// creatorAlive reports whether process pid may still be the one that
// created the directory described by fi. In doubt, it says yes.
func creatorAlive(pid int, fi os.FileInfo) bool {
	info, err := proc.Stat(pid)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		return true
	}
	made, ok := proc.TicksAt(fi.ModTime())
	if !ok {
		return true
	}
	// A process started after the directory was made did not make it.
	return info.StartTicks <= made+1
}
