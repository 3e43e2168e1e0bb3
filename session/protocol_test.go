package session

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRecords(t *testing.T) {
	stream := "7\x00run\x000\x00/w\x00\x00" + "8\x00sync\x00130\x00/w/a b\x00Sdeclare -x A=\"1\"\n\x00" + "9\x00ru"
	recs, rest, err := parseRecords([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || string(rest) != "9\x00ru" {
		t.Fatalf("records %+v, rest %q", recs, rest)
	}
	if r := recs[0]; r.id != 7 || r.kind != kindRun || r.rc != 0 || r.pwd != "/w" || r.snapshot {
		t.Errorf("first record %+v", r)
	}
	if r := recs[1]; r.id != 8 || r.kind != kindSync || r.rc != 130 || r.pwd != "/w/a b" || !r.snapshot || r.exports != "declare -x A=\"1\"\n" {
		t.Errorf("second record %+v", r)
	}
	if _, _, err := parseRecords([]byte("x\x00run\x000\x00/\x00\x00")); err == nil {
		t.Error("a record with a bad id was accepted")
	}
}

func FuzzParseRecords(f *testing.F) {
	f.Add([]byte("7\x00run\x000\x00/w\x00\x00"))
	f.Add([]byte("8\x00sync\x00130\x00/\x00Sdeclare -x A\x00"))
	f.Add([]byte("\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, rest, err := parseRecords(data)
		if err != nil {
			return
		}
		if !bytes.HasSuffix(data, rest) || bytes.Count(rest, []byte{0}) >= 5 {
			t.Fatalf("rest %q of %q", rest, data)
		}
		for _, r := range recs {
			if r.exports != "" && !r.snapshot {
				t.Fatalf("exports without a snapshot: %+v", r)
			}
		}
	})
}

func TestCutTrace(t *testing.T) {
	for _, tc := range []struct {
		in   string
		min  uint64
		want string
	}{
		{"", 5, ""},
		{"err\n", 5, "err\n"},
		{"++ echo x\n+ __shellcap_done 5 run 0\n+ builtin set +ex\n", 5, "++ echo x\n"},
		{"+ __shellcap_done 5 run 0\n+ builtin set +ex\n", 5, ""},
		{"x\n>> __shellcap_done 6 sync 130 S\n>> builtin set +ex\n", 5, "x\n"},
		{"__shellcap_done 4 run 0\n", 5, "__shellcap_done 4 run 0\n"},
		{"echo __shellcap_done later\n", 5, "echo __shellcap_done later\n"},
	} {
		if got := cutTrace(tc.in, tc.min); got != tc.want {
			t.Errorf("cutTrace(%q, %d) = %q, want %q", tc.in, tc.min, got, tc.want)
		}
	}
}

func TestMayChangeExports(t *testing.T) {
	for cmd, want := range map[string]bool{
		"true":                      false,
		"ls ./src; cat a.txt":       false,
		"find . -name x":            false,
		"export A=1":                true,
		"declare -x A=1":            true,
		"set -a; A=1":               true,
		". venv/bin/activate":       true,
		"cd x && . ./env.sh":        true,
		"source ~/.profile":         true,
		"f() { :; }; unset -v PATH": true,
		"if true; then . ./env; fi": true,
		"echo a.b . c":              false,
	} {
		if got := mayChangeExports(cmd); got != want {
			t.Errorf("mayChangeExports(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	if got := shellQuote("a'b c"); got != `'a'\''b c'` {
		t.Errorf("shellQuote = %s", got)
	}
	if s := restorableExports("declare -x PWD=\"/x\"\ndeclare -x A=\"1\"\ndeclare -x SHLVL=\"2\"\ndeclare -x OLDPWD"); strings.Contains(s, "PWD") || !strings.Contains(s, "A=") {
		t.Errorf("restorableExports = %q", s)
	}
}

// TestAnsiQuote checks that a command quoted for the step line reaches
// bash as exactly its bytes, as one word, whatever it holds: every byte
// but NUL, quotes, backslashes, newlines, invalid UTF-8, and text that
// looks like the end of the word or of the line.
func TestAnsiQuote(t *testing.T) {
	var all strings.Builder
	for c := 1; c < 256; c++ {
		all.WriteByte(byte(c))
	}
	cases := []string{
		"", "true", "'", `\`, `\'`, "'$(touch pwned)'", "a\nb", "}", "\"unterminated", `$'x`, `\x41`, "\\x4", "é漢字🙂",
		"\xff\xfe", "; echo injected", "' ; echo injected ; '", "\r\n\t\v\f", all.String(),
	}
	dir := t.TempDir()
	for _, c := range cases {
		cmd := exec.Command("bash", "--norc", "--noprofile", "-c", `f() { printf '%s:%s' "$#" "$1"; }; f `+ansiQuote(c))
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", c, err)
		}
		if want := "1:" + c; string(out) != want {
			t.Errorf("quoted %q came back as %q", c, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("quoted text was executed")
	}
}
