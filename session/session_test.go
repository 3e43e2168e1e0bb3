//go:build linux

package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/session"
	"strconv"
)

func TestStatePersists(t *testing.T) {
	s := newSession(t, session.Options{})
	steps := []struct{ cmd, text string }{
		{"x=41; greet() { echo \"hello $1\"; }; declare -A m=([k]=v); mkdir -p sub/dir && cd sub", "(no output)"},
		{"export FOO=bar; alias ll='echo aliased'", "(no output)"},
		{"echo $((x+1)); greet you; echo ${m[k]}", "[stdout]\n42\nhello you\nv\n"},
		{"pwd | sed 's#.*/##'; printenv FOO; cd dir", "[stdout]\nsub\nbar\n"},
		{"basename \"$PWD\"", "[stdout]\ndir\n"},
		{"printf 'no newline'", "[stdout]\nno newline"},
		{"echo out; echo err >&2; exit_code() { return 7; }; exit_code", "[stdout]\nout\n\n[stderr]\nerr\n\n[exit code: 7]"},
	}
	for _, st := range steps {
		want(t, run(t, s, st.cmd), st.text)
	}
	res := run(t, s, "true")
	if !strings.HasSuffix(res.Cwd, filepath.Join("sub", "dir")) {
		t.Errorf("Cwd = %q, want .../sub/dir", res.Cwd)
	}
}

func TestSyntaxErrorsKeepSession(t *testing.T) {
	s := newSession(t, session.Options{})
	run(t, s, "x=kept")
	for _, cmd := range []string{
		"}",
		"echo 'unterminated",
		"echo \"unterminated",
		"fi",
		"( echo open",
		"echo $(",
		"if true; then",
		"cat <<EOF\nno terminator",
		"\\",
	} {
		res := run(t, s, cmd)
		if res.Restarted || res.TimedOut {
			t.Fatalf("Run(%q) restarted or timed out:\n%s", cmd, res.Text())
		}
		if strings.HasPrefix(cmd, "cat <<") {
			if !strings.Contains(res.Stdout, "no terminator") {
				t.Errorf("Run(%q): stdout %q, want the heredoc body", cmd, res.Stdout)
			}
		} else if res.ExitCode == 0 || res.Stderr == "" {
			t.Errorf("Run(%q) = exit %d, stderr %q; want a syntax error", cmd, res.ExitCode, res.Stderr)
		}
		want(t, run(t, s, "echo $x"), "[stdout]\nkept\n")
	}
}

func TestProtocolLookalikesArePlainOutput(t *testing.T) {
	s := newSession(t, session.Options{})
	// Records as the shell writes them, for the ids that come next,
	// printed on stdout and stderr; writes to the status descriptor fail.
	fake := `for i in $(seq 1 50); do printf '%s\0run\0000\0/\0declare -x A="b"\n\0' $i; done`
	cmds := []string{
		fake,
		fake + " >&2",
		`printf '9\0run\0000\0/\0\0' >&3; echo "rc=$?"`,
		`echo __shellcap_rc=0 PS1= "$__shellcap_cmd" | tr -d '\0'`,
		"head -c 3000 /dev/urandom | base64",
	}
	for _, cmd := range cmds {
		res := run(t, s, cmd+"\nfalse")
		if res.ExitCode != 1 || res.Restarted {
			t.Fatalf("Run(%q): exit %d, restarted %v, want exit 1 from false:\n%s", cmd, res.ExitCode, res.Restarted, res.Text())
		}
		if strings.Contains(cmd, ">&3") && !strings.Contains(res.Stdout, "rc=1") {
			t.Errorf("writing to fd 3 should fail; stdout %q stderr %q", res.Stdout, res.Stderr)
		}
		want(t, run(t, s, "echo next"), "[stdout]\nnext\n")
	}
}

// TestForgedRecordsOnSavedDescriptors: while a command runs, bash keeps
// the status descriptor open on a spare descriptor (10 and up) to restore
// it afterwards, and a builtin can write there. Records forged for every
// sequence number a guesser would try, on every such descriptor, are not
// taken for the command's end: the call returns when the command really
// ends, with its real status.
func TestForgedRecordsOnSavedDescriptors(t *testing.T) {
	s := newSession(t, session.Options{})
	home := run(t, s, "pwd").Stdout // some steps have been issued
	forge := `for fd in $(seq 10 30); do for k in $(seq 1 64); do
	  { printf '%s\0run\0%s\0/etc\0\0' $((k << 32)) 77; printf '%s\0run\0%s\0/etc\0\0' $k 77; } >&$fd
	done; done 2>/dev/null
echo after; (exit 5)`
	res := run(t, s, forge)
	// Some of the saved descriptors are copies of the output pipes: what is
	// written there is output, never a record.
	if res.ExitCode != 5 || !strings.HasSuffix(res.Stdout, "after\n") || res.Cwd == "/etc" {
		t.Fatalf("a forged record was taken: exit %d, cwd %q\n%s", res.ExitCode, res.Cwd, res.Text())
	}
	want(t, run(t, s, "echo next; pwd"), "[stdout]\nnext\n"+home)
}

func TestStdinIsEndOfFile(t *testing.T) {
	s := newSession(t, session.Options{})
	for _, tc := range []struct{ cmd, text string }{
		{"cat", "(no output)"},
		{"read x; echo \"rc=$? x=[$x]\"", "[stdout]\nrc=1 x=[]\n"},
		{"head -c 5; wc -c", "[stdout]\n0\n"},
		{"python3 -c 'import sys; print(len(sys.stdin.read()))' 2>/dev/null || echo 0", "[stdout]\n0\n"},
	} {
		res := runReq(t, s, session.Request{Command: tc.cmd, Timeout: time.Minute})
		want(t, res, tc.text)
	}
}

func TestTimeoutKeepsSession(t *testing.T) {
	for _, tc := range []struct{ name, cmd string }{
		{"sleep", "sleep 100"},
		{"builtin loop", "while :; do :; done"},
		{"loop in function", "spin() { while :; do :; done; }; spin; echo not reached"},
		{"pipeline", "sleep 100 | cat"},
		{"child ignoring SIGINT", `bash -c "trap '' INT; sleep 100"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, session.Options{InterruptGrace: time.Second})
			run(t, s, "x=kept; f() { echo fn; }; mkdir d; cd d")
			res := runReq(t, s, session.Request{Command: "echo before; " + tc.cmd, Timeout: time.Second})
			if !res.TimedOut || res.Restarted {
				t.Fatalf("timed out %v, restarted %v:\n%s", res.TimedOut, res.Restarted, res.Text())
			}
			if !strings.Contains(res.Text(), "[Command timed out after 1s]") || !strings.HasPrefix(res.Text(), "[stdout]\nbefore\n") {
				t.Errorf("text:\n%s", res.Text())
			}
			want(t, run(t, s, "echo $x; f; basename $PWD"), "[stdout]\nkept\nfn\nd\n")
		})
	}
}

func TestUnresponsiveShellIsRestarted(t *testing.T) {
	s := newSession(t, session.Options{InterruptGrace: 500 * time.Millisecond})
	run(t, s, "export KEEP=yes; mkdir d; cd d; plain=gone")
	res := runReq(t, s, session.Request{Command: "trap '' INT; while :; do :; done", Timeout: time.Second})
	if !res.TimedOut || !res.Restarted {
		t.Fatalf("timed out %v, restarted %v:\n%s", res.TimedOut, res.Restarted, res.Text())
	}
	if !strings.Contains(res.Text(), "did not respond to the interrupt") {
		t.Errorf("text:\n%s", res.Text())
	}
	want(t, run(t, s, "echo $KEEP ${plain-unset}; basename $PWD"), "[stdout]\nyes unset\nd\n")
}

func TestOutputCapKeepsSession(t *testing.T) {
	s := newSession(t, session.Options{MaxOutputBytes: 1 << 20, MaxOutputChars: 2000})
	run(t, s, "x=kept")
	res := run(t, s, "yes flood")
	if !res.OutputLimitExceeded || res.Restarted || !res.Truncated {
		t.Fatalf("limit %v restarted %v truncated %v:\n%s", res.OutputLimitExceeded, res.Restarted, res.Truncated, res.Text())
	}
	if n := utf8.RuneCountInString(res.Text()); n > 2000 {
		t.Errorf("text has %d chars, cap 2000", n)
	}
	if !strings.Contains(res.Text(), "Output exceeded") {
		t.Errorf("text:\n%s", res.Text())
	}
	want(t, run(t, s, "echo $x"), "[stdout]\nkept\n")
	// A builtin flood, which only SIGINT to the shell itself stops.
	res = run(t, s, "while :; do echo builtin flood; done")
	if !res.OutputLimitExceeded || res.Restarted {
		t.Fatalf("builtin flood: limit %v restarted %v:\n%s", res.OutputLimitExceeded, res.Restarted, res.Text())
	}
	want(t, run(t, s, "echo $x"), "[stdout]\nkept\n")
}

func TestContextCancelKeepsSession(t *testing.T) {
	s := newSession(t, session.Options{})
	run(t, s, "x=kept")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	res, err := s.Run(ctx, session.Request{Command: "echo started; sleep 100", Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled || res.Restarted || res.Stdout != "started\n" {
		t.Fatalf("canceled %v restarted %v:\n%s", res.Canceled, res.Restarted, res.Text())
	}
	want(t, run(t, s, "echo $x"), "[stdout]\nkept\n")

	// A context that has already ended does not run the command.
	if _, err := s.Run(ctx, session.Request{Command: "x=changed"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled ctx: %v", err)
	}
	want(t, run(t, s, "echo $x"), "[stdout]\nkept\n")
}

func TestShellDeathRestoresState(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		code int
		how  string
		kept bool // the EXIT trap ran: functions and unexported variables are restored
	}{
		{"exit", 0, "exited (exit code 0)", true},
		{"exit 3", 3, "exited (exit code 3)", true},
		{"echo bye; exit 3", 3, "exited (exit code 3)", true},
		{"exec true", 0, "exited (exit code 0)", false},
		{"exec sh -c 'exit 4'", 4, "exited (exit code 4)", false},
		{"kill -9 $$", 137, "was killed by SIGKILL", false},
		{"set -e; false", 1, "exited (exit code 1) under set -e", true},
		{"set -e; later=1; g() { echo g; }; alias al='echo al'; false; echo not reached", 1, "exited (exit code 1) under set -e", true},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			s := newSession(t, session.Options{})
			run(t, s, "export FOO='two words' BAR=$'multi\\nline'; mkdir -p a/b; cd a/b; plain=1; f() { :; }")
			res := run(t, s, tc.cmd)
			if !res.Restarted || res.ExitCode != tc.code {
				t.Fatalf("restarted %v exit %d, want restart with exit %d:\n%s", res.Restarted, res.ExitCode, tc.code, res.Text())
			}
			if !strings.Contains(res.Text(), "The shell "+tc.how+", so a new one was started in ") ||
				strings.Contains(res.Stderr, "exit\n") {
				t.Errorf("text:\n%s", res.Text())
			}
			if strings.HasPrefix(tc.cmd, "echo bye") && res.Stdout != "bye\n" {
				t.Errorf("stdout %q", res.Stdout)
			}
			if tc.kept {
				if !strings.Contains(res.Text(), "with its variables, functions and aliases restored") {
					t.Errorf("text:\n%s", res.Text())
				}
				want(t, run(t, s, `echo "$FOO|$BAR|${plain-unset}"; type f >/dev/null 2>&1 || echo no f; pwd | sed 's#.*/a/#a/#'`),
					"[stdout]\ntwo words|multi\nline|1\na/b\n")
				if strings.Contains(tc.cmd, "later=1") {
					want(t, run(t, s, "echo $later; g; al"), "[stdout]\n1\ng\nal\n")
				}
				return
			}
			want(t, run(t, s, `echo "$FOO|$BAR|${plain-unset}"; type f >/dev/null 2>&1 || echo no f; pwd | sed 's#.*/a/#a/#'`),
				"[stdout]\ntwo words|multi\nline|unset\nno f\na/b\n")
		})
	}
}

func TestStartInRoot(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	s, err := session.New(context.Background(), sh, session.Options{StartInRoot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want(t, run(t, s, "x=kept; mkdir sub; cd sub; pwd | sed 's#.*/##'"), "[stdout]\nsub\n")
	res := run(t, s, `[ "$PWD" = "`+sh.Workspace()+`" ] && echo root; echo $x`)
	want(t, res, "[stdout]\nroot\nkept\n")
	if res.Cwd != sh.Workspace() {
		t.Errorf("Cwd = %q, want %q", res.Cwd, sh.Workspace())
	}

	// A root that cannot be entered stops the command.
	marker := filepath.Join(t.TempDir(), "ran")
	if err := os.RemoveAll(sh.Workspace()); err != nil {
		t.Fatal(err)
	}
	res = run(t, s, "touch "+marker)
	if !errors.Is(res.Err, shellcap.ErrWorkdirGone) || !strings.Contains(res.Text(), "could not be entered") {
		t.Fatalf("err %v:\n%s", res.Err, res.Text())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran although the root could not be entered")
	}
	if err := os.Mkdir(sh.Workspace(), 0o700); err != nil {
		t.Fatal(err)
	}
	want(t, run(t, s, "echo $x"), "[stdout]\nkept\n")
}

func TestRestart(t *testing.T) {
	s := newSession(t, session.Options{})
	run(t, s, "export E=1; x=1; mkdir d; cd d")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	res := run(t, s, `echo "${E-unset} ${x-unset} $(basename $PWD)"`)
	if !strings.HasPrefix(res.Text(), "[stdout]\nunset unset ") || strings.Contains(res.Text(), " d\n") {
		t.Fatalf("after Restart:\n%s", res.Text())
	}
}

func TestRefusals(t *testing.T) {
	s := newSession(t, session.Options{MaxTimeout: time.Minute})
	ctx := context.Background()
	checked := func(req session.Request) *session.Result {
		t.Helper()
		res, err := s.Run(ctx, req)
		if err != nil {
			t.Fatalf("Run(%q): %v", req.Command, err)
		}
		return res
	}
	if res := checked(session.Request{Command: "echo a\x00b"}); !errors.Is(res.Err, shellcap.ErrNULByte) {
		t.Errorf("NUL: err %v", res.Err)
	}
	if res := checked(session.Request{Command: "rm -rf x"}); !errors.Is(res.Err, shellcap.ErrDenied) {
		t.Errorf("policy: err %v, text %q", res.Err, res.Text())
	}
	if res := checked(session.Request{Command: "echo 'unterminated"}); res.Err == nil || !strings.Contains(res.Text(), "quote") {
		t.Errorf("parse: err %v, text %q", res.Err, res.Text())
	}
	res := checked(session.Request{Command: "true", Timeout: time.Hour})
	if !errors.Is(res.Err, shellcap.ErrTimeoutRange) || !strings.Contains(res.Text(), "at most 60s") {
		t.Errorf("timeout range: err %v text %q", res.Err, res.Text())
	}
	want(t, checked(session.Request{Command: "echo allowed"}), "[stdout]\nallowed\n")
}

func TestTextCapKeepsTail(t *testing.T) {
	s := newSession(t, session.Options{MaxOutputChars: 200})
	res := run(t, s, "seq 1 5000; exit_with() { return $1; }; exit_with 2")
	text := res.Text()
	if n := utf8.RuneCountInString(text); n > 200 {
		t.Errorf("text has %d chars", n)
	}
	if !strings.HasSuffix(text, "5000\n\n[exit code: 2]") || !res.Truncated {
		t.Errorf("truncated %v, text:\n%s", res.Truncated, text)
	}
}

func TestConcurrentRunsAreSerialised(t *testing.T) {
	s := newSession(t, session.Options{})
	run(t, s, "n=0")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5 {
				res := run(t, s, "n=$((n+1)); echo $n")
				if res.ExitCode != 0 || res.Stderr != "" {
					t.Errorf("text:\n%s", res.Text())
				}
			}
		})
	}
	wg.Wait()
	want(t, run(t, s, "echo $n"), "[stdout]\n40\n")
}

func TestCloseStopsEverything(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	s, err := session.New(context.Background(), sh, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run(t, s, "sleep 100 & sleep 100 &")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), session.Request{Command: "true"}); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Run after Close: %v", err)
	}
	if err := s.Restart(context.Background()); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Restart after Close: %v", err)
	}
}

func TestShellSettingsDoNotBreakTheProtocol(t *testing.T) {
	s := newSession(t, session.Options{})
	for _, tc := range []struct{ cmd, text string }{
		{"set -u; x=kept", "(no output)"},
		{"echo $x", "[stdout]\nkept\n"},
		{"exec 3>/dev/null 4</dev/null; echo redirected", "[stdout]\nredirected\n"},
		{"set -x; echo traced >/dev/null", "[stderr]\n++ echo traced\n"},
		{"echo untraced", "[stdout]\nuntraced\n"},
		{"PS1='$ ' PS2='> ' PS0='ps0' PROMPT_COMMAND='echo pc'", "(no output)"},
		{"echo clean", "[stdout]\nclean\n"},
		{"set -o pipefail; false | true", "\n[exit code: 1]"},
		{"unset PWD; echo nopwd", "[stdout]\nnopwd\n"},
		{"alias echo='echo aliased'", "(no output)"},
		{"echo x", "[stdout]\naliased x\n"},
		{"unalias echo", "(no output)"},
		{"echo $x", "[stdout]\nkept\n"},
	} {
		res := run(t, s, tc.cmd)
		got := res.Text()
		if tc.text[0] == '\n' {
			got = got[strings.Index(got, "\n"):]
		}
		if got != tc.text {
			t.Errorf("Run(%q) text:\n%s\nwant:\n%s", tc.cmd, res.Text(), tc.text)
		}
	}
}

func TestBackgroundJobOutlivesItsCall(t *testing.T) {
	s := newSession(t, session.Options{})
	// As at a terminal, bash announces the job and its PID.
	res := run(t, s, "sleep 100 & echo started")
	if res.Stdout != "started\n" || !strings.HasPrefix(res.Stderr, "[1] ") {
		t.Fatalf("text:\n%s", res.Text())
	}
	res = run(t, s, "kill %1 && wait; echo stopped")
	if !strings.Contains(res.Stdout, "stopped") || res.Restarted {
		t.Fatalf("text:\n%s", res.Text())
	}
}

// TestLargeCommand sends commands around the size where they stop
// travelling in the step line, and one of 256 KiB, with every kind of byte
// in a quoted string: each runs as one command, and the session stays in
// sync.
func TestLargeCommand(t *testing.T) {
	s := newSession(t, session.Options{})
	chunk := "a'b\"c\\d$e`f}\ng\t\x01é"
	for _, size := range []int{4000, 4096, 5000, 256 << 10} {
		prefix, suffix := "x=$'", "'; echo ${#x}"
		var body strings.Builder
		for body.Len() < size {
			body.WriteString(chunk)
		}
		quoted := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(body.String())
		res := run(t, s, prefix+quoted+suffix)
		if res.ExitCode != 0 || res.Stdout != strconv.Itoa(utf8.RuneCountInString(body.String()))+"\n" {
			t.Fatalf("command of %d bytes: %s", len(prefix+quoted+suffix), res.Text())
		}
		if res := run(t, s, "echo next"); res.Stdout != "next\n" {
			t.Fatalf("after the command of %d bytes: %s", size, res.Text())
		}
	}
}
