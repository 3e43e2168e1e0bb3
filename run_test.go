package shellcap_test

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
)

// TestRunText runs real bash and checks the exact text the model reads.
func TestRunText(t *testing.T) {
	sh := newShell(t, shellcap.Options{KillGrace: 200 * time.Millisecond})
	tests := []struct {
		name    string
		req     shellcap.Request
		want    string
		code    int
		timeout bool
	}{
		{name: "stdout", req: shellcap.Request{Command: "echo hi"}, want: "[stdout]\nhi\n"},
		{name: "stderr", req: shellcap.Request{Command: "echo oops >&2"}, want: "[stderr]\noops\n"},
		{name: "both streams, stdout first", req: shellcap.Request{Command: "echo err >&2; echo out"}, want: "[stdout]\nout\n\n[stderr]\nerr\n"},
		{name: "no output", req: shellcap.Request{Command: "true"}, want: "(no output)"},
		{name: "exit code", req: shellcap.Request{Command: "exit 42"}, want: "(no output)\n[exit code: 42]", code: 42},
		{name: "output and exit code", req: shellcap.Request{Command: "echo x; exit 3"}, want: "[stdout]\nx\n\n[exit code: 3]", code: 3},
		{name: "no trailing newline", req: shellcap.Request{Command: "printf abc"}, want: "[stdout]\nabc"},
		{name: "bash error", req: shellcap.Request{Command: "cd /nonexistent-dir"}, want: "[stderr]\nbash: line 1: cd: /nonexistent-dir: No such file or directory\n\n[exit code: 1]", code: 1},
		{name: "stdin is at EOF", req: shellcap.Request{Command: "cat; read x; echo rc=$?"}, want: "[stdout]\nrc=1\n"},
		{name: "stdin given", req: shellcap.Request{Command: "tr a-z A-Z", Stdin: strings.NewReader("hello\n")}, want: "[stdout]\nHELLO\n"},
		{name: "ansi stripped", req: shellcap.Request{Command: `printf '\033[1;31mred\033[0m \033]0;title\007ok\n'`}, want: "[stdout]\nred ok\n"},
		{name: "invalid utf-8 output", req: shellcap.Request{Command: `printf 'a\377b\n'`}, want: "[stdout]\na\uFFFDb\n"},
		{name: "killed by signal", req: shellcap.Request{Command: "kill -9 $$"}, want: "(no output)\n[exit code: 137]", code: 137},
		{name: "timeout keeps output", req: shellcap.Request{Command: "echo started; sleep 30", Timeout: 500 * time.Millisecond},
			want: "[stdout]\nstarted\n\n[Command timed out after 0.5s]", code: 143, timeout: true},
		{name: "timeout without output", req: shellcap.Request{Command: "sleep 30", Timeout: 300 * time.Millisecond},
			want: "[Command timed out after 0.3s]", code: 143, timeout: true},
		{name: "starts in workspace", req: shellcap.Request{Command: `[ "$PWD" = "$(pwd -P)" ] && [ -d . ] && echo ok`}, want: "[stdout]\nok\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, sh, tt.req)
			if got := res.Text(); got != tt.want {
				t.Errorf("Text() = %q, want %q", got, tt.want)
			}
			if res.ExitCode != tt.code || res.TimedOut != tt.timeout {
				t.Errorf("exit %d timedOut %v, want %d %v", res.ExitCode, res.TimedOut, tt.code, tt.timeout)
			}
			if !utf8.ValidString(res.Text()) {
				t.Errorf("Text() is not valid UTF-8")
			}
		})
	}
}

// TestRequestErrors checks the problems a model can fix: they come back as
// results with a precise message, never as host errors.
func TestRequestErrors(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxTimeout: time.Minute})
	tests := []struct {
		name string
		req  shellcap.Request
		kind error
		text string
	}{
		{name: "NUL byte", req: shellcap.Request{Command: "echo a\x00b"}, kind: shellcap.ErrNULByte,
			text: "The command contains a NUL byte, which cannot be passed to a process."},
		{name: "invalid UTF-8", req: shellcap.Request{Command: "echo \xff"}, kind: shellcap.ErrInvalidUTF8,
			text: "The command is not valid UTF-8; the operating system cannot receive it unchanged."},
		{name: "negative timeout", req: shellcap.Request{Command: "true", Timeout: -time.Second}, kind: shellcap.ErrTimeoutRange,
			text: "The timeout must be at least 0.001s and at most 60s (got -1s)."},
		{name: "timeout above maximum", req: shellcap.Request{Command: "true", Timeout: 2 * time.Minute}, kind: shellcap.ErrTimeoutRange,
			text: "The timeout must be at least 0.001s and at most 60s (got 120s)."},
		{name: "timeout below the minimum", req: shellcap.Request{Command: "true", Timeout: 500 * time.Nanosecond}, kind: shellcap.ErrTimeoutRange,
			text: "The timeout must be at least 0.001s and at most 60s (got 500ns)."},
		{name: "command over the argument limit", req: shellcap.Request{Command: "echo " + strings.Repeat("x", 200_000)}, kind: shellcap.ErrCommandTooLong,
			text: "The command is 200005 bytes; one argument may hold at most 131071. Write long scripts to a file and run the file instead."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, sh, tt.req)
			if !errors.Is(res.Err, tt.kind) {
				t.Fatalf("Err = %v, want %v", res.Err, tt.kind)
			}
			var re *shellcap.RequestError
			if !errors.As(res.Err, &re) {
				t.Fatalf("Err is %T, want *RequestError", res.Err)
			}
			if got := res.Text(); got != tt.text {
				t.Errorf("Text() = %q, want %q", got, tt.text)
			}
		})
	}
}
