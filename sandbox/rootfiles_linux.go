package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// hiddenRootFiles are the files and directories only root may read that
// the sandbox hides when a root host's command must run as the host's
// root after all (AllowDegraded, and no idmapped mounts for the
// unprivileged identity). It is a fallback: the identity covers every
// root-only file, this list only the usual secrets.
var hiddenRootFiles = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
	"/etc/sudoers", "/etc/sudoers.d", "/etc/security/opasswd",
	"/etc/ssh/ssh_host_*_key", "/etc/ssl/private", "/etc/krb5.keytab",
	"/etc/libvirt", "/etc/wireguard", "/etc/NetworkManager/system-connections",
	"/var/lib/sudo",
}

// hideRootFiles puts an empty read-only tmpfs over each directory and the
// null device over each file of hiddenRootFiles that exists. It runs in
// the helper's mount namespace, after the private /dev.
func hideRootFiles() error {
	for _, pattern := range hiddenRootFiles {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			return fmt.Errorf("hide %s: %w", pattern, err)
		}
		for _, p := range paths {
			fi, err := os.Lstat(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return fmt.Errorf("hide %s: %w", p, err)
			}
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				continue // its target, if listed, is hidden itself
			case fi.IsDir():
				err = unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0755")
			default:
				err = unix.Mount("/dev/null", p, "", unix.MS_BIND, "")
			}
			if err != nil {
				return fmt.Errorf("hide %s: %w", p, err)
			}
		}
	}
	return nil
}
