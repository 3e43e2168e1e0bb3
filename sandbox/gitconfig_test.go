package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitConfigCorpus are configuration files written to make a parser that
// is not git's read them differently from git: comments after values,
// quoting, escapes, continuations, case, subsections, repeated keys.
var gitConfigCorpus = []string{
	"[core]\n\thooksPath = evil\n",
	"[core]\n\thooksPath = evil ; a comment\n",
	"[core]\n\thooksPath = evil# a comment\n",
	"[core]\n\thooksPath = \"ev;il\" # comment\n",
	"[core]\n\thooksPath = \"e\"v\"i l\"\n",
	"[core]\n\thooksPath = a\\\nb\n",
	"[core]\n\thooksPath = a\\tb\\\\c\\\"d\n",
	"[core]\n\thooksPath =    spaced   out   \n",
	"[CORE]\n\tHOOKSPATH = upper\n",
	"[core] hooksPath = same-line\n",
	"[core]\n\thooksPath = first\n\thooksPath = second\n",
	"[core]\nhooksPath=nospace\n[core]\nhooksPath=again\n",
	"[include]\n\tpath = inc1\n\tpath = \"inc 2\"\n",
	"[includeIf \"gitdir:~/src/\"]\n\tpath = cond\n",
	"[includeIf \"gitdir/i:C:\\\\X\\\"y\"]\n\tpath = cond2\n",
	"[core.SubSection]\n\tx = legacy\n",
	"[remote \"Origin\"]\n\turl = u\n",
	"[core]\n\tbare\n\tfilemode = true\n",
	"# top comment\n; another\n[core]\n\t; hooksPath = commented\n\tx = 1\n",
	"\xef\xbb\xbf[core]\n\thooksPath = bom\n",
	"[core]\r\n\thooksPath = crlf\r\n",
	"[core]\n\thooksPath = \"\" \n",
	"[a \"b\\\\c\"]\n\tk = v\n",
	"[core]\n\thooksPath = tab\tinside\n",
	"[alias]\n\tx = \"!sh -c 'echo ; hi'\"\n",
	"[core]\n\tfsmonitor = ./tools/fsmon.sh --flag\n",
}

// TestGitConfigParserAgreesWithGit: for every file of the corpus, the
// variables parseGitConfig reads are exactly those `git config --list`
// prints, in order.
func TestGitConfigParserAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is needed as the oracle")
		}
		t.Skip("no git")
	}
	dir := t.TempDir()
	for i, text := range gitConfigCorpus {
		path := filepath.Join(dir, "c")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("git", "config", "--file", path, "--null", "--list").Output()
		got, perr := parseGitConfig(text)
		if err != nil {
			if perr == nil {
				t.Errorf("%d %q: git refuses it (%v), the parser does not", i, text, err)
			}
			continue
		}
		if perr != nil {
			t.Errorf("%d %q: git reads it, the parser says %v", i, text, perr)
			continue
		}
		var want []gitVar
		for _, rec := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			if rec == "" {
				continue
			}
			k, v, _ := strings.Cut(rec, "\n")
			want = append(want, gitVar{k, v})
		}
		if len(got) != len(want) {
			t.Errorf("%d %q: parser %q, git %q", i, text, got, want)
			continue
		}
		for j := range got {
			if got[j] != want[j] {
				t.Errorf("%d %q: variable %d: parser %q, git %q", i, text, j, got[j], want[j])
			}
		}
	}
}

// TestGitConfigRejects: input git refuses is refused.
func TestGitConfigRejects(t *testing.T) {
	for _, text := range []string{
		"[core\n", "[core \"x]\n", "[core]\n\thooksPath = \"open\n", "[core]\n\t=x\n",
		"k = v\n", "[core]\n\tbad\\q = 1\n", "[core]\n\tx = a\\q\n",
	} {
		if _, err := parseGitConfig(text); err == nil {
			t.Errorf("%q: accepted", text)
		}
	}
}
