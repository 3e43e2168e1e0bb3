package shellcap_test

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
)

const marker = "[... output truncated, showing last "

// TestTruncationAtTheCap checks exact lengths around MaxOutputChars.
func TestTruncationAtTheCap(t *testing.T) {
	for _, limit := range []int{50, 200} {
		sh := newShell(t, shellcap.Options{MaxOutputChars: limit, DisableOutputFiles: true})
		label := len("[stdout]\n")
		tests := []struct {
			name    string
			payload int // characters printed
			cut     bool
		}{
			{"one under the cap", limit - label - 1, false},
			{"exactly at the cap", limit - label, false},
			{"one over the cap", limit - label + 1, true},
			{"far over the cap", 10 * limit, true},
		}
		for _, tt := range tests {
			t.Run(strconv.Itoa(limit)+"/"+tt.name, func(t *testing.T) {
				// é is two bytes: the cap counts characters, not bytes.
				res := run(t, sh, shellcap.Request{Command: "printf 'é%.0s' $(seq " + strconv.Itoa(tt.payload) + ")"})
				text := res.Text()
				n := utf8.RuneCountInString(text)
				if !tt.cut {
					if n != tt.payload+label || strings.HasPrefix(text, marker) {
						t.Fatalf("uncut text has %d chars: %q", n, text)
					}
					return
				}
				if n != limit || !strings.HasPrefix(text, marker) || !strings.HasSuffix(text, "é") {
					t.Fatalf("cut text has %d chars (cap %d): %q", n, limit, text)
				}
				if !res.Truncated {
					t.Fatal("Truncated = false")
				}
			})
		}
	}
}

// TestTrailersSurviveTruncation: the exit code and notes come last, so the
// cap never drops them.
func TestTrailersSurviveTruncation(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxOutputChars: 300})
	res := run(t, sh, shellcap.Request{Command: "seq 100000; exit 7"})
	text := res.Text()
	if utf8.RuneCountInString(text) != 300 {
		t.Fatalf("text has %d chars, want 300", utf8.RuneCountInString(text))
	}
	if !strings.Contains(text, "[exit code: 7]\n[Output truncated; full stdout: "+res.StdoutFile+" (grep it or read parts with sed -n 'A,Bp')]") {
		t.Fatalf("trailers lost: %q", text)
	}
}

func TestHeadAndTail(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxOutputChars: 400, HeadAndTail: true, DisableOutputFiles: true})
	res := run(t, sh, shellcap.Request{Command: "seq 100000; exit 7"})
	text := res.Text()
	if utf8.RuneCountInString(text) > 400 || !strings.HasPrefix(text, "[stdout]\n1\n2\n") || !strings.HasSuffix(text, "\n99999\n100000\n\n[exit code: 7]") {
		t.Fatalf("head-and-tail text: %q", text)
	}
}

// TestLargeOutputIsKept: a command printing far more than the model reads
// keeps its complete output in a file the result names.
func TestLargeOutputIsKept(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	res := run(t, sh, shellcap.Request{Command: "seq 1000000; echo done >&2"})
	if !res.Truncated || res.StdoutOmitted == 0 || res.StdoutBytes != 6888896 {
		t.Fatalf("Truncated %v omitted %d bytes %d", res.Truncated, res.StdoutOmitted, res.StdoutBytes)
	}
	data, err := os.ReadFile(res.StdoutFile)
	if err != nil {
		t.Fatalf("kept stdout: %v", err)
	}
	if int64(len(data)) != res.StdoutBytes || !strings.HasSuffix(string(data), "\n999999\n1000000\n") {
		t.Fatalf("kept file has %d bytes, want %d", len(data), res.StdoutBytes)
	}
	text := res.Text()
	if utf8.RuneCountInString(text) > shellcap.DefaultMaxOutputChars || !strings.Contains(text, res.StdoutFile) || !strings.Contains(text, "[stderr]\ndone\n") {
		t.Fatalf("text does not end with stderr and the kept file: ...%s", text[len(text)-400:])
	}
	if !strings.Contains(res.Stdout, " bytes omitted ...]") {
		t.Fatalf("Stdout has no omission marker")
	}
	ignore, err := os.ReadFile(sh.Workspace() + "/.shellcap/.gitignore")
	if err != nil || string(ignore) != "*\n" {
		t.Fatalf(".shellcap/.gitignore = %q, %v", ignore, err)
	}
}

// TestTextCutKeepsFile: output that fits in memory but not in the model's
// text is written out too.
func TestTextCutKeepsFile(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxOutputChars: 100})
	res := run(t, sh, shellcap.Request{Command: "seq 200"})
	if res.StdoutOmitted != 0 || res.StdoutFile == "" {
		t.Fatalf("omitted %d file %q", res.StdoutOmitted, res.StdoutFile)
	}
	if data, err := os.ReadFile(res.StdoutFile); err != nil || !strings.HasPrefix(string(data), "1\n2\n") {
		t.Fatalf("kept file: %q %v", data, err)
	}
}

func TestOutputFilesCanBeDisabled(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxOutputChars: 100, DisableOutputFiles: true})
	res := run(t, sh, shellcap.Request{Command: "seq 200000"})
	if res.StdoutFile != "" || !res.Truncated {
		t.Fatalf("file %q truncated %v", res.StdoutFile, res.Truncated)
	}
	if _, err := os.Stat(sh.Workspace() + "/.shellcap"); err == nil {
		t.Fatal(".shellcap was created with output files disabled")
	}
}

func TestMaxOutputBytesKills(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxOutputBytes: 1 << 20})
	res := run(t, sh, shellcap.Request{Command: "yes"})
	if !res.OutputLimitExceeded || res.StdoutBytes != 1<<20 || res.ExitCode != 143 {
		t.Fatalf("limit %v bytes %d exit %d", res.OutputLimitExceeded, res.StdoutBytes, res.ExitCode)
	}
	if !strings.Contains(res.Text(), "Output exceeded 1 MiB; the command was stopped.") {
		t.Fatalf("no note: %q", res.Text()[len(res.Text())-300:])
	}
}

// TestMaxOutputBytesStopsInTwoPhases: the output cap stops the group like
// a timeout does, SIGTERM first, so a TERM trap runs and its exit status
// is the command's.
func TestMaxOutputBytesStopsInTwoPhases(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxOutputBytes: 10000, KillGrace: time.Minute})
	res := run(t, sh, shellcap.Request{Command: "trap 'echo term > trapped; exit 3' TERM; head -c 20000 /dev/zero; while :; do sleep 0.05; done"})
	if !res.OutputLimitExceeded || res.ExitCode != 3 || res.Signal != "" {
		t.Fatalf("limit %v exit %d signal %q", res.OutputLimitExceeded, res.ExitCode, res.Signal)
	}
	if data, err := os.ReadFile(sh.Workspace() + "/trapped"); err != nil || string(data) != "term\n" {
		t.Fatalf("the TERM trap did not run: %q %v", data, err)
	}
}

func TestKeepANSI(t *testing.T) {
	sh := newShell(t, shellcap.Options{KeepANSI: true})
	res := run(t, sh, shellcap.Request{Command: `printf '\033[32mgreen\033[0m'`})
	if res.Text() != "[stdout]\n\x1b[32mgreen\x1b[0m" {
		t.Fatalf("Text() = %q", res.Text())
	}
}

func TestResultJSON(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	res := run(t, sh, shellcap.Request{Command: "echo out; echo err >&2; exit 4"})
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"command": "echo out; echo err >&2; exit 4", "stdout": "out\n", "stderr": "err\n",
		"exit_code": 4.0, "timed_out": false, "truncated": false,
		"stdout_omitted_bytes": 0.0, "stderr_omitted_bytes": 0.0, "cwd": sh.Workspace(),
		"timeout_ms": 30000.0,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if _, ok := got["duration_ms"].(float64); !ok {
		t.Errorf("duration_ms missing: %s", data)
	}

	bad := run(t, sh, shellcap.Request{Command: "a\x00"})
	data, _ = json.Marshal(bad)
	if !strings.Contains(string(data), `"error":"The command contains a NUL byte`) {
		t.Errorf("request error not in JSON: %s", data)
	}
}

func TestExpiredOutputFilesAreRemoved(t *testing.T) {
	ws := t.TempDir()
	dir := ws + "/.shellcap/output"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old, fresh := dir+"/old.stdout", dir+"/fresh.stdout"
	for _, f := range []string{old, fresh} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	newShell(t, shellcap.Options{Workspace: ws})
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("a 48 h old output file survived a 24 h retention: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh output file was removed: %v", err)
	}
}

// TestOutputFileCannotBeKept: when the complete output cannot be written
// (here .shellcap is a file, as a full or read-only disk would also make
// it fail), the model is told so and what to do instead.
func TestOutputFileCannotBeKept(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxOutputChars: 1000})
	if err := os.WriteFile(sh.Workspace()+"/.shellcap", []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := run(t, sh, shellcap.Request{Command: "seq 100000"})
	if res.StdoutFile != "" || !res.Truncated {
		t.Fatalf("file %q truncated %v", res.StdoutFile, res.Truncated)
	}
	if !strings.Contains(res.Text(), "the complete output could not be kept: stdout (") || !strings.HasSuffix(res.Text(), "then read parts of it.]") {
		t.Fatalf("no note: %q", res.Text())
	}
}

// TestStreamBudgets: each stream keeps its own head and tail budget, in
// characters, with the omitted bytes between them; the complete stream is
// kept in a file.
func TestStreamBudgets(t *testing.T) {
	sh := newShell(t, shellcap.Options{
		StdoutBudget: shellcap.Budget{Head: 20, Tail: 80},
		StderrBudget: shellcap.Budget{Head: 10, Tail: 10},
	})
	res := run(t, sh, shellcap.Request{Command: "printf 'é%.0s' $(seq 1000); seq 1000 >&2"})
	wantOut := strings.Repeat("é", 20) + "\n[... 1800 bytes omitted ...]\n" + strings.Repeat("é", 80)
	if res.Stdout != wantOut || res.StdoutOmitted != 1800 || res.StdoutBytes != 2000 {
		t.Fatalf("stdout %q omitted %d of %d", res.Stdout, res.StdoutOmitted, res.StdoutBytes)
	}
	if !strings.HasPrefix(res.Stderr, "1\n2\n3\n4\n5\n\n[... ") || !strings.HasSuffix(res.Stderr, " bytes omitted ...]\n\n999\n1000\n") {
		t.Fatalf("stderr %q", res.Stderr)
	}
	text := res.Text()
	if !strings.Contains(text, "[stdout]\n"+wantOut+"\n[stderr]\n") || !res.Truncated {
		t.Fatalf("text %q", text)
	}
	if data, err := os.ReadFile(res.StdoutFile); err != nil || len(data) != 2000 {
		t.Fatalf("kept stdout: %d bytes, %v", len(data), err)
	}
	// Within its budget a stream is whole.
	res = run(t, sh, shellcap.Request{Command: "seq 5"})
	if res.Stdout != "1\n2\n3\n4\n5\n" || res.Truncated {
		t.Fatalf("short stdout %q truncated %v", res.Stdout, res.Truncated)
	}
}
