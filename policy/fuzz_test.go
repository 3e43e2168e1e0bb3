package policy

import (
	"os"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

func packageDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var fuzzPolicies = func() []*Policy {
	var ps []*Policy
	for _, r := range []Rules{
		{},
		{AllowedCommands: []string{"ls", "git", "echo", "bash"}},
		{DeniedOperators: []string{">", "|", ";", "$(...)", "<<"}},
		{Approval: true, DeniedCommands: []string{}, DenyPatterns: []string{`^curl`}, AllowPatterns: []string{`.`}},
	} {
		ps = append(ps, mustNew(r))
	}
	return ps
}()

// FuzzCheck: Check never panics, positions stay inside the command, and a
// command that does not parse is never allowed or asked about.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"ls -la", "ok; rm -rf x", "bash -c 'rm x'", "echo \"unterminated", "cat <<EOF\n$(rm x)\nEOF\n",
		"f(){ rm x; }; f", "$(echo rm) x", "x | sh", "find . -exec rm {} \\;", "git -c alias.x='!rm' x",
		"eval \"r\"\"m\"", "echo ${x:-$(rm)}", "((1+(2)))", "case x in a) ls;; esac", "rm -rf / #'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		for _, p := range fuzzPolicies {
			d := p.Check(cmd)
			if d.Verdict < Allow || d.Verdict > Deny || d.Rule == "" {
				t.Fatalf("Check(%q) = %#v", cmd, d)
			}
			if d.Pos.Offset < 0 || d.Pos.Offset > len(cmd) || (d.Verdict != Allow && d.Pos.Line < 1) {
				t.Fatalf("Check(%q): position %+v outside the command", cmd, d.Pos)
			}
			if d.Verdict != Allow && d.Reason == "" {
				t.Fatalf("Check(%q) = %s without a reason", cmd, d)
			}
			if d.Verdict == Deny {
				continue
			}
			// Not denied: the command was parsed, so it must parse. (The
			// pre-scan has bounded its nesting, so parsing it here is safe.)
			if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), ""); err != nil {
				t.Fatalf("Check(%q) = %s, but it does not parse: %v", cmd, d, err)
			}
		}
	})
}

// FuzzNesting checks the nesting pre-scan against the parser: on a command
// that parses, the scan must not report much less nesting than the syntax
// tree has, or a crafted command could get past the guard and exhaust the
// stack in the parser.
func FuzzNesting(f *testing.F) {
	for _, s := range []string{
		"echo $(a $(b $(c)))", "( ( (x) ) )", "echo \"$(echo \")\" $(x))\"", "case x in a) $(case y in b) z;; esac);; esac",
		"cat <<E\n)\nE\n$(x)", "echo $(( (1 + (2)) ))", "a[a[a[1]]]=1", "{ { x; }; }", "x=$(cat <<'E'\n)))\nE\n)",
		"echo ${a:-${b:-${c}}}", "echo `a`", "f() { g() { (x); }; }", "echo $[1] $[a[2]]", "(( a[')'] + $(( '(' )) ))",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		scan, _ := nestingDepth(code, 1000)
		if scan > 1000 {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(code), "")
		if err != nil {
			return
		}
		tree := treeNesting(file)
		if tree > 2*scan+8 {
			t.Fatalf("nesting of %q: scan %d, syntax tree %d", code, scan, tree)
		}
	})
}

// treeNesting measures the bracket nesting of a syntax tree, counting the
// nodes the parser recurses into.
func treeNesting(n syntax.Node) int {
	depth, deepest := 0, 0
	var stack []bool
	syntax.Walk(n, func(n syntax.Node) bool {
		if n == nil {
			if stack[len(stack)-1] {
				depth--
			}
			stack = stack[:len(stack)-1]
			return true
		}
		nests := false
		switch x := n.(type) {
		case *syntax.Subshell, *syntax.Block, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.DblQuoted,
			*syntax.ArithmExp, *syntax.ArithmCmd, *syntax.ParenArithm, *syntax.CaseClause, *syntax.ParenTest:
			nests = true
		case *syntax.ParamExp:
			nests = !x.Short
		}
		if nests {
			depth++
			deepest = max(deepest, depth)
		}
		stack = append(stack, nests)
		return true
	})
	return deepest
}

func TestNestingLimits(t *testing.T) {
	deep := func(open, middle, closing string, n int) string {
		return strings.Repeat(open, n) + middle + strings.Repeat(closing, n)
	}
	for _, tt := range []struct {
		name, cmd string
		rule      string
	}{
		{"cmd subst", deep("$(", "x", ")", 300_000), "too-deep"},
		{"subshells", deep("(", "x", ")", 300_000), "too-deep"},
		{"arithmetic", "echo $((" + deep("(", "1", ")", 400_000) + "))", "too-deep"},
		{"array index", "echo $((" + deep("a[", "1", "]", 300_000) + "))", "too-deep"},
		{"param exp", "echo " + deep("${x:-", "y", "}", 150_000), "too-deep"},
		{"double quotes", "echo " + deep(`"$(`, "x", `)"`, 100_000), "too-deep"},
		{"braces", deep("{ ", "x", "; }", 200_000), "too-deep"},
		{"bash -c", "bash -c " + strings.Repeat("'bash -c ", 1) + "x'", "default"},
		{"if", deep("if true; then ", "ls", "; fi", 50_000), "too-deep"},
		{"unary arithmetic", "echo $((" + strings.Repeat("!", 500_000) + "1))", "too-deep"},
		{"eval chain", strings.Repeat("eval ", 200_000) + "ls", "too-deep"},
		{"quoted parens", "echo '" + strings.Repeat("(", 500_000) + "'", "default"},
		{"heredoc parens", "cat <<'E'\n" + strings.Repeat("((((\n", 100_000) + "E", "default"},
		{"at the limit", deep("$(", "x", ")", maxDepth/4), "dynamic-command"},
		{"long flat", strings.Repeat("ls && ", 150_000) + "ls", "default"},
		{"dollar brackets", strings.Repeat("echo $[1] $[a[2]]; ", 20_000), "default"},
		{"quotes in arithmetic", strings.Repeat("(( a[')'] )); ", 20_000), "default"},
		{"long pipeline", strings.Repeat("ls | ", 150_000) + "ls", "default"},
		{"too long", strings.Repeat("x", maxInputBytes+1), "too-long"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			d := defaultPolicy.Check(tt.cmd)
			if d.Rule != tt.rule {
				t.Errorf("got %s, want rule %s", d, tt.rule)
			}
			if testing.Verbose() {
				t.Logf("%d bytes in %v", len(tt.cmd), time.Since(start))
			}
		})
	}
}

// TestLinearTime compares the cost per byte of checking a 10 KiB command
// and a 1 MiB one made of the same everyday material. A quadratic step
// would make the large one hundreds of times slower per byte; the ratio
// allowed here is generous so that the test does not flake on a busy
// machine. No wall-clock threshold is used.
func TestLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	unit := `cd src && grep -rn "TODO" --include='*.go' . | sort | uniq -c > /tmp/todo.txt; ` +
		"for f in $(ls *.go); do echo \"$f\"; done; x=${y:-$(date)}; bash -c 'git status'; " +
		"cat <<'EOF' > notes.txt\n(text) with 'quotes' and $(not run)\nEOF\n" +
		"if [[ -f go.mod ]]; then go test ./... 2>&1 | tail; fi; eval \"echo hi\"\n" +
		"echo \"${x:-'$(date)'}\"; a['k']=1; (( n = a['k'] + 1 )); printf -v 'v[1]' %s x; [[ $n -eq 2 ]]\n" +
		"exec 3<<EOF\necho ${y:-'z'}\nEOF\nbash /dev/fd/3; bash -c 'source /dev/stdin' <<<'ls'; ls \\\n  -la # done\n"
	build := func(size int) string {
		return strings.Repeat(unit, size/len(unit))
	}
	small, large := build(10<<10), build(1<<20-len(unit))
	p := mustNew(Rules{Approval: true, DenyPatterns: []string{`^curl`}, DeniedOperators: []string{"&>"}})
	perByte := func(cmd string, rounds int) float64 {
		best := time.Duration(1 << 62)
		for r := 0; r < rounds; r++ {
			start := time.Now()
			if d := p.Check(cmd); d.Verdict == Deny {
				t.Fatalf("unexpected denial: %s", d)
			}
			best = min(best, time.Since(start))
		}
		return float64(best) / float64(len(cmd))
	}
	perByte(small, 3) // warm up
	s, l := perByte(small, 20), perByte(large, 3)
	ratio := l / s
	t.Logf("per byte: %.1f ns at %d bytes, %.1f ns at %d bytes (ratio %.2f)", s, len(small), l, len(large), ratio)
	if ratio > 8 {
		t.Errorf("checking 1 MiB costs %.1f times more per byte than 10 KiB: not linear", ratio)
	}
}

// TestLinearConstructs checks, for each construct the walker re-reads or
// follows (quotes bash reads as text, arithmetic strings, descriptors,
// subscripts, comments), that a command ten times larger costs about as
// much more as plain commands ten times larger do, measured in the same
// run as ratios of the best of several runs. A quadratic step would cost
// ten times more again.
func TestLinearConstructs(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	cost := func(cmd string) time.Duration {
		best := time.Duration(1 << 62)
		for range 7 {
			start := time.Now()
			defaultPolicy.Check(cmd)
			best = min(best, time.Since(start))
		}
		return best
	}
	growth := func(unit string) float64 {
		small := strings.Repeat(unit, 8<<10/len(unit))
		large := strings.Repeat(unit, 80<<10/len(unit))
		cost(small)
		return float64(cost(large)) / float64(cost(small))
	}
	plain := growth("echo hi; ls -la | wc -l; x=1; cat <<EOF\nx\nEOF\n")
	t.Logf("plain commands: ten times the input costs %.1f times more", plain)
	for _, tt := range []struct{ name, unit string }{
		{"quotes as text", `echo "${x:-'$(date) a'}" "${y:+'b'}"; `},
		{"arithmetic", "(( a['$(date)'] + '1' )); echo $[ 'x' ]; [[ 1 -eq 'a[$(true)]' ]]; "},
		{"descriptors", "exec 3<<<'ls' 4<&3 5<&0; bash /dev/fd/3 <&4; source /proc/self/fd/5 <<<'pwd'; "},
		{"many descriptors", "exec 7<<<'ls'; exec 8<&7; exec 9<&8; bash /dev/fd/9; "},
		{"subscripts", "printf -v 'v[$(date)]' %s x; read 'r[1]' <<<x; declare -i n='a[$(true)]'; "},
		{"comments", "ls \\\n  -la # note\n"},
		{"heredocs", "cat <<EOF\n${x:-'$(date)'}\nEOF\n"},
	} {
		g := growth(tt.unit)
		t.Logf("%s: ten times the input costs %.1f times more", tt.name, g)
		if g > 4*plain {
			t.Errorf("%s: ten times the input costs %.1f times more, plain commands %.1f: not linear", tt.name, g, plain)
		}
	}
}
