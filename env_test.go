package shellcap_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
)

// TestEnvScrubbing sets secrets in the test's own environment and checks
// that commands never see them.
func TestEnvScrubbing(t *testing.T) {
	t.Setenv("SHELLCAP_TEST_SECRET_TOKEN", "s3cret-host")
	t.Setenv("OPENAI_API_KEY", "sk-host")
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("EXTRA_HOST_VAR", "passed")

	t.Run("host secrets never pass", func(t *testing.T) {
		sh := newShell(t, shellcap.Options{})
		res := run(t, sh, shellcap.Request{Command: "env"})
		for _, secret := range []string{"s3cret-host", "sk-host", "EXTRA_HOST_VAR"} {
			if strings.Contains(res.Stdout, secret) {
				t.Errorf("command saw %q:\n%s", secret, res.Stdout)
			}
		}
		for _, want := range []string{"LANG=C.UTF-8", "PAGER=cat", "GIT_PAGER=cat", "EDITOR=true", "GIT_EDITOR=true", "GIT_TERMINAL_PROMPT=0", "PYTHONUNBUFFERED=1", "PATH="} {
			if !strings.Contains(res.Stdout, want+"") {
				t.Errorf("environment lacks %s:\n%s", want, res.Stdout)
			}
		}
	})

	t.Run("Env, PassEnv and denied patterns", func(t *testing.T) {
		sh := newShell(t, shellcap.Options{
			Env:               map[string]string{"APP_MODE": "test", "GITHUB_TOKEN": "ghp_x", "PAGER": "less"},
			PassEnv:           []string{"EXTRA_HOST_VAR", "OPENAI_API_KEY"},
			DeniedEnvPatterns: shellcap.LLMAPIKeyEnvPatterns(),
		})
		res := run(t, sh, shellcap.Request{Command: "env", Env: map[string]string{"REQ_ONLY": "1", "DB_PASSWORD": "pw"}})
		for _, want := range []string{"APP_MODE=test", "EXTRA_HOST_VAR=passed", "PAGER=less", "REQ_ONLY=1"} {
			if !strings.Contains(res.Stdout, want) {
				t.Errorf("environment lacks %s:\n%s", want, res.Stdout)
			}
		}
		for _, banned := range []string{"GITHUB_TOKEN", "OPENAI_API_KEY", "DB_PASSWORD"} {
			if strings.Contains(res.Stdout, banned) {
				t.Errorf("denied variable %s reached the command:\n%s", banned, res.Stdout)
			}
		}
	})
}

func TestEnvValidation(t *testing.T) {
	tests := []struct {
		name   string
		opts   shellcap.Options
		option string
	}{
		{"NUL in value", shellcap.Options{Env: map[string]string{"A": "x\x00y"}}, "Env"},
		{"= in name", shellcap.Options{Env: map[string]string{"A=B": "x"}}, "Env"},
		{"empty name", shellcap.Options{Env: map[string]string{"": "x"}}, "Env"},
		{"name starts with digit", shellcap.Options{Env: map[string]string{"1A": "x"}}, "Env"},
		{"space in name", shellcap.Options{Env: map[string]string{"A B": "x"}}, "Env"},
		{"bad pass-through name", shellcap.Options{PassEnv: []string{"A-B"}}, "PassEnv"},
		{"bad pattern", shellcap.Options{DeniedEnvPatterns: []string{"[A-"}}, "DeniedEnvPatterns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Workspace = t.TempDir()
			_, err := shellcap.New(tt.opts)
			var oe *shellcap.OptionError
			if !errors.As(err, &oe) || oe.Option != tt.option || !errors.Is(err, shellcap.ErrInvalidOptions) {
				t.Fatalf("New() error = %v, want an OptionError for %s", err, tt.option)
			}
		})
	}
	t.Run("bad request env is a host error", func(t *testing.T) {
		sh := newShell(t, shellcap.Options{})
		_, err := sh.Run(t.Context(), shellcap.Request{Command: "true", Env: map[string]string{"X=Y": "1"}})
		if !errors.Is(err, shellcap.ErrInvalidOptions) {
			t.Fatalf("Run error = %v, want ErrInvalidOptions", err)
		}
	})
}

// TestSecurityDefaultsAreCopies: a caller that changes what
// HostEnvAllowlist, NonInteractiveEnv or LLMAPIKeyEnvPatterns returned
// changes neither the next call's value nor what a new Shell's commands see.
func TestSecurityDefaultsAreCopies(t *testing.T) {
	allow, nonInteractive, keys := shellcap.HostEnvAllowlist(), shellcap.NonInteractiveEnv(), shellcap.LLMAPIKeyEnvPatterns()
	if len(allow) == 0 || len(nonInteractive) == 0 || len(keys) == 0 {
		t.Fatalf("empty defaults: %v %v %v", allow, nonInteractive, keys)
	}
	wantAllow, wantKeys := strings.Join(allow, ","), strings.Join(keys, ",")
	allow[0] = "SHELLCAP_TAMPERED"
	_ = append(allow[:1], "MORE")
	nonInteractive["PAGER"] = "less"
	delete(nonInteractive, "GIT_TERMINAL_PROMPT")
	keys[0] = "NOTHING"

	if got := strings.Join(shellcap.HostEnvAllowlist(), ","); got != wantAllow {
		t.Errorf("HostEnvAllowlist() = %s after a caller changed its copy, want %s", got, wantAllow)
	}
	if got := shellcap.NonInteractiveEnv(); got["PAGER"] != "cat" || got["GIT_TERMINAL_PROMPT"] != "0" {
		t.Errorf("NonInteractiveEnv() = %v after a caller changed its copy", got)
	}
	if got := strings.Join(shellcap.LLMAPIKeyEnvPatterns(), ","); got != wantKeys {
		t.Errorf("LLMAPIKeyEnvPatterns() = %s after a caller changed its copy, want %s", got, wantKeys)
	}
	t.Setenv("PATH", "/usr/bin:/bin")
	res := run(t, newShell(t, shellcap.Options{}), shellcap.Request{Command: "echo \"$PATH|$PAGER|$GIT_TERMINAL_PROMPT\""})
	if res.Stdout != "/usr/bin:/bin|cat|0\n" {
		t.Errorf("a new Shell's command sees %q", res.Stdout)
	}
}
