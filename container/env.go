package container

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// checkEnv validates variables for an env file: shell names, and values an
// env file can carry unchanged (one line, no NUL). option names where they
// came from.
func checkEnv(option string, env map[string]string) error {
	for k, v := range env {
		if !validName(k) {
			return optionErr(option, "%q is not a valid variable name", k)
		}
		if strings.ContainsAny(v, "\x00\r\n") {
			return optionErr(option, "the value of %s holds a NUL, CR or LF, which an env file cannot carry", k)
		}
	}
	return nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// writeEnvFile writes the variables as KEY=VALUE lines to a new 0600 file
// in the executor's private directory and returns its path; the caller
// removes it. Every line has "=": engines read a bare name as "copy this
// variable from the host", which must never happen.
func (e *Executor) writeEnvFile(vars map[string]string) (string, error) {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, vars[k])
	}
	f, err := os.CreateTemp(e.privateDir, "env-*")
	if err != nil {
		return "", err
	}
	path := f.Name()
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.WriteString(b.String())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", err
	}
	return filepath.Clean(path), nil
}
