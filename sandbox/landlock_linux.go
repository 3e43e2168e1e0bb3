package sandbox

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// landlockNewest is the newest Landlock configuration the library knows.
// A kernel with a newer ABI is used at this level; an older kernel gets
// the best-effort downgrade of it (see applyLandlock).
var landlockNewest = landlock.V11

// landlockNewestABI is the ABI version of landlockNewest.
const landlockNewestABI = 11

// landlockABI returns the Landlock ABI version the sandbox uses: the
// kernel's, capped at the newest one the library knows, 0 when Landlock
// is absent.
func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	return min(v, landlockNewestABI)
}

// fileRights are the rights a rule on a non-directory may carry.
const fileRights = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSWriteFile |
	ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev)

// readRights are granted on readable roots.
const readRights = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSReadFile |
	ll.AccessFSReadDir | ll.AccessFSIoctlDev)

// grantedNever are handled but granted nowhere: connecting to a pathname
// unix socket that a process outside the sandbox created (ABI 9), wherever
// it lies. Sockets the command creates itself stay reachable.
const grantedNever = landlock.AccessFSSet(ll.AccessFSResolveUnix)

// landlockConfig is the ruleset for network n: every filesystem right the
// library knows; every network right unless the network is full; signal
// and abstract-socket scoping. BestEffort drops what the kernel's ABI
// lacks, which the Enforcement lists as downgrades (see plan).
func landlockConfig(n Network) landlock.Config {
	c := landlockNewest
	if n == NetworkFull {
		c.HandledAccessNet = 0
	}
	return c.BestEffort()
}

// landlockRules grants read rights on the readable roots, every handled
// right but grantedNever on the writable ones and, with the allowlist,
// TCP connect to the proxy's port. A root that does not exist is skipped
// (system directories vary between distributions); a rule on a file
// carries only the rights a file may have.
func landlockRules(p *policy) ([]landlock.Rule, error) {
	all := landlockNewest.HandledAccessFS &^ grantedNever
	if p.LandlockABI < 2 {
		// Asking for refer on ABI 1 would make the library's best
		// effort drop Landlock altogether; ABI 1 denies it anyway.
		all &^= ll.AccessFSRefer
	}
	var rules []landlock.Rule
	add := func(path string, rights landlock.AccessFSSet) error {
		fi, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("landlock rule %s: %w", path, err)
		}
		if !fi.IsDir() {
			rights &= fileRights
		}
		rules = append(rules, landlock.PathAccess(rights, path).IgnoreIfMissing())
		return nil
	}
	for _, r := range p.Readable {
		rights := readRights
		if r == "/dev" {
			// Listing only: the device files a command may open are
			// granted one by one (deviceWritable), so no other device
			// opens even where /dev is the host's (no mount namespace).
			rights = ll.AccessFSReadDir
		}
		if err := add(r, rights); err != nil {
			return nil, err
		}
	}
	for _, w := range p.Writable {
		if err := add(w, all); err != nil {
			return nil, err
		}
	}
	if p.Network == NetworkAllowlist {
		rules = append(rules, landlock.ConnectTCP(proxyPort))
	}
	return rules, nil
}

// applyLandlock restricts the calling thread (and what it execs or forks)
// to the policy's roots. The go-landlock library builds the ruleset: it
// handles the rights of the newest ABI it knows and downgrades, best
// effort, to the kernel's (plan reports what the kernel's ABI lacks). The
// thread enforces it itself, as the helper applies every layer to its
// locked thread: the library's all-threads enforcement would need the
// helper's own /proc/PID/task on kernels before ABI 8, which a launcher,
// outside the pid namespace its procfs shows, does not have. no_new_privs
// must already be set.
func applyLandlock(p *policy) error {
	rules, err := landlockRules(p)
	if err != nil {
		return err
	}
	fd, flags, err := landlockConfig(p.Network).NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return errors.New("landlock: the kernel enforces nothing of the ruleset")
	}
	defer unix.Close(fd)
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}
