package shellcap_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/policy"
)

// TestPolicyRefusals: refused commands never run, and the model reads why.
func TestPolicyRefusals(t *testing.T) {
	tests := []struct {
		name    string
		rules   policy.Rules
		command string
		kind    error
		text    string
	}{
		{"default deny list", policy.Rules{}, "rm -rf victim", shellcap.ErrDenied, "Command 'rm' is denied."},
		{"after a semicolon", policy.Rules{}, "true; rm -rf victim", shellcap.ErrDenied, "Command 'rm' is denied."},
		{"by path", policy.Rules{}, "/bin/rm -rf victim", shellcap.ErrDenied, "Command '/bin/rm' is denied."},
		{"unparsable fails closed", policy.Rules{}, "echo 'unterminated; rm victim", shellcap.ErrDenied,
			"Cannot parse the command: 1:6: reached EOF without closing quote `'`. Fix the shell syntax (quotes, brackets, here-document terminators) and try again."},
		{"behind env", policy.Rules{}, "env FOO=1 rm -rf victim", shellcap.ErrDenied, "Command 'rm' is denied."},
		{"inside bash -c", policy.Rules{}, "bash -c 'rm -rf victim'", shellcap.ErrDenied, "Command 'rm' is denied."},
		{"allow list", policy.Rules{AllowedCommands: []string{"echo"}}, "cat victim", shellcap.ErrDenied, "Command 'cat' is not in the allowed list."},
		{"operator", policy.Rules{DeniedOperators: []string{">"}}, "echo x > victim", shellcap.ErrDenied, "Shell operator '>' is not allowed."},
		{"interactive", policy.Rules{}, "vim victim", shellcap.ErrDenied, "Interactive commands are not allowed. Command: 'vim victim'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := newShell(t, shellcap.Options{Policy: tt.rules})
			victim := filepath.Join(sh.Workspace(), "victim")
			if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
				t.Fatal(err)
			}
			res := run(t, sh, shellcap.Request{Command: tt.command})
			var pe *shellcap.PolicyError
			if !errors.Is(res.Err, tt.kind) || !errors.As(res.Err, &pe) {
				t.Fatalf("Err = %v, want %v", res.Err, tt.kind)
			}
			if got := res.Text(); got != tt.text {
				t.Errorf("Text() = %q, want %q", got, tt.text)
			}
			if data, err := os.ReadFile(victim); err != nil || string(data) != "keep" {
				t.Errorf("a refused command touched the file: %q %v", data, err)
			}
		})
	}
}

func TestApproval(t *testing.T) {
	var asked atomic.Int32
	approve := func(approved, remember bool) shellcap.Approver {
		return func(ctx context.Context, req shellcap.ApprovalRequest) (shellcap.Approval, error) {
			asked.Add(1)
			return shellcap.Approval{Approved: approved, Remember: remember, Reason: "not today"}, nil
		}
	}
	t.Run("ask without an approver is refused", func(t *testing.T) {
		sh := newShell(t, shellcap.Options{Policy: policy.Rules{Approval: true}})
		res := run(t, sh, shellcap.Request{Command: "make build"})
		if !errors.Is(res.Err, shellcap.ErrNotApproved) {
			t.Fatalf("Err = %v", res.Err)
		}
		if res := run(t, sh, shellcap.Request{Command: "ls -la"}); res.Err != nil {
			t.Fatalf("a read-only command was refused: %v", res.Err)
		}
	})
	t.Run("approved and remembered", func(t *testing.T) {
		asked.Store(0)
		sh := newShell(t, shellcap.Options{Policy: policy.Rules{Approval: true}, Approve: approve(true, true)})
		for range 3 {
			if res := run(t, sh, shellcap.Request{Command: "touch made"}); res.Err != nil || res.ExitCode != 0 {
				t.Fatalf("approved command: %s", res.Text())
			}
		}
		if asked.Load() != 1 {
			t.Fatalf("approver asked %d times, want once", asked.Load())
		}
	})
	t.Run("refused with a reason", func(t *testing.T) {
		sh := newShell(t, shellcap.Options{Policy: policy.Rules{Approval: true}, Approve: approve(false, false)})
		res := run(t, sh, shellcap.Request{Command: "touch made"})
		if !errors.Is(res.Err, shellcap.ErrNotApproved) || res.Text() != "The user did not approve this command. Reason: not today" {
			t.Fatalf("Err %v text %q", res.Err, res.Text())
		}
		if _, err := os.Stat(filepath.Join(sh.Workspace(), "made")); err == nil {
			t.Fatal("a refused command ran")
		}
	})
	t.Run("ApproveAll asks even for allowed commands", func(t *testing.T) {
		asked.Store(0)
		sh := newShell(t, shellcap.Options{ApprovalMode: shellcap.ApproveAll, Approve: approve(true, false)})
		run(t, sh, shellcap.Request{Command: "echo hi"})
		run(t, sh, shellcap.Request{Command: "echo hi"})
		if asked.Load() != 2 {
			t.Fatalf("approver asked %d times, want 2", asked.Load())
		}
		if res := run(t, sh, shellcap.Request{Command: "rm x"}); !errors.Is(res.Err, shellcap.ErrDenied) || asked.Load() != 2 {
			t.Fatalf("a denied command must not reach the approver: %v, asked %d", res.Err, asked.Load())
		}
	})
	t.Run("ApproveNone needs the acknowledgement", func(t *testing.T) {
		_, err := shellcap.New(shellcap.Options{Workspace: t.TempDir(), ApprovalMode: shellcap.ApproveNone})
		var oe *shellcap.OptionError
		if !errors.As(err, &oe) || oe.Option != "ApprovalMode" {
			t.Fatalf("New = %v", err)
		}
		sh := newShell(t, shellcap.Options{ApprovalMode: shellcap.ApproveNone, AcknowledgeUnsafe: true, Policy: policy.Rules{Approval: true}})
		if res := run(t, sh, shellcap.Request{Command: "touch made"}); res.Err != nil {
			t.Fatalf("ask under ApproveNone: %v", res.Err)
		}
	})
	t.Run("ApproveAll needs an approver", func(t *testing.T) {
		if _, err := shellcap.New(shellcap.Options{Workspace: t.TempDir(), ApprovalMode: shellcap.ApproveAll}); !errors.Is(err, shellcap.ErrInvalidOptions) {
			t.Fatalf("New = %v", err)
		}
	})
	t.Run("both lists", func(t *testing.T) {
		_, err := shellcap.New(shellcap.Options{Workspace: t.TempDir(), Policy: policy.Rules{AllowedCommands: []string{"a"}, DeniedCommands: []string{"b"}}})
		var oe *shellcap.OptionError
		if !errors.As(err, &oe) || oe.Option != "Policy" {
			t.Fatalf("New = %v", err)
		}
	})
}
