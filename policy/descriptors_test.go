package policy

import "testing"

func TestDescriptorOf(t *testing.T) {
	for _, tt := range []struct {
		path string
		n    int
		ok   bool
	}{
		{"/dev/stdin", 0, true},
		{"/dev//stdin", 0, true},
		{"/dev/./stdin", 0, true},
		{"/dev/../dev/stdin", 0, true},
		{"/dev/stdout", 1, true},
		{"/dev/fd/0", 0, true},
		{"/dev/fd//3", 3, true},
		{"/dev/fd/../fd/7", 7, true},
		{"/proc/self/fd/0", 0, true},
		{"/proc/thread-self/fd/4", 4, true},
		{"/proc/1234/fd/0", 0, true},
		{"/proc/self/task/99/fd/5", 5, true},
		{"/proc/*/fd/0", 0, true},    // /proc/$$/fd/0
		{"/proc/*/fd/*", -1, true},   // /proc/$$/fd/$n
		{"/dev/fd/*", -1, true},      // /dev/fd/$n
		{"*", -1, true},              // "$script": may be any of them
		{"/dev/*", -1, true},         // /dev/$x
		{"stdin", 0, false},          // a file named stdin, here
		{"../../dev/stdin", 0, true}, // from a directory below /
		{"fd/3", 3, true},
		{"self/fd/0", 0, true},
		{"/dev/null", 0, false},
		{"/dev/stdin.sh", 0, false},
		{"deploy.sh", 0, false},
		{"/tmp/*.sh", 0, false},
		{"/proc/self/fdinfo/0", 0, false},
	} {
		n, ok := descriptorOf(tt.path)
		if ok != tt.ok || ok && n != tt.n {
			t.Errorf("descriptorOf(%q) = %d, %v; want %d, %v", tt.path, n, ok, tt.n, tt.ok)
		}
	}
}

func TestHeredocDelimiters(t *testing.T) {
	// The delimiters bash and the parser agree on, and those they do not.
	for _, tt := range []struct {
		cmd  string
		same bool
	}{
		{"cat <<EOF\nx\nEOF", true},
		{"cat <<'EOF'\nx\nEOF", true},
		{"cat <<\"EOF\"\nx\nEOF", true},
		{"cat <<E\\OF\nx\nEOF", true},
		{"cat <<'E'O\"F\"\nx\nEOF", true},
		{"cat <<-EOF\n\tx\n\tEOF", true},
		{"cat <<$'EOF'\nx\nEOF", true},
		{"cat <<$'E\\x4fF'\nx\nEOF", false},
		{"cat <<\"E\\\"F\"\nx\nE\"F", false},
		{"cat <<\"E\\$F\"\nx\nE$F", false},
	} {
		d := defaultPolicy.Check(tt.cmd)
		if got := d.Rule != ruleParseError; got != tt.same {
			t.Errorf("%q: %s", tt.cmd, d)
		}
	}
}
