package shellcap_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/policy"
)

// refusingConfiner confines nothing and refuses every command that
// mentions "refuse-me", as a sandbox refuses a layer it cannot enforce.
type refusingConfiner struct{}

var errRefusedHere = errors.New("test sandbox: this layer cannot be enforced")

func (refusingConfiner) Confine(cmd *exec.Cmd, _ string) (*shellcap.Enforcement, error) {
	if slices.ContainsFunc(cmd.Args, func(a string) bool { return strings.Contains(a, "refuse-me") }) {
		return nil, errRefusedHere
	}
	return &shellcap.Enforcement{Profile: "test"}, nil
}

// TestRefusalShape: every way Run refuses a command is a Result whose Err
// matches its sentinel with errors.Is, whose Text is Err's message, and
// whose JSON has "exit_code": null and the message in "error". None of
// them runs the command (it would create the file "ran").
func TestRefusalShape(t *testing.T) {
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "doomed"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	tests := []struct {
		name string
		opts shellcap.Options
		req  shellcap.Request
		kind error
		text string // "" when only the sentinel is checked
	}{
		{name: "NUL byte", req: shellcap.Request{Command: "touch ran\x00"}, kind: shellcap.ErrNULByte},
		{name: "invalid UTF-8", req: shellcap.Request{Command: "touch ran \xff"}, kind: shellcap.ErrInvalidUTF8},
		{name: "empty", req: shellcap.Request{Command: ""}, kind: shellcap.ErrEmptyCommand, text: "The command is empty."},
		{name: "whitespace only", req: shellcap.Request{Command: " \t\n "}, kind: shellcap.ErrEmptyCommand, text: "The command is empty."},
		{name: "timeout range", req: shellcap.Request{Command: "touch ran", Timeout: -time.Second}, kind: shellcap.ErrTimeoutRange},
		{name: "policy deny", req: shellcap.Request{Command: "touch ran; rm -rf doomed"}, kind: shellcap.ErrDenied},
		{name: "needs approval", opts: shellcap.Options{Policy: policy.Rules{Approval: true}},
			req: shellcap.Request{Command: "touch ran"}, kind: shellcap.ErrNotApproved},
		{name: "too long", req: shellcap.Request{Command: "touch ran #" + strings.Repeat("x", 200_000)}, kind: shellcap.ErrCommandTooLong},
		{name: "workdir outside", req: shellcap.Request{Command: "touch ran", Dir: outside}, kind: shellcap.ErrWorkdirOutside},
		{name: "workdir gone", req: shellcap.Request{Command: "touch ran", Dir: "missing"}, kind: shellcap.ErrWorkdirGone},
		{name: "sandbox refusal", opts: shellcap.Options{Sandbox: refusingConfiner{}},
			req: shellcap.Request{Command: "touch ran # refuse-me"}, kind: shellcap.ErrSandbox,
			text: "The sandbox refused to run this command: " + errRefusedHere.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Workspace = ws
			sh := newShell(t, opts)
			res := run(t, sh, tt.req)
			if !errors.Is(res.Err, tt.kind) {
				t.Fatalf("Err = %v, want one matching %v", res.Err, tt.kind)
			}
			if got := res.Text(); got != res.Err.Error() || tt.text != "" && got != tt.text {
				t.Errorf("Text() = %q, want %q", got, cmp(tt.text, res.Err.Error()))
			}
			var got map[string]any
			data, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if code, ok := got["exit_code"]; !ok || code != nil {
				t.Errorf("exit_code = %v (present %v), want null: %s", code, ok, data)
			}
			if got["error"] != res.Err.Error() {
				t.Errorf("error = %v, want %q", got["error"], res.Err.Error())
			}
			if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
				t.Fatal("a refused command ran")
			}
		})
	}
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestSandboxRefusalThenRun: a Confiner's refusal concerns that command
// only; the next one runs confined and says so.
func TestSandboxRefusalThenRun(t *testing.T) {
	sh := newShell(t, shellcap.Options{Sandbox: refusingConfiner{}})
	if res := run(t, sh, shellcap.Request{Command: "echo refuse-me"}); !errors.Is(res.Err, errRefusedHere) {
		t.Fatalf("Err = %v, want the confiner's error", res.Err)
	}
	res := run(t, sh, shellcap.Request{Command: "echo fine"})
	if res.Err != nil || res.Stdout != "fine\n" || res.Sandbox == nil || res.Sandbox.Profile != "test" {
		t.Fatalf("after a refusal: %+v", res)
	}
}

// TestAdmitEmptyCommand: the seam's Admit refuses an empty command the
// way Run does, for every executor built on it.
func TestAdmitEmptyCommand(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	admit := core.Of(sh).Admit
	for _, c := range []string{"", " ", "\t\n  \r"} {
		err := admit(t.Context(), c)
		var re *shellcap.RequestError
		if !errors.Is(err, shellcap.ErrEmptyCommand) || !errors.As(err, &re) || err.Error() != "The command is empty." {
			t.Errorf("Admit(%q) = %v, want the empty-command RequestError", c, err)
		}
	}
	if err := admit(t.Context(), "true"); err != nil {
		t.Errorf("Admit(true) = %v", err)
	}
}

// TestResultJSONShapes pins both JSON shapes of a Result: a command that
// ran (its exit code, even 0) and one that did not (exit_code null, error).
// exit_code follows cwd: MarshalJSON decides it.
func TestResultJSONShapes(t *testing.T) {
	tests := []struct {
		name string
		res  shellcap.Result
		want string
	}{
		{"ran, exit 0", shellcap.Result{Command: "true", Cwd: "/w", Timeout: time.Second},
			`{"command":"true","stdout":"","stderr":"","timed_out":false,"truncated":false,"stdout_bytes":0,"stderr_bytes":0,"stdout_omitted_bytes":0,"stderr_omitted_bytes":0,"cwd":"/w","exit_code":0,"duration_ms":0,"timeout_ms":1000}`},
		{"ran, exit 3", shellcap.Result{Command: "exit 3", ExitCode: 3, Cwd: "/w", Timeout: time.Second},
			`{"command":"exit 3","stdout":"","stderr":"","timed_out":false,"truncated":false,"stdout_bytes":0,"stderr_bytes":0,"stdout_omitted_bytes":0,"stderr_omitted_bytes":0,"cwd":"/w","exit_code":3,"duration_ms":0,"timeout_ms":1000}`},
		{"refused", shellcap.Result{Command: "rm -rf /", Cwd: "/w", Err: &shellcap.PolicyError{Kind: shellcap.ErrDenied, Msg: "Command 'rm' is denied."}},
			`{"command":"rm -rf /","stdout":"","stderr":"","timed_out":false,"truncated":false,"stdout_bytes":0,"stderr_bytes":0,"stdout_omitted_bytes":0,"stderr_omitted_bytes":0,"cwd":"/w","exit_code":null,"duration_ms":0,"timeout_ms":0,"error":"Command 'rm' is denied."}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(&tt.res)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tt.want {
				t.Errorf("JSON =\n%s\nwant\n%s", data, tt.want)
			}
		})
	}
}
