package openai

import "testing"

func TestCutTails(t *testing.T) {
	tests := []struct {
		name, stdout, stderr string
		max                  int
		wantOut, wantErr     string
	}{
		{"no limit", "abcdef", "xyz", 0, "abcdef", "xyz"},
		{"fits", "abc", "xyz", 6, "abc", "xyz"},
		{"stdout cut, stderr short", "abcdefgh", "xy", 6, "[... 4 characters omitted ...]\nefgh", "xy"},
		{"both cut in halves", "abcdefgh", "uvwxyz", 6, "[... 5 characters omitted ...]\nfgh", "[... 3 characters omitted ...]\nxyz"},
		{"stderr cut, stdout short", "a", "uvwxyz", 4, "a", "[... 3 characters omitted ...]\nxyz"},
		{"characters, not bytes", "äöüß", "", 2, "[... 2 characters omitted ...]\nüß", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotOut, gotErr := cutTails(tt.stdout, tt.stderr, tt.max)
			if gotOut != tt.wantOut || gotErr != tt.wantErr {
				t.Errorf("cutTails(%q, %q, %d) = %q, %q; want %q, %q", tt.stdout, tt.stderr, tt.max, gotOut, gotErr, tt.wantOut, tt.wantErr)
			}
		})
	}
}

func TestArgvCommand(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"bash", "-lc", "echo $HOME && ls"}, "echo $HOME && ls"},
		{[]string{"/bin/sh", "-c", "pwd"}, "pwd"},
		{[]string{"ls", "-la", "my dir", "it's"}, `ls -la 'my dir' 'it'\''s'`},
		{[]string{"bash", "-x", "script.sh"}, "bash -x script.sh"},
		{[]string{"echo", ""}, "echo ''"},
	}
	for _, tt := range tests {
		if got := argvCommand(tt.argv); got != tt.want {
			t.Errorf("argvCommand(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}
