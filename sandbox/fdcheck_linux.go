package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A descriptor handed to a confined command bypasses every path-based
// layer: whatever file it names, the command reads and writes it through
// the descriptor. So before a command starts, every descriptor it is given
// (its standard streams, the launcher's extra files) is checked on the
// host, and the command is refused when one could reach a host file or
// directory beyond what the profile grants. Allowed are:
//
//   - pipes and sockets (they reach only what the host connects them to);
//   - memfds (anonymous memory, no host file);
//   - the null-like devices (/dev/null, zero, full, random, urandom) and
//     pseudo-terminals other than the host process's own controlling
//     terminal;
//   - regular files open for writing beneath a writable root the profile
//     grants, and regular files open read-only, directories and O_PATH
//     descriptors beneath a root it lets the command read or write; never
//     beneath a root's .shellcap, which the sandbox hides.
//
// Everything else is refused: a writable file in the host's /tmp (the
// sandbox's /tmp is private) or beneath .shellcap, a deleted file, a
// directory outside the writable roots, a block device, an anonymous
// inode (a pidfd, an eventfd, an epoll instance of the host's).

// fdGrants is what a descriptor may reach: the writable roots of a
// profile, without the private directories and devices the sandbox makes
// itself. full means FullAccess: nothing is confined.
type fdGrants struct {
	full     bool
	writable []string
	readable []string // further roots the command may read
}

// grantsOf returns the descriptor grants of a planned policy.
func grantsOf(pol *policy) fdGrants {
	if pol.Profile == FullAccess {
		return fdGrants{full: true}
	}
	var g fdGrants
	for _, w := range pol.Writable {
		if !isBuiltinRoot(w) {
			g.writable = append(g.writable, w)
		}
	}
	for _, r := range pol.Readable {
		if !isBuiltinRoot(r) && r != "/dev" {
			g.readable = append(g.readable, r)
		}
	}
	return g
}

// checkFDs checks every descriptor in fds, naming the first one refused
// by its position (0, 1, 2 are the standard streams).
func (g fdGrants) checkFDs(fds []int) error {
	if g.full {
		return nil
	}
	for i, fd := range fds {
		if err := g.checkFD(fd); err != nil {
			return fmt.Errorf("sandbox: descriptor %d of the command: %w", i, err)
		}
	}
	return nil
}

// checkFile checks the descriptor of f, when f is an *os.File.
func (g fdGrants) checkFile(i int, s any) error {
	f, ok := s.(*os.File)
	if !ok || f == nil || g.full {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("sandbox: descriptor %d of the command: %w", i, err)
	}
	var cerr error
	if err := rc.Control(func(fd uintptr) { cerr = g.checkFD(int(fd)) }); err != nil {
		return fmt.Errorf("sandbox: descriptor %d of the command: %w", i, err)
	}
	if cerr != nil {
		return fmt.Errorf("sandbox: descriptor %d of the command: %w", i, cerr)
	}
	return nil
}

// Device numbers of the devices a descriptor may name.
var nullDevices = map[uint64]bool{
	unix.Mkdev(1, 3): true, // null
	unix.Mkdev(1, 5): true, // zero
	unix.Mkdev(1, 7): true, // full
	unix.Mkdev(1, 8): true, // random
	unix.Mkdev(1, 9): true, // urandom
}

func (g fdGrants) checkFD(fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("cannot inspect it: %w", err)
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return fmt.Errorf("cannot inspect it: %w", err)
	}
	link, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	writable := flags&unix.O_PATH == 0 && flags&unix.O_ACCMODE != unix.O_RDONLY
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO, unix.S_IFSOCK:
		return nil
	case unix.S_IFCHR:
		if nullDevices[st.Rdev] {
			return nil
		}
		if isPTY(st.Rdev) {
			if st.Rdev == hostTerminal() {
				return fmt.Errorf("it is the host's own terminal %s", link)
			}
			return nil
		}
		return fmt.Errorf("it is the device %s, which the sandbox does not grant", link)
	case unix.S_IFREG:
		if isMemfd(fd, link) {
			return nil
		}
		if writable {
			return g.beneath(link, "a writable file", g.writable)
		}
		return g.beneath(link, "a file", g.writable, g.readable)
	case unix.S_IFDIR:
		return g.beneath(link, "a directory", g.writable, g.readable)
	}
	if strings.HasPrefix(link, "anon_inode:") {
		return fmt.Errorf("it is %s of the host", link)
	}
	return fmt.Errorf("it is %s, which the sandbox does not grant", link)
}

// beneath accepts path only beneath one of the roots and outside every
// root's state directory.
func (g fdGrants) beneath(path, what string, roots ...[]string) error {
	if !filepath.IsAbs(path) || strings.HasSuffix(path, " (deleted)") {
		return fmt.Errorf("it is %s with no path (%q) the profile grants", what, path)
	}
	for _, w := range append(append([]string{}, g.writable...), g.readable...) {
		if state := filepath.Join(w, stateDirName); w != "/" && (path == state || strings.HasPrefix(path, state+"/")) {
			return fmt.Errorf("it is %s %s inside shellcap's state directory", what, path)
		}
	}
	for _, rs := range roots {
		for _, r := range rs {
			if path == r || r == "/" || strings.HasPrefix(path, r+"/") {
				return nil
			}
		}
	}
	if len(roots) == 1 {
		return fmt.Errorf("it is %s %s outside the writable roots the profile grants", what, path)
	}
	return fmt.Errorf("it is %s %s outside the roots the profile grants", what, path)
}

// isMemfd reports an anonymous memory file.
func isMemfd(fd int, link string) bool {
	if !strings.HasPrefix(link, "/memfd:") {
		return false
	}
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	return err == nil
}

// isPTY reports the device number of a pseudo-terminal's master (/dev/ptmx)
// or terminal side (the UNIX 98 majors 136 to 143).
func isPTY(rdev uint64) bool {
	major := unix.Major(rdev)
	return rdev == unix.Mkdev(5, 2) || major >= 136 && major <= 143
}

// hostTerminal is the device number of this process's controlling
// terminal, 0 when it has none.
func hostTerminal() uint64 {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 5 {
		return 0
	}
	n, err := strconv.ParseUint(f[4], 10, 32)
	if err != nil {
		return 0
	}
	// tty_nr: minor in bits 31..20 and 7..0, major in bits 15..8.
	return unix.Mkdev(uint32(n>>8&0xfff), uint32(n&0xff|n>>12&0xfff00))
}
