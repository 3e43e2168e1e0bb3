package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name  string
		rules Rules
		want  string
	}{
		{"both lists", Rules{AllowedCommands: []string{"ls"}, DeniedCommands: []string{"rm"}}, "specify AllowedCommands or DeniedCommands, not both"},
		{"bad deny regex", Rules{DenyPatterns: []string{"ok", "a("}}, "DenyPatterns[1]: error parsing regexp"},
		{"bad allow regex", Rules{AllowPatterns: []string{"[z-a]"}}, "AllowPatterns[0]: error parsing regexp"},
		{"unknown operator", Rules{DeniedOperators: []string{">", "=>"}}, `unknown operator "=>" in DeniedOperators`},
		{"empty name", Rules{AllowedCommands: []string{"ls", ""}}, `AllowedCommands[1] = "" is not a command name`},
		{"name with space", Rules{DeniedCommands: []string{"rm -rf"}}, `DeniedCommands[0] = "rm -rf" is not a command name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.rules)
			if err == nil {
				t.Fatalf("New succeeded (%v), want error %q", p, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if !errors.Is(err, ErrInvalidRules) {
				t.Errorf("error %v does not wrap ErrInvalidRules", err)
			}
		})
	}
	valid := []Rules{
		{},
		{AllowedCommands: []string{"ls"}, DeniedCommands: []string{}},
		{DeniedCommands: []string{}},
		{DeniedOperators: []string{">", ">>", "<", "|", "&&", "||", ";", "&", "$(...)", "`", "<(...)", ">(...)", ">|", "&>", "<<", "<<<", "|&"}},
		{AllowPatterns: []string{}, DenyPatterns: []string{`^rm\b`}},
	}
	for _, r := range valid {
		if _, err := New(r); err != nil {
			t.Errorf("New(%+v): %v", r, err)
		}
	}
}

func TestNewCopiesSlices(t *testing.T) {
	allowed := []string{"ls"}
	p, err := New(Rules{AllowedCommands: allowed})
	if err != nil {
		t.Fatal(err)
	}
	allowed[0] = "rm"
	if d := p.Check("ls"); !d.Allowed() {
		t.Errorf("changing the slice after New changed the policy: %s", d)
	}
}

func TestParseRules(t *testing.T) {
	yamlFile := `
# shellcap policy
allowed_commands: [git, ls, "cat"]
denied_operators:
  - ">"
  - ">>"
allow_interactive: true
deny_patterns: ['^git push\b.*--force']
allow_patterns: []
approval: true
`
	r, err := ParseRules([]byte(yamlFile))
	if err != nil {
		t.Fatal(err)
	}
	want := Rules{
		AllowedCommands:  []string{"git", "ls", "cat"},
		DeniedOperators:  []string{">", ">>"},
		AllowInteractive: true,
		DenyPatterns:     []string{`^git push\b.*--force`},
		AllowPatterns:    []string{},
		Approval:         true,
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("ParseRules:\n got %#v\nwant %#v", r, want)
	}
	if r.DeniedCommands != nil {
		t.Errorf("absent denied_commands should stay nil (the default list)")
	}

	jsonFile := "{\n\t\"denied_commands\": [],\n\t\"denied_operators\": [\"|\"]\n}"
	r, err = ParseRules([]byte(jsonFile))
	if err != nil {
		t.Fatal(err)
	}
	if r.DeniedCommands == nil || len(r.DeniedCommands) != 0 {
		t.Errorf("denied_commands: [] should give a non-nil empty slice, got %#v", r.DeniedCommands)
	}
	p, err := New(r)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Check("rm x | wc"); d.Rule != "operator" {
		t.Errorf("JSON rules not applied: %s", d)
	}

	for _, empty := range []string{"", "# nothing\n", "null", "{}"} {
		r, err := ParseRules([]byte(empty))
		if err != nil || !reflect.DeepEqual(r, Rules{}) {
			t.Errorf("ParseRules(%q) = %#v, %v; want zero Rules", empty, r, err)
		}
	}

	bad := []struct{ file, want string }{
		{"allowed_commands: [ls]\ndenyed_commands: [rm]\n", `line 2: unknown key "denyed_commands"`},
		{"allowed-commands: [ls]\n", `unknown key "allowed-commands"`},
		{"allowed_commands: ls\n", "allowed_commands"},
		{"approval: maybe\n", "approval"},
		{"- ls\n", "want a mapping"},
		{"allowed_commands: [ls]\ndenied_commands: [rm]\n", "specify allowed_commands or denied_commands, not both"},
		{"deny_patterns: ['(']\n", "deny_patterns[0]"},
		{"denied_operators: ['=>']\n", `unknown operator "=>"`},
		{"approval: true\napproval: false\n", `key "approval" appears twice`},
		{"allowed_commands: [ls\n", "policy file"},
	}
	for _, b := range bad {
		_, err := ParseRules([]byte(b.file))
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ParseRules(%q) error = %v, want it to contain %q", b.file, err, b.want)
		}
		if err != nil && !errors.Is(err, ErrInvalidRules) {
			t.Errorf("ParseRules(%q) error %v does not wrap ErrInvalidRules", b.file, err)
		}
	}
}

func TestVerdictText(t *testing.T) {
	for _, v := range []Verdict{Allow, Ask, Deny} {
		text, err := v.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		if string(text) != v.String() {
			t.Errorf("MarshalText(%d) = %q, want %q", v, text, v.String())
		}
		var back Verdict
		if err := back.UnmarshalText(text); err != nil || back != v {
			t.Errorf("UnmarshalText(%q) = %v, %v", text, back, err)
		}
	}
	if got := []string{Allow.String(), Ask.String(), Deny.String()}; !reflect.DeepEqual(got, []string{"allow", "ask", "deny"}) {
		t.Errorf("verdict names = %v", got)
	}
	if _, err := Verdict(7).MarshalText(); err == nil {
		t.Error("MarshalText(7) succeeded")
	}
	if Verdict(7).String() != "Verdict(7)" {
		t.Errorf("String(7) = %q", Verdict(7).String())
	}
	var v Verdict
	if err := v.UnmarshalText([]byte("Allow")); err == nil {
		t.Error(`UnmarshalText("Allow") succeeded; names are lower-case`)
	}

	d := Decision{Verdict: Deny, Rule: "denied-command", Reason: "Command 'rm' is denied.", Word: "rm", Pos: Pos{Offset: 4, Line: 1, Col: 5}}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"verdict":"deny","rule":"denied-command","reason":"Command 'rm' is denied.","word":"rm","pos":{"offset":4,"line":1,"col":5}}`
	if string(b) != want {
		t.Errorf("json:\n got %s\nwant %s", b, want)
	}
	var back Decision
	if err := json.Unmarshal(b, &back); err != nil || back != d {
		t.Errorf("round trip = %+v, %v", back, err)
	}
}

func TestPyRepr(t *testing.T) {
	// Expected values come from Python 3's repr().
	tests := []struct{ in, want string }{
		{"vim file.txt", `'vim file.txt'`},
		{"it's", `"it's"`},
		{`say "hi"`, `'say "hi"'`},
		{`both ' and "`, `'both \' and "'`},
		{`back\slash`, `'back\\slash'`},
		{"tab\there", `'tab\there'`},
		{"nl\nx", `'nl\nx'`},
		{"\r", `'\r'`},
		{"\x00\x01\x7f", `'\x00\x01\x7f'`},
		{"é ü 日本", `'é ü 日本'`},
		{"\u00a0nbsp", `'\xa0nbsp'`},
		{"\u200bzw", `'\u200bzw'`},
		{"emoji 😀", `'emoji 😀'`},
		{"\U000e0001", `'\U000e0001'`},
		{"\x1b[0m", `'\x1b[0m'`},
		{"", `''`},
		{`a\'b`, `"a\\'b"`},
		{"bad \xff byte", `'bad \udcff byte'`},
	}
	for _, tt := range tests {
		if got := pyRepr(tt.in); got != tt.want {
			t.Errorf("pyRepr(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func check(t *testing.T, r Rules, cmd string) Decision {
	t.Helper()
	p, err := New(r)
	if err != nil {
		t.Fatal(err)
	}
	return p.Check(cmd)
}

// TestDecisions pins down reasons, words and positions.
func TestDecisions(t *testing.T) {
	tests := []struct {
		rules Rules
		cmd   string
		want  Decision
	}{
		{Rules{}, "ls -la", Decision{Verdict: Allow, Rule: "default"}},
		{Rules{}, "ok; rm -rf x", Decision{Deny, "denied-command", "Command 'rm' is denied.", "rm", Pos{4, 1, 5}}},
		{Rules{}, "ls\n  /bin/rm x", Decision{Deny, "denied-command", "Command '/bin/rm' is denied.", "/bin/rm", Pos{5, 2, 3}}},
		{Rules{}, `\rm x`, Decision{Deny, "denied-command", "Command 'rm' is denied.", `\rm`, Pos{0, 1, 1}}},
		{Rules{}, "bash -c 'ls; rm x'", Decision{Deny, "denied-command", "Command 'rm' is denied.", "rm", Pos{13, 1, 14}}},
		{Rules{}, `eval "r""m" x`, Decision{Deny, "denied-command", "Command 'rm' is denied.", "rm", Pos{5, 1, 6}}},
		{Rules{}, "true && vim file.txt", Decision{Deny, "interactive", "Interactive commands are not allowed. Command: 'true && vim file.txt'", "vim", Pos{8, 1, 9}}},
		{Rules{}, "vim it's.txt", Decision{Deny, "parse-error", "Cannot parse the command: 1:7: reached EOF without closing quote `'`. Fix the shell syntax (quotes, brackets, here-document terminators) and try again.", "", Pos{6, 1, 7}}},
		{Rules{}, `vim "it's.txt"`, Decision{Deny, "interactive", `Interactive commands are not allowed. Command: 'vim "it\'s.txt"'`, "vim", Pos{0, 1, 1}}},
		{Rules{}, `echo "hi`, Decision{Deny, "parse-error", "Cannot parse the command: 1:6: reached EOF without closing quote `\"`. Fix the shell syntax (quotes, brackets, here-document terminators) and try again.", "", Pos{5, 1, 6}}},
		{Rules{AllowedCommands: []string{"ls"}}, "ls | cat x", Decision{Deny, "allowed-commands", "Command 'cat' is not in the allowed list.", "cat", Pos{5, 1, 6}}},
		{Rules{DeniedOperators: []string{">"}}, `echo "a > b" > f`, Decision{Deny, "operator", "Shell operator '>' is not allowed.", ">", Pos{13, 1, 14}}},
		{Rules{DeniedOperators: []string{">"}}, `echo x >> f`, Decision{Deny, "operator", "Shell operator '>>' is not allowed.", ">>", Pos{7, 1, 8}}},
		{Rules{DeniedOperators: []string{"$(...)"}}, "echo `date`", Decision{Deny, "operator", "Shell operator '`' is not allowed.", "`", Pos{5, 1, 6}}},
		{Rules{DeniedOperators: []string{";"}}, "ls\nls", Decision{Deny, "operator", "Shell operator ';' is not allowed.", ";", Pos{3, 2, 1}}},
		{Rules{}, "$CMD x", Decision{Ask, "dynamic-command", "The command name '$CMD' is only known at run time, so the policy cannot check which program runs. Write the program's name literally.", "$CMD", Pos{0, 1, 1}}},
		{Rules{}, "ls \x00", Decision{Deny, "invalid-input", "The command contains a NUL byte, which cannot be passed to a shell. Remove it and try again.", "", Pos{3, 1, 4}}},
		{Rules{Approval: true, DeniedCommands: []string{}}, "git status && git add -A", Decision{Deny, "approval-destructive", "Bulk staging can commit files you did not mean to, such as secrets or build output. Stage the files you changed by name ('git add path/to/file'), then commit.", "-A", Pos{22, 1, 23}}},
		{Rules{Approval: true}, "make", Decision{Ask, "approval-default", "Command 'make' is not on the list of read-only commands, so it needs the user's approval.", "make", Pos{0, 1, 1}}},
		{Rules{}, "", Decision{Verdict: Allow, Rule: "default"}},
	}
	for _, tt := range tests {
		got := check(t, tt.rules, tt.cmd)
		if got != tt.want {
			t.Errorf("Check(%q):\n got %#v\nwant %#v", tt.cmd, got, tt.want)
		}
	}
}

// TestFirstDenialWins checks that the reported denial is the first in
// source order, even when the walk finds a later one first.
func TestFirstDenialWins(t *testing.T) {
	d := check(t, Rules{DeniedOperators: []string{">"}}, "rm x > $(reboot)")
	if d.Word != "rm" {
		t.Errorf("got %s, want the denial of rm", d)
	}
	d = check(t, Rules{}, "cat <<EOF; ls\n$(reboot)\nEOF\nrm x")
	if d.Word != "reboot" || d.Pos.Line != 2 {
		t.Errorf("got %s (%q), want reboot on line 2", d, d.Word)
	}
	d = check(t, Rules{}, "$X; rm x")
	if d.Verdict != Deny {
		t.Errorf("a denial must beat an earlier ask: %s", d)
	}
}

func TestCustom(t *testing.T) {
	var mu sync.Mutex
	var seen []Command
	r := Rules{Custom: func(c Command) (Decision, bool) {
		mu.Lock()
		seen = append(seen, c)
		mu.Unlock()
		return Decision{}, false
	}}
	d := check(t, r, `FOO=1 sudo -n env BAR=2 /usr/bin/grep -r "$PAT" *.go > out.txt < in.txt`)
	if !d.Allowed() {
		t.Fatalf("got %s", d)
	}
	want := []Command{
		{Name: "sudo", Path: "sudo", Args: []string{"-n", "env", "BAR=2", "/usr/bin/grep", "-r", `"$PAT"`, "*.go"}, DynamicArgs: []bool{false, false, false, false, false, true, true},
			Env: []string{"FOO=1"}, Text: `sudo -n env BAR=2 /usr/bin/grep -r "$PAT" *.go`, Pos: Pos{6, 1, 7}, StdinRedirected: true, WritesFiles: true},
		{Name: "env", Path: "env", Args: []string{"BAR=2", "/usr/bin/grep", "-r", `"$PAT"`, "*.go"}, DynamicArgs: []bool{false, false, false, true, true},
			Text: `env BAR=2 /usr/bin/grep -r "$PAT" *.go`, Pos: Pos{14, 1, 15}, Wrappers: []string{"sudo"}, StdinRedirected: true, WritesFiles: true},
		{Name: "grep", Path: "/usr/bin/grep", Args: []string{"-r", `"$PAT"`, "*.go"}, DynamicArgs: []bool{false, true, true},
			Env: []string{"BAR=2"}, Text: `grep -r "$PAT" *.go`, Pos: Pos{24, 1, 25}, Wrappers: []string{"sudo", "env"}, StdinRedirected: true, WritesFiles: true},
	}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("commands given to Custom:\n got %#v\nwant %#v", seen, want)
	}

	seen = nil
	check(t, r, `echo 'ls' | bash; $CMD`)
	if len(seen) != 4 || !seen[1].StdinPipe || seen[2].Wrappers[0] != "bash <stdin>" || !seen[3].Dynamic || seen[3].Name != "" {
		t.Errorf("commands given to Custom: %#v", seen)
	}

	// Custom cannot overrule a denial, may turn an ask into an allow, and
	// gets default Rule and Pos.
	never := Rules{Custom: func(c Command) (Decision, bool) { return Decision{Verdict: Allow}, true }}
	if d := check(t, never, "rm x"); d.Verdict != Deny {
		t.Errorf("Custom overruled a denial: %s", d)
	}
	if d := check(t, never, "$CMD"); d.Verdict != Allow || d.Rule != "custom" {
		t.Errorf("Custom could not allow a dynamic command: %s", d)
	}
	deny := Rules{Custom: func(c Command) (Decision, bool) {
		return Decision{Verdict: Deny, Reason: "no " + c.Name}, c.Name == "curl"
	}}
	if d := check(t, deny, "ls && curl x"); d != (Decision{Verdict: Deny, Rule: "custom", Reason: "no curl", Pos: Pos{6, 1, 7}}) {
		t.Errorf("Custom denial: %#v", d)
	}
}

func TestNilPolicy(t *testing.T) {
	var p *Policy
	if d := p.Check("rm -rf x"); d.Rule != "denied-command" {
		t.Errorf("nil policy: %s", d)
	}
	if d := p.Check("ls"); !d.Allowed() {
		t.Errorf("nil policy: %s", d)
	}
}

func TestConcurrentChecks(t *testing.T) {
	p, err := New(Rules{Approval: true, DenyPatterns: []string{"^curl"}})
	if err != nil {
		t.Fatal(err)
	}
	cmds := []string{"ls | wc -l", "rm -rf /", "git add -A", "make", "curl x", "echo $(date)"}
	want := make([]Decision, len(cmds))
	for i, c := range cmds {
		want[i] = p.Check(c)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 200; n++ {
				i := n % len(cmds)
				if d := p.Check(cmds[i]); d != want[i] {
					t.Errorf("concurrent Check(%q) = %s, want %s", cmds[i], d, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestOperatorKeysAreDocumented(t *testing.T) {
	doc := packageDoc(t)
	for _, k := range operatorList() {
		if !strings.Contains(doc, fmt.Sprintf("%q", k)) && !strings.Contains(doc, "`"+k+"`") {
			t.Errorf("operator %q is not in the package documentation", k)
		}
	}
	for _, rule := range []string{ruleInvalidInput, ruleTooLong, ruleTooDeep, ruleParseError, ruleDeniedCommand, ruleAllowedCmds,
		ruleOperator, ruleInteractive, ruleDynamic, ruleGitConfig, ruleDenyPattern, ruleAllowPattern, ruleCustom, ruleReadOnly,
		ruleDestructive, ruleApprovalAsk, ruleDefault} {
		if !strings.Contains(doc, rule) {
			t.Errorf("rule %q is not in the package documentation", rule)
		}
	}
}
