package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// LayerProcessLimit is the process limit's name in Enforcement.Layers.
const LayerProcessLimit = "process-limit"

// bounds are the effective limits of one sandbox.
type bounds struct {
	procs int // 0: none
	tmp   int64
	proxy proxyLimits
}

// bounds validates and defaults the Config's limits.
func (c *Config) bounds() (bounds, error) {
	procs, err := c.processLimit()
	if err != nil {
		return bounds{}, err
	}
	tmp, err := c.tmpSize()
	if err != nil {
		return bounds{}, err
	}
	conns, idle, err := c.proxyBounds()
	if err != nil {
		return bounds{}, err
	}
	return bounds{procs: procs, tmp: tmp, proxy: proxyLimits{conns: conns, idle: idle}}, nil
}

// planBounds puts the limits into the policy and the report. The process
// limit needs the sandbox's own user namespace, where RLIMIT_NPROC counts
// the sandbox's processes alone, and a command that is not the host's
// root, whom the kernel exempts from RLIMIT_NPROC; without either it is a
// downgrade.
func planBounds(pol *policy, rep *report, b bounds, asHostRoot bool, degrade func(downgrade)) {
	if pol.Network == NetworkAllowlist {
		pol.proxy = b.proxy
		rep.ProxyMaxConns, rep.ProxyIdleTimeout = b.proxy.conns, b.proxy.idle
	}
	if !pol.Mounts {
		if b.procs > 0 {
			degrade(downgrade{Layer: LayerProcessLimit, Reason: fmt.Sprintf(
				"a process limit needs a user namespace of its own: RLIMIT_NPROC would count every process of uid %d on the host", os.Getuid())})
		}
		return
	}
	pol.TmpSize, rep.TmpSize = b.tmp, b.tmp
	rep.Devices = devEntries()
	switch {
	case b.procs == 0:
	case pol.noProcessLimit != "":
		// Chosen by the configuration: reported, not refused.
		rep.Downgrades = append(rep.Downgrades, downgrade{Layer: LayerProcessLimit, Reason: pol.noProcessLimit})
	case asHostRoot:
		degrade(downgrade{Layer: LayerProcessLimit, Reason: "the command runs as the host's root, whom the kernel exempts from RLIMIT_NPROC"})
	default:
		pol.ProcessLimit, rep.ProcessLimit = uint64(b.procs), b.procs
		rep.Layers = append(rep.Layers, LayerProcessLimit)
	}
}

// applyProcessLimit sets the policy's process limit on the calling
// process, soft and hard: the command cannot raise it again.
func applyProcessLimit(p *policy) error {
	if p.ProcessLimit == 0 {
		return nil
	}
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: p.ProcessLimit, Max: p.ProcessLimit}); err != nil {
		return fmt.Errorf("process limit %d: %w", p.ProcessLimit, err)
	}
	return nil
}

// tmpfsOptions are the mount options of a private tmpfs: its mode, its
// size and an inode count to match (a page per inode), so that neither
// bytes nor empty files take the host's memory beyond size.
func tmpfsOptions(mode string, size int64) string {
	if size <= 0 {
		return mode
	}
	inodes := max(size/4096, 1024)
	return fmt.Sprintf("%s,size=%d,nr_inodes=%d", mode, size, inodes)
}
