package fdaudit

import "testing"

func TestCheck(t *testing.T) {
	g := Grants{Writable: []string{"/ws"}, Readable: []string{"/usr"}}
	cases := []struct {
		line string
		ok   bool
	}{
		{"fd 0 0100000 /dev/null", true},
		{"fd 1 01 pipe:[12]", true},
		{"fd 3 02 socket:[7]", true},
		{"fd 12 02100002 /memfd:shellcap-session-command (deleted)", true},
		{"fd 5 02 /dev/pts/0", true},
		{"fd 6 01 /ws/out.txt", true},
		{"fd 7 00 /usr/lib/x", true},
		{"fd 12 02100002 /tmp/shellcap-session-1-2/command", false},
		{"fd 63 0100001 /ws/.shellcap/run/cwd-1", false},
		{"fd 8 01 /usr/lib/x", false},
		{"fd 9 00 /etc/shadow", false},
		{"fd 10 02 /ws/gone.txt (deleted)", false},
		{"fd 11 02 anon_inode:[pidfd]", false},
	}
	for _, c := range cases {
		es := Parse(c.line)
		if len(es) != 1 {
			t.Fatalf("Parse(%q) = %v", c.line, es)
		}
		if bad := Check(es, g); (len(bad) == 0) != c.ok {
			t.Errorf("%q: %v, want ok=%v", c.line, bad, c.ok)
		}
	}
	if bad := Check(nil, g); len(bad) == 0 {
		t.Error("an empty listing passed")
	}
}
