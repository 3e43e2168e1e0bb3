package sandbox

import (
	"fmt"
	"time"
)

// Defaults of the bounds a zero Config field means.
const (
	// DefaultProcessLimit is the process limit of a sandbox when
	// Config.ProcessLimit is zero: processes and threads together, as
	// RLIMIT_NPROC counts them.
	DefaultProcessLimit = 512
	// DefaultTmpSize is the size of each private tmpfs (/tmp, /dev/shm,
	// /run and hidden home directories) when Config.TmpSize is zero.
	DefaultTmpSize int64 = 1 << 30
	// DefaultProxyConns is how many connections the allowlist proxy of
	// one sandbox holds open at once when Config.ProxyMaxConns is zero.
	DefaultProxyConns = 128
	// DefaultProxyIdle is how long a proxy connection may pass no byte
	// in either direction before the proxy closes it, when
	// Config.ProxyIdleTimeout is zero.
	DefaultProxyIdle = 5 * time.Minute
)

// processLimit returns the effective process limit, 0 for none.
func (c *Config) processLimit() (int, error) {
	switch {
	case c.ProcessLimit == 0:
		return DefaultProcessLimit, nil
	case c.ProcessLimit < 0:
		return 0, nil
	case c.ProcessLimit < minProcessLimit:
		return 0, fmt.Errorf("sandbox: ProcessLimit %d is below %d, too few for a shell and its helper", c.ProcessLimit, minProcessLimit)
	}
	return c.ProcessLimit, nil
}

// minProcessLimit leaves room for the helper's threads and a shell.
const minProcessLimit = 16

// tmpSize returns the effective size of each private tmpfs.
func (c *Config) tmpSize() (int64, error) {
	switch {
	case c.TmpSize == 0:
		return DefaultTmpSize, nil
	case c.TmpSize < minTmpSize:
		return 0, fmt.Errorf("sandbox: TmpSize %d is below %d bytes", c.TmpSize, minTmpSize)
	}
	return c.TmpSize, nil
}

// minTmpSize is the smallest private tmpfs: a page per inode of a small
// scratch directory.
const minTmpSize = 1 << 20

// proxyBounds returns the effective connection limit and idle timeout of
// the allowlist proxy.
func (c *Config) proxyBounds() (int, time.Duration, error) {
	conns, idle := c.ProxyMaxConns, c.ProxyIdleTimeout
	if conns < 0 || idle < 0 {
		return 0, 0, fmt.Errorf("sandbox: ProxyMaxConns (%d) and ProxyIdleTimeout (%v) may not be negative", conns, idle)
	}
	if conns == 0 {
		conns = DefaultProxyConns
	}
	if idle == 0 {
		idle = DefaultProxyIdle
	}
	return conns, idle, nil
}

// sizeText renders a byte count for people: 1 GiB, 64 MiB, 1536 KiB.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
