//go:build linux

package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/session"
)

// TestShellSettingsFlowDown sets each Shell setting once, leaves the
// session's options zero, and observes the setting in a session's result.
func TestShellSettingsFlowDown(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shell shellcap.Options
		req   session.Request
		check func(t *testing.T, res *session.Result)
	}{
		{
			name:  "MaxOutputChars",
			shell: shellcap.Options{MaxOutputChars: 20},
			req:   session.Request{Command: "seq 1 100"},
			check: func(t *testing.T, res *session.Result) {
				if n := utf8.RuneCountInString(res.Text()); n > 20 || !res.Truncated {
					t.Errorf("%d characters, truncated %v:\n%s", n, res.Truncated, res.Text())
				}
				if !strings.HasSuffix(res.Text(), "99\n100\n") {
					t.Errorf("the end is lost:\n%s", res.Text())
				}
			},
		},
		{
			name:  "HeadAndTail",
			shell: shellcap.Options{MaxOutputChars: 200, HeadAndTail: true},
			req:   session.Request{Command: "seq 1 5000"},
			check: func(t *testing.T, res *session.Result) {
				text := res.Text()
				if n := utf8.RuneCountInString(text); n > 200 {
					t.Errorf("%d characters", n)
				}
				if !strings.HasPrefix(text, "[stdout]\n1\n2\n3\n") || !strings.HasSuffix(text, "4999\n5000\n") {
					t.Errorf("not both ends:\n%s", text)
				}
			},
		},
		{
			name:  "DefaultTimeout",
			shell: shellcap.Options{DefaultTimeout: time.Second},
			req:   session.Request{Command: "sleep 3; echo finished"},
			check: func(t *testing.T, res *session.Result) {
				if !res.TimedOut || res.Timeout != time.Second || strings.Contains(res.Stdout, "finished") {
					t.Errorf("timed out %v after %v:\n%s", res.TimedOut, res.Timeout, res.Text())
				}
				if !strings.Contains(res.Text(), "[Command timed out after 1s]") {
					t.Errorf("text:\n%s", res.Text())
				}
			},
		},
		{
			name:  "MaxTimeout",
			shell: shellcap.Options{DefaultTimeout: time.Second, MaxTimeout: 5 * time.Second},
			req:   session.Request{Command: "echo ran", Timeout: 6 * time.Second},
			check: func(t *testing.T, res *session.Result) {
				if !errors.Is(res.Err, shellcap.ErrTimeoutRange) || !strings.Contains(res.Text(), "at most 5s (got 6s)") {
					t.Errorf("err %v:\n%s", res.Err, res.Text())
				}
			},
		},
		{
			name:  "MaxOutputBytes",
			shell: shellcap.Options{MaxOutputBytes: 10_000},
			req:   session.Request{Command: "head -c 20000 /dev/zero | tr '\\0' a"},
			check: func(t *testing.T, res *session.Result) {
				if !res.OutputLimitExceeded || !strings.Contains(res.Text(), "Output exceeded 9.8 KiB") {
					t.Errorf("limit %v:\n%s", res.OutputLimitExceeded, res.Text())
				}
			},
		},
		{
			name:  "MaxFileBytes",
			shell: shellcap.Options{MaxFileBytes: 1024},
			req:   session.Request{Command: "head -c 8192 /dev/zero > big"},
			check: func(t *testing.T, res *session.Result) {
				if res.ExitCode != 153 || !strings.Contains(res.Text(), "File-size limit exceeded: max_file_bytes=1024") {
					t.Errorf("exit %d:\n%s", res.ExitCode, res.Text())
				}
			},
		},
		{
			name:  "KeepANSI",
			shell: shellcap.Options{KeepANSI: true},
			req:   session.Request{Command: `printf '\033[31mred\033[0m\n'`},
			check: func(t *testing.T, res *session.Result) {
				if res.Stdout != "\x1b[31mred\x1b[0m\n" {
					t.Errorf("stdout %q", res.Stdout)
				}
			},
		},
		{
			// The command cleans up for 3 s after SIGINT: within the
			// Shell's KillGrace of 20 s it finishes (the package's old
			// fixed 2 s killed it).
			name:  "KillGrace",
			shell: shellcap.Options{DefaultTimeout: time.Second, KillGrace: 20 * time.Second},
			req:   session.Request{Command: `bash -c "trap 'sleep 3; echo cleaned up; exit 0' INT; sleep 100 & wait"`},
			check: func(t *testing.T, res *session.Result) {
				if !res.TimedOut || res.Restarted || !strings.Contains(res.Stdout, "cleaned up") {
					t.Errorf("timed out %v restarted %v:\n%s", res.TimedOut, res.Restarted, res.Text())
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sh := newShell(t, tc.shell)
			s, err := session.New(context.Background(), sh, session.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := s.Run(ctx, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, res)
		})
	}
}

// TestSessionOptionsOverrideShell shows that a session's own value wins
// over the Shell's.
func TestSessionOptionsOverrideShell(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxOutputChars: 20, DefaultTimeout: time.Second})
	s, err := session.New(context.Background(), sh, session.Options{MaxOutputChars: -1, DefaultTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res := run(t, s, "seq 1 100")
	if res.Truncated || !strings.HasPrefix(res.Text(), "[stdout]\n1\n2\n") || res.Timeout != time.Minute {
		t.Errorf("truncated %v timeout %v:\n%s", res.Truncated, res.Timeout, res.Text())
	}
}

// TestOptionsRefused shows that New refuses, naming the field, session
// options its Shell's limits do not allow, before it starts anything.
func TestOptionsRefused(t *testing.T) {
	sh := newShell(t, shellcap.Options{DefaultTimeout: 10 * time.Second, MaxTimeout: time.Minute})
	for _, tc := range []struct {
		opts   session.Options
		option string
		reason string
	}{
		{session.Options{MaxTimeout: 2 * time.Minute}, "MaxTimeout", "above the Shell's MaxTimeout 1m0s"},
		{session.Options{DefaultTimeout: 2 * time.Minute}, "DefaultTimeout", "above the Shell's MaxTimeout 1m0s"},
		{session.Options{DefaultTimeout: 40 * time.Second, MaxTimeout: 30 * time.Second}, "DefaultTimeout", "above MaxTimeout 30s"},
		{session.Options{MaxTimeout: 5 * time.Second}, "MaxTimeout", "below the Shell's DefaultTimeout 10s"},
		{session.Options{DefaultTimeout: -time.Second}, "DefaultTimeout", "must not be negative"},
		{session.Options{MaxTimeout: -time.Second}, "MaxTimeout", "must not be negative"},
		{session.Options{InterruptGrace: -time.Second}, "InterruptGrace", "must not be negative"},
	} {
		s, err := session.New(context.Background(), sh, tc.opts)
		if err == nil {
			s.Close()
			t.Errorf("%+v: started", tc.opts)
			continue
		}
		var oe *shellcap.OptionError
		if !errors.As(err, &oe) || !errors.Is(err, shellcap.ErrInvalidOptions) || oe.Option != tc.option || !strings.Contains(oe.Reason, tc.reason) {
			t.Errorf("%+v: %v, want option %s: ...%s", tc.opts, err, tc.option, tc.reason)
		}
	}
	// At the Shell's limits is fine.
	s, err := session.New(context.Background(), sh, session.Options{DefaultTimeout: time.Minute, MaxTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// TestResultJSON shows that a session result's JSON is the core's (a
// refusal's exit_code as a refused Run's) plus "restarted", with commands
// left readable.
func TestResultJSON(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	s, err := session.New(context.Background(), sh, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	decode := func(v json.Marshaler) map[string]json.RawMessage {
		t.Helper()
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		return m
	}

	refused, err := s.Run(ctx, session.Request{Command: "rm -rf x"})
	if err != nil || refused.Err == nil {
		t.Fatalf("refusal: %v %v", err, refused.Err)
	}
	ran, err := sh.Run(ctx, shellcap.Request{Command: "rm -rf x"})
	if err != nil || ran.Err == nil {
		t.Fatalf("Run refusal: %v %v", err, ran.Err)
	}
	got, core := decode(refused), decode(ran)
	if string(got["exit_code"]) != string(core["exit_code"]) || got["error"] == nil || got["restarted"] != nil {
		t.Errorf("refusal JSON %v, a refused Run's %v", got, core)
	}

	res := run(t, s, "echo '<a&b>'; exit 3")
	if !res.Restarted {
		t.Fatalf("not restarted:\n%s", res.Text())
	}
	data, err := res.MarshalJSON() // json.Marshal would escape < > & again
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(data) || !strings.Contains(string(data), `"command":"echo '<a&b>'; exit 3"`) ||
		!strings.HasSuffix(string(data), `,"restarted":true}`) || !strings.Contains(string(data), `"exit_code":3`) {
		t.Errorf("JSON: %s", data)
	}
}
