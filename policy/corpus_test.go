package policy

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The corpora in testdata are line-oriented:
//
//	# a comment, and blank lines, are skipped
//	[ruleset]                      selects a rule set from corpusRules below
//	<verdict> <rule> <command>     (bypass.txt) the expected decision
//	<command>                      (everyday.txt) must be allowed by the default rules
//
// A command is the rest of the line, taken literally. A command that needs
// a newline or other control characters is written as a Go string literal
// after an @: @"ok\nrm -rf x". A command of several lines (a here-document)
// is written as <<< alone, the lines, then >>> alone on a line.

// corpusRules are the rule sets the corpus can select.
var corpusRules = map[string]Rules{
	"default":     {},
	"allowlist":   {AllowedCommands: []string{"ls", "cat", "echo", "git", "grep", "cd", "timeout", "true", "bash", "sh", "xargs", "find", "sudo", "env", "wc", "head"}},
	"nodeny":      {DeniedCommands: []string{}},
	"allowpaths":  {AllowedCommands: []string{"ls", "git", "cat", "./scripts/build.sh", "/opt/tool/bin/tool"}},
	"shellenv":    {Environment: map[string]string{"GIT_EDITOR": "true", "EDITOR": "true", "PAGER": "cat"}},
	"operators":   {DeniedOperators: []string{">", ">>", "|", "&&", "||", ";", "&", "$(...)", "<(...)", ">(...)", "<<", "<<<", "<"}},
	"redirects":   {DeniedOperators: []string{">"}},
	"interactive": {AllowInteractive: true},
	"patterns": {
		DenyPatterns:  []string{`^git push\b.*--force`, `^curl\b`, `(^| )--no-verify( |$)`},
		AllowPatterns: []string{`^(git|ls|cat|echo|grep|go|make|curl)( |$)`},
	},
	"denypatterns":  {DenyPatterns: []string{`^git push\b.*--force`, `^npm publish\b`}},
	"emptyallow":    {AllowPatterns: []string{}},
	"approval":      {Approval: true, DeniedCommands: []string{}},
	"approval+deny": {Approval: true},
	"custom": {Custom: func(c Command) (Decision, bool) {
		switch c.Name {
		case "make":
			return Decision{Verdict: Ask, Reason: "make needs a look"}, true
		case "ls":
			return Decision{Verdict: Allow}, true
		case "curl":
			return Decision{Verdict: Deny, Rule: "no-network", Reason: "no network"}, true
		}
		return Decision{}, false
	}},
}

type corpusCase struct {
	file    string
	line    int
	ruleset string
	verdict Verdict
	rule    string
	command string
}

func readCorpus(t testing.TB, file string, withDecision bool) []corpusCase {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []corpusCase
	ruleset := "default"
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			ruleset = line[1 : len(line)-1]
			if _, ok := corpusRules[ruleset]; !ok {
				t.Fatalf("%s:%d: unknown rule set %q", file, n, ruleset)
			}
			continue
		}
		c := corpusCase{file: file, line: n, ruleset: ruleset, command: line}
		if withDecision {
			fields := strings.SplitN(line, " ", 3)
			if len(fields) != 3 {
				t.Fatalf("%s:%d: want <verdict> <rule> <command>", file, n)
			}
			if err := c.verdict.UnmarshalText([]byte(fields[0])); err != nil {
				t.Fatalf("%s:%d: %v", file, n, err)
			}
			c.rule, c.command = fields[1], fields[2]
		}
		if c.command == "<<<" {
			var lines []string
			for {
				if !sc.Scan() {
					t.Fatalf("%s:%d: <<< without >>>", file, c.line)
				}
				n++
				if sc.Text() == ">>>" {
					break
				}
				lines = append(lines, sc.Text())
			}
			c.command = strings.Join(lines, "\n")
		}
		if strings.HasPrefix(c.command, `@"`) {
			s, err := strconv.Unquote(c.command[1:])
			if err != nil {
				t.Fatalf("%s:%d: bad quoted command: %v", file, n, err)
			}
			c.command = s
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func corpusPolicies(t testing.TB) map[string]*Policy {
	t.Helper()
	out := map[string]*Policy{}
	for name, r := range corpusRules {
		p, err := New(r)
		if err != nil {
			t.Fatalf("rule set %s: %v", name, err)
		}
		out[name] = p
	}
	return out
}

// readCorpora reads every file matching pattern, in name order, so each
// class of cases can live in a file of its own.
func readCorpora(t testing.TB, pattern string, withDecision bool) []corpusCase {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus matches %s (%v)", pattern, err)
	}
	var cases []corpusCase
	for _, f := range files {
		cases = append(cases, readCorpus(t, f, withDecision)...)
	}
	return cases
}

func TestBypassCorpus(t *testing.T) {
	policies := corpusPolicies(t)
	cases := readCorpora(t, "testdata/bypass*.txt", true)
	if len(cases) < 150 {
		t.Errorf("bypass corpus has %d cases, want at least 150", len(cases))
	}
	for _, c := range cases {
		d := policies[c.ruleset].Check(c.command)
		if d.Verdict != c.verdict || d.Rule != c.rule {
			t.Errorf("%s:%d [%s] %q:\n\tgot  %s %s (%s) word=%q at %s\n\twant %s %s",
				c.file, c.line, c.ruleset, c.command, d.Verdict, d.Rule, d.Reason, d.Word, d.Pos, c.verdict, c.rule)
		}
		if d.Verdict != Allow && d.Reason == "" {
			t.Errorf("%s:%d: %q: %s without a reason", c.file, c.line, c.command, d.Verdict)
		}
	}
}

func TestEverydayCorpus(t *testing.T) {
	policies := corpusPolicies(t)
	cases := readCorpora(t, "testdata/everyday*.txt", false)
	if len(cases) < 200 {
		t.Errorf("everyday corpus has %d cases, want at least 200", len(cases))
	}
	for _, c := range cases {
		if d := policies[c.ruleset].Check(c.command); !d.Allowed() {
			t.Errorf("%s:%d: false positive: %q: %s", c.file, c.line, c.command, d)
		}
	}
}

// TestPrint is a debugging aid that prints decisions:
//
//	POLICY_RULES=approval POLICY_PRINT='ls | sh' go test -v -run TestPrint ./policy
func TestPrint(t *testing.T) {
	cmds := os.Getenv("POLICY_PRINT")
	if cmds == "" {
		t.Skip("set POLICY_PRINT to commands separated by lines of ---")
	}
	rs := os.Getenv("POLICY_RULES")
	if rs == "" {
		rs = "default"
	}
	p := corpusPolicies(t)[rs]
	for _, cmd := range strings.Split(cmds, "\n---\n") {
		fmt.Printf("%q\n\t%s word=%q\n", cmd, p.Check(cmd), p.Check(cmd).Word)
	}
}
