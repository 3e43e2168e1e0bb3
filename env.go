package shellcap

import (
	"maps"
	"os"
	"path"
	"slices"
	"strings"
)

// The security defaults are functions that return fresh copies, so that no
// caller can change what every later Shell gets.

// HostEnvAllowlist returns the names of the only host variables a command
// sees (besides Options.PassEnv). Each call returns a new slice.
func HostEnvAllowlist() []string { return slices.Clone(hostEnvAllowlist) }

// NonInteractiveEnv returns the defaults that keep commands from waiting
// for a human: pagers print, editors exit, git never prompts, Python does
// not buffer. Options.Env overrides any of them. Each call returns a new
// map.
func NonInteractiveEnv() map[string]string { return maps.Clone(nonInteractiveEnv) }

// LLMAPIKeyEnvPatterns returns globs matching the variables that hold
// model-provider keys and common credentials. Put them in
// Options.DeniedEnvPatterns to keep them from commands. Each call returns
// a new slice.
func LLMAPIKeyEnvPatterns() []string { return slices.Clone(llmAPIKeyEnvPatterns) }

var hostEnvAllowlist = []string{"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR"}

var nonInteractiveEnv = map[string]string{
	"PAGER":               "cat",
	"GIT_PAGER":           "cat",
	"EDITOR":              "true",
	"VISUAL":              "true",
	"GIT_EDITOR":          "true",
	"GIT_TERMINAL_PROMPT": "0",
	"PYTHONUNBUFFERED":    "1",
}

var llmAPIKeyEnvPatterns = []string{
	"ANTHROPIC_*", "GATEWAY_*", "GEMINI_*", "GOOGLE_*", "OPENAI_*", "OPENROUTER_*",
	"PYDANTIC_AI_GATEWAY_API_KEY",
	"AZURE_OPENAI_*", "MISTRAL_*", "COHERE_*", "GROQ_*", "DEEPSEEK_*", "XAI_*", "HF_TOKEN",
	"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"*_API_KEY", "*_APIKEY", "*_TOKEN", "*_SECRET", "*_SECRET_KEY", "*_PASSWORD",
}

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

	env := make(map[string]string, len(hostEnvAllowlist)+len(nonInteractiveEnv)+len(o.Env))
	for _, name := range slices.Concat(hostEnvAllowlist, o.PassEnv) {
		if v, ok := lookup(name); ok && !strings.ContainsRune(v, 0) {
			env[name] = v
		}
	}
	for k, v := range nonInteractiveEnv {
		env[k] = v
	}
	for k, v := range o.Env {
		env[k] = v
	}
	return env, nil
}

// shellAddedEnv is what the Shell adds to every command's environment
// beyond the host's variables: the non-interactive defaults, then
// Options.Env (core.Settings.Env, for executors whose commands do not run
// on the host, such as containers).
func shellAddedEnv(o *Options) map[string]string {
	env := make(map[string]string, len(nonInteractiveEnv)+len(o.Env))
	for k, v := range nonInteractiveEnv {
		env[k] = v
	}
	for k, v := range o.Env {
		env[k] = v
	}
	return env
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
