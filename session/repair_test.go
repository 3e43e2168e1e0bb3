package session

import (
	"slices"
	"strings"
	"testing"
)

func TestParseRepairRecord(t *testing.T) {
	stream := "enable -n printf\nenable -n eval\n7\x00run builtin enable\x000\x00/w\x00S\x00"
	recs, rest, err := parseRecords([]byte(stream))
	if err != nil || len(recs) != 1 || len(rest) != 0 {
		t.Fatalf("records %+v, rest %q, err %v", recs, rest, err)
	}
	r := recs[0]
	if r.id != 7 || r.kind != kindRun || !slices.Equal(r.removed, []string{"builtin", "enable"}) || !slices.Equal(r.disabled, []string{"printf", "eval"}) {
		t.Errorf("record %+v", r)
	}
	notes := strings.Join(repairNotes(r), "\n")
	if !strings.Contains(notes, "builtin, enable were removed") || !strings.Contains(notes, "printf, eval were enabled again") {
		t.Errorf("notes %q", notes)
	}
	if _, _, err := parseRecords([]byte("garbage\n7\x00run\x000\x00/\x00\x00")); err == nil {
		t.Error("a record with a bad prefix was accepted")
	}
}

func TestExecRedirects(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"exec >/dev/null", true},
		{"exec 1>&-", true},
		{"exec 2>&-", true},
		{"exec &>/dev/null", true},
		{"exec </dev/zero", true},
		{"echo hi; exec 2>log", true},
		{"exec 3>/dev/null", false},
		{"exec 10>&1", false},
		{"exec true", false},
		{"execute >out", false},
		{"echo exec >out", false},
		{"exec sh -c 'exit 4'", false},
	} {
		if got := execRedirects(tc.cmd); got != tc.want {
			t.Errorf("execRedirects(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}

func TestCutTTYErrors(t *testing.T) {
	in := "out\nbash: [24827: 1 (255)] tcsetattr: Inappropriate ioctl for device\nmore\n"
	if got := cutTTYErrors(in); got != "out\nmore\n" {
		t.Errorf("cutTTYErrors = %q", got)
	}
}

func TestRestorableState(t *testing.T) {
	vars := "declare -- x=\"1\"\ndeclare -r BASHOPTS=\"x\"\ndeclare -i SECONDS=\"3\"\ndeclare -a arr=([0]=$'a\\nb')\ndeclare -- __shellcap_p=\"1\"\n"
	funcs := "f () \n{ \n    echo \"a\n}\"\n}\n__shellcap_done () \n{ \n    :\n}\ng () \n{ \n    :\n}\n"
	got := restorableState(vars, funcs, "alias ll='ls -l'\n")
	want := "declare -- x=\"1\"\ndeclare -a arr=([0]=$'a\\nb')\nf () \n{ \n    echo \"a\n}\"\n}\ng () \n{ \n    :\n}\nalias ll='ls -l'"
	if got != want {
		t.Errorf("restorableState:\n%s\nwant:\n%s", got, want)
	}
}
