package sandbox

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// startAllowlist is the in-sandbox half of the network allowlist. It runs
// in a fresh network namespace, with CAP_NET_ADMIN there and before any
// capability is dropped: it raises lo, listens on 127.0.0.1:proxyPort,
// opens a pidfd of the calling process (the sandbox's PID 1) and sends both
// descriptors over ctl to the host, which serves the proxy on that
// listener until the pidfd reports the exit. It closes its copies and ctl,
// and returns the variables that point the command's HTTP clients at the
// proxy.
func startAllowlist(ctl *os.File) ([]string, error) {
	defer ctl.Close()
	if err := raiseLoopback(); err != nil {
		return nil, err
	}
	ln, err := listenLoopback(proxyPort)
	if err != nil {
		return nil, err
	}
	defer unix.Close(ln)
	pidfd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return nil, fmt.Errorf("allowlist: pidfd_open: %w", err)
	}
	defer unix.Close(pidfd)
	if err := sendHandoff(ctl, proxyPort, ln, pidfd); err != nil {
		return nil, fmt.Errorf("allowlist: hand the proxy listener over: %w", err)
	}
	return proxyEnv(), nil
}

// proxyEnv points HTTP clients at the proxy, in both spellings, and clears
// NO_PROXY so that nothing bypasses it by accident (a bypass fails: there
// is no other route).
func proxyEnv() []string {
	var env []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		env = append(env, k+"="+proxyURL, strings.ToLower(k)+"="+proxyURL)
	}
	return append(env, "NO_PROXY=", "no_proxy=")
}

// setEnv returns env with each NAME=value of vars replacing any earlier
// setting of NAME.
func setEnv(env []string, vars ...string) []string {
	set := map[string]bool{}
	for _, v := range vars {
		name, _, _ := strings.Cut(v, "=")
		set[name] = true
	}
	out := make([]string, 0, len(env)+len(vars))
	for _, e := range env {
		if name, _, _ := strings.Cut(e, "="); !set[name] {
			out = append(out, e)
		}
	}
	return append(out, vars...)
}

// raiseLoopback brings lo up, which a new network namespace leaves down.
func raiseLoopback() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("allowlist: socket for lo: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("allowlist: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("allowlist: read lo flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("allowlist: raise lo: %w", err)
	}
	return nil
}

// listenLoopback returns a TCP socket listening on 127.0.0.1:port.
func listenLoopback(port int) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("allowlist: proxy socket: %w", err)
	}
	addr := &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}
	if err := unix.Bind(fd, addr); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("allowlist: bind 127.0.0.1:%d: %w", port, err)
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("allowlist: listen: %w", err)
	}
	return fd, nil
}
