//go:build linux

package policy

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var fuzzOracle struct {
	once sync.Once
	o    *oracle
	err  error
}

// FuzzOracle checks generated commands against real bash: whatever the
// rules, the analyser never allows, or asks about without saying that
// something is only known at run time, a command under which bash reaches
// a command the analyser did not judge; and it never panics. It is seeded
// from the corpus; the inputs it found interesting are kept in
// testdata/fuzz/FuzzOracle.
func FuzzOracle(f *testing.F) {
	requireOracle(f)
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	var seeds []string
	for _, pattern := range []string{"testdata/bypass*.txt", "testdata/everyday*.txt"} {
		withDecision := strings.Contains(pattern, "bypass")
		for _, c := range readCorpora(f, pattern, withDecision) {
			seeds = append(seeds, c.command)
		}
	}
	for i, s := range seeds {
		// Without -fuzz the seeds only repeat TestOracleCorpus: run a
		// sample of them.
		if fuzzing || i%25 == 0 {
			f.Add(s)
		}
	}
	policies := corpusPolicies(f)
	names := oracleNames(seeds)
	f.Fuzz(func(t *testing.T, cmd string) {
		if strings.IndexByte(cmd, 0) >= 0 || len(cmd) > 4096 {
			t.Skip("cannot be passed to bash, or too long to run")
		}
		type verdict struct {
			rules string
			d     Decision
			j     judged
		}
		var open []verdict
		for name, p := range policies {
			d, j := judgedBy(p, cmd)
			if d.Verdict != Deny && !(d.Verdict == Ask && j.runtime) {
				open = append(open, verdict{name, d, j})
			}
		}
		if len(open) == 0 {
			return
		}
		fuzzOracle.once.Do(func() {
			dir, err := os.MkdirTemp("", "policy-oracle-")
			if err != nil {
				fuzzOracle.err = err
				return
			}
			fuzzOracle.o, fuzzOracle.err = newOracle(filepath.Clean(dir), names)
		})
		if fuzzOracle.err != nil {
			t.Fatalf("bash oracle: %v", fuzzOracle.err)
		}
		res, err := fuzzOracle.o.run(cmd)
		if err != nil {
			t.Fatalf("bash oracle: %v", err)
		}
		if res.Truncated {
			t.Skip("bash ran too many distinct commands to check")
		}
		for _, v := range open {
			if miss := unseen(v.d, v.j, res); len(miss) > 0 {
				t.Fatalf("[%s] %q: the policy says %s, but bash %s", v.rules, cmd, v.d, strings.Join(miss, ", "))
			}
		}
	})
}
