package policy

import (
	"slices"
	"strings"
	"testing"
)

func lits(s string) []word {
	var ws []word
	for _, f := range strings.Fields(s) {
		ws = append(ws, word{val: f, prefix: f, lit: true})
	}
	return ws
}

// TestParseOptsGetoptLong: options are read the way getopt_long reads them.
func TestParseOptsGetoptLong(t *testing.T) {
	spec := optSpec{short: "Io", long: []string{"to-command", "use-compress-program", "output"}, flags: []string{"to-stdout", "create", "verbose"}}
	tests := []struct {
		args  string
		want  []string // name=value or name
		first int
	}{
		{"--to-comm=x a", []string{"--to-command=x"}, 1},
		{"--to-c x a", []string{"--to-command=x"}, 2},
		{"--to-s a", []string{"--to-stdout"}, 1},
		{"--to x a", []string{"--to"}, 1}, // ambiguous: both candidates kept, no value taken
		{"--use x a", []string{"--use-compress-program=x"}, 2},
		{"-cI prog a", []string{"-c", "-I=prog"}, 2},
		{"-Iprog a", []string{"-I=prog"}, 1},
		{"-vcoout a", []string{"-v", "-c", "-o=out"}, 1},
		{"-- -I x", nil, 1},
		{"--create --verbose a", []string{"--create", "--verbose"}, 2},
		{"--cr a", []string{"--create"}, 1},
		{"--unknown=1 a", []string{"--unknown=1"}, 1},
	}
	for _, tt := range tests {
		opts, i := parseOpts(lits(tt.args), spec)
		var got []string
		for _, o := range opts {
			s := o.name
			if o.hasVal {
				s += "=" + o.val.val
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tt.want) || i != tt.first {
			t.Errorf("parseOpts(%q) = %v, %d; want %v, %d", tt.args, got, i, tt.want, tt.first)
		}
	}
	opts, _ := parseOpts(lits("--to x"), spec)
	if !hasOpt(opts, "--to-command") || !hasOpt(opts, "--to-stdout") {
		t.Errorf("an ambiguous abbreviation must match every candidate: %+v", opts)
	}
	popts, operands := permutedOptions(lits("USER -c cmd -- -x"), optSpec{short: "c"})
	if v, ok := optVal(popts, "-c"); !ok || v.val != "cmd" || len(operands) != 2 || operands[1].val != "-x" {
		t.Errorf("permutedOptions: %+v %+v", popts, operands)
	}
}

func TestAllowedProgramIdentity(t *testing.T) {
	p := mustNew(Rules{AllowedCommands: []string{"ls", "Git", "./scripts/build.sh", "/opt/t/bin/tool"}})
	for prog, want := range map[string]bool{
		"ls": true, "LS": true, "/bin/ls": true, "/usr/bin/ls": true, "/usr/local/bin/git": true, "git": true,
		"./ls": false, "bin/ls": false, "/tmp/evil/ls": false, "~/bin/ls": false, "../ls": false, "/usr/bin/../../tmp/ls": false,
		"./scripts/build.sh": true, "scripts/build.sh": true, "./scripts/x/../build.sh": true, "/opt/t/bin/tool": true,
		"build.sh": false, "tool": false, "/opt/t/bin/../bin/tool": true,
	} {
		if got := p.allowedProgram(prog); got != want {
			t.Errorf("allowedProgram(%q) = %v, want %v", prog, got, want)
		}
	}
}

func TestPatternText(t *testing.T) {
	for cmd, want := range map[string]string{
		"git -C . push --force":                 "git push --force",
		"git --no-pager -c a.b=c push --force":  "git push --force",
		"git --git-dir=.git push --mirr origin": "git push --mirror origin",
		"git push --forc":                       "git push --force-with-lease --force --force-if-includes",
		"/usr/bin/git --bare log":               "git log",
		"npm --prefix . publish":                "npm publish",
		"kubectl -n prod delete pod x":          "kubectl delete pod x",
		"docker --context x rm -f c":            "docker rm -f c",
		"'rm' -rf 'a b'":                        "rm -rf a b",
		"git $(echo -c) core.pager=x log":       "git $(echo -c) core.pager=x log",
	} {
		var got []string
		p := mustNew(Rules{DeniedCommands: []string{}, Custom: func(c Command) (Decision, bool) {
			got = append(got, c.Text)
			return Decision{}, false
		}})
		p.Check(cmd)
		if !slices.Contains(got, want) {
			t.Errorf("Texts of %q = %q, want %q among them", cmd, got, want)
		}
	}
}

func TestQuietEditor(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"GIT_EDITOR": "true"}, true},
		{map[string]string{"GIT_EDITOR": "vim", "EDITOR": "true"}, false},
		{map[string]string{"EDITOR": "/bin/true"}, true},
		{map[string]string{"VISUAL": "nano", "EDITOR": "true"}, false},
		{map[string]string{"GIT_EDITOR": ":"}, true},
	} {
		if got := quietEditor(tt.env); got != tt.want {
			t.Errorf("quietEditor(%v) = %v, want %v", tt.env, got, tt.want)
		}
	}
	p := mustNew(Rules{Environment: map[string]string{"GIT_EDITOR": "true"}})
	for _, cmd := range []string{"git commit --amend", "git commit", "git tag -a v1", "git rebase -i HEAD~2"} {
		if d := p.Check(cmd); !d.Allowed() {
			t.Errorf("%q with GIT_EDITOR=true: %s", cmd, d)
		}
	}
	for _, cmd := range []string{"git add -p", "vim x", "git commit -p"} {
		if d := p.Check(cmd); d.Rule != ruleInteractive {
			t.Errorf("%q with GIT_EDITOR=true: %s, want interactive", cmd, d)
		}
	}
}

func TestSecretGlobs(t *testing.T) {
	for pat, want := range map[string]bool{
		"/e??/shadow": true, "~/.ss*/id*": true, ".en?": true, "/etc/[s]hadow": true, "~/.aws/cred*": true,
		"*.go": false, "src/*.ts": false, "docs/*.md": false, "./build/*.o": false, "./build/*": true, "*.txt": false,
		"/var/run/secrets/*/serviceaccount/token": true, "~/.config/gh/*": true, "config/.en*": true,
	} {
		if got := secretGlob(pat); got != want {
			t.Errorf("secretGlob(%q) = %v, want %v", pat, got, want)
		}
	}
	if got := expandBraces("/{etc/shadow,x}", 8); !slices.Equal(got, []string{"/etc/shadow", "/x"}) {
		t.Errorf("expandBraces = %v", got)
	}
	if got := expandBraces("a{b,{c,d}}e", 8); !slices.Equal(got, []string{"abe", "ace", "ade"}) {
		t.Errorf("nested expandBraces = %v", got)
	}
}

func TestSedReadOnly(t *testing.T) {
	for script, want := range map[string]bool{
		"1,20p": true, "5p": true, "/^func/,/^}/p": true, "$p": true, "s/a/b/g": true, "s|a|b|2p": true, "10q": true,
		"1d;$d": true, "/x/!p": true, "y/abc/xyz/": true,
		"1w out": false, "s/a/b/w out": false, "s/a/b/e": false, "e ls": false, "1r /etc/passwd": false, "a text": false, "W f": false,
	} {
		if got := sedScriptPrints(script); got != want {
			t.Errorf("sedScriptPrints(%q) = %v, want %v", script, got, want)
		}
	}
}

// TestBlockDeviceWrites: under the approval tiers a write to a disk device
// is denied, not asked about. These cases are kept out of the corpus files,
// which the bash oracle runs: bash performs redirections itself.
func TestBlockDeviceWrites(t *testing.T) {
	p := mustNew(Rules{Approval: true, DeniedCommands: []string{}})
	for _, cmd := range []string{
		"echo x > /dev/sda", "cat img > /dev/nvme0n1", "cat img >/dev/sdb1", "cat x > /dev/disk/by-id/usb-1",
		"echo 1 > /dev/mem", "printf x >> /dev/vda", "cat /dev/zero > /dev/mmcblk0", "ls 2>/dev/sda",
		"cat img > /dev//sda", "echo x &> /dev/xvda", "tee /dev/sda < img", "cp img /dev/sdc", "dd if=img of=/dev/sda",
		"bash -c 'cat img > /dev/sda'",
	} {
		if d := p.Check(cmd); d.Verdict != Deny || d.Rule != ruleDestructive {
			t.Errorf("%q: %s, want deny %s", cmd, d, ruleDestructive)
		}
	}
	for _, cmd := range []string{"echo x > /dev/null", "ls 2>/dev/stderr", "cat f > /dev/stdout", "echo hi > /dev/tty"} {
		if d := p.Check(cmd); d.Verdict == Deny {
			t.Errorf("%q: %s, want no denial", cmd, d)
		}
	}
}

// TestDenyListRedirections: a redirection onto a disk device does what dd
// does, and one onto /proc/sysrq-trigger what reboot does. Kept out of the
// corpus files, which the bash oracle runs.
func TestDenyListRedirections(t *testing.T) {
	for _, cmd := range []string{"echo x > /dev/sda", "cat img >/dev/nvme0n1p1", "echo b > /proc/sysrq-trigger", "echo o >/proc//sysrq-trigger", "bash -c 'echo b > /proc/sysrq-trigger'"} {
		if d := defaultPolicy.Check(cmd); d.Verdict != Deny || d.Rule != ruleDeniedCommand {
			t.Errorf("%q: %s, want deny %s", cmd, d, ruleDeniedCommand)
		}
	}
	if d := mustNew(Rules{DeniedCommands: []string{"rm"}}).Check("echo b > /proc/sysrq-trigger"); !d.Allowed() {
		t.Errorf("without reboot on the deny list: %s", d)
	}
}
