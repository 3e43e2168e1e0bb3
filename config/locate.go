package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// EnvConfigHome is the XDG variable naming the user's configuration
// directory; [UserDir] falls back to ~/.config without it.
const EnvConfigHome = "XDG_CONFIG_HOME"

// UserDir returns the user's own configuration directory for shellcap,
// $XDG_CONFIG_HOME/shellcap or else $HOME/.config/shellcap, with getenv
// reading the environment (os.Getenv). It is where a configuration file
// that may loosen the defaults and the trust records ([TrustStore]) live.
// A relative XDG_CONFIG_HOME is ignored, as the XDG specification says.
func UserDir(getenv func(string) string) (string, error) {
	home := getenv("HOME")
	if x := getenv(EnvConfigHome); x != "" {
		x, err := ExpandHome(x, home)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(x) {
			return filepath.Join(x, "shellcap"), nil
		}
	}
	if home == "" {
		return "", errors.New("config: neither $XDG_CONFIG_HOME nor $HOME is set, so there is no user configuration directory")
	}
	return filepath.Join(home, ".config", "shellcap"), nil
}

// ExpandHome replaces a leading "~", "$HOME" or "${HOME}" in p by home
// ("~/src" becomes "/home/me/src"), as a shell would; any other p is
// returned unchanged. "~name" (another user's home) is an error, and so
// is an expansion without a home.
func ExpandHome(p, home string) (string, error) {
	rest, ok := "", false
	for _, prefix := range []string{"~", "${HOME}", "$HOME"} {
		if r, found := strings.CutPrefix(p, prefix); found && (r == "" || r[0] == '/') {
			rest, ok = r, true
			break
		}
	}
	if !ok {
		if strings.HasPrefix(p, "~") {
			return "", fmt.Errorf("config: %q: only ~ and ~/... (your own home) are expanded", p)
		}
		return p, nil
	}
	if home == "" {
		return "", fmt.Errorf("config: %q: $HOME is not set", p)
	}
	return home + rest, nil
}

// Within reports whether path is dir or lies below it, both made absolute
// and, as far as they exist, free of symlinks.
func Within(path, dir string) bool {
	p, d := resolved(path), resolved(dir)
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolved makes p absolute and resolves the symlinks of its longest
// existing prefix.
func resolved(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	var tail []string
	for cur := abs; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(append([]string{r}, tail...)...)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		tail = append([]string{filepath.Base(cur)}, tail...)
		cur = parent
	}
}
