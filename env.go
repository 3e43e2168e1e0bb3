package shellcap

import (
	"os"
	"path"
	"slices"
	"strings"
)

// buildEnv returns the environment every command sees: the host allowlist
// (plus PassEnv), the non-interactive defaults, Options.Env, then minus every
// name matching DeniedEnvPatterns. lookup reads the host environment.
func buildEnv(o *Options, lookup func(string) (string, bool)) (map[string]string, error) {
	for _, p := range o.DeniedEnvPatterns {
		if _, err := path.Match(p, ""); err != nil {
			return nil, optionErr("DeniedEnvPatterns", "bad pattern %q: %v", p, err)
		}
	}
	for _, name := range o.PassEnv {
		if !ValidEnvName(name) {
			return nil, optionErr("PassEnv", "%q is not a valid variable name", name)
		}
	}
	if err := checkEnvMap("Env", o.Env); err != nil {
		return nil, err
	}

	env := make(map[string]string, len(HostEnvAllowlist)+len(NonInteractiveEnv)+len(o.Env))
	for _, name := range slices.Concat(HostEnvAllowlist, o.PassEnv) {
		if v, ok := lookup(name); ok && !strings.ContainsRune(v, 0) {
			env[name] = v
		}
	}
	for k, v := range NonInteractiveEnv {
		env[k] = v
	}
	for k, v := range o.Env {
		env[k] = v
	}
	return env, nil
}

// checkEnvMap validates names and values the host program supplied.
func checkEnvMap(option string, m map[string]string) error {
	for k, v := range m {
		if !ValidEnvName(k) {
			return optionErr(option, "%q is not a valid variable name (letters, digits and _, not starting with a digit)", k)
		}
		if strings.ContainsRune(v, 0) {
			return optionErr(option, "the value of %s contains a NUL byte", k)
		}
	}
	return nil
}

// ValidEnvName reports whether name is a portable shell variable name
// (letters, digits and _, not starting with a digit), the rule Options.Env,
// Options.PassEnv and Request.Env are checked against. It rules out "=",
// NUL and the empty name.
func ValidEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range []byte(name) {
		switch {
		case c == '_', 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// denied reports whether name matches one of the glob patterns.
func denied(name string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// envList renders env as a sorted KEY=VALUE list without the denied names.
func envList(env map[string]string, deniedPatterns []string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		if !denied(k, deniedPatterns) {
			out = append(out, k+"="+v)
		}
	}
	slices.Sort(out)
	return out
}

// hostLookup reads the host environment.
var hostLookup = os.LookupEnv
