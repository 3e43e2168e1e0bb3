// Package bench measures shellcap against the raw limits of the machine it
// runs on, in the same run, so that figures from noisy shared machines stay
// comparable: Run("true") against spawning bash directly, a sandboxed
// Run("true") against an unsandboxed one, and reading a gigabyte of output
// against a plain pipe read.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/sandbox"
)

// Row is one measured comparison.
type Row struct {
	Name   string  // what was measured
	Ours   float64 // shellcap's figure
	Raw    float64 // the raw limit's figure, measured in the same run
	Unit   string  // unit of Ours and Raw
	Ratio  float64 // Ours / Raw
	Target string  // the goal, e.g. "<= 1.05"
}

// String renders the row for a table.
func (r Row) String() string {
	return fmt.Sprintf("| %s | %.3g %s | %.3g %s | %.3f | %s |", r.Name, r.Ours, r.Unit, r.Raw, r.Unit, r.Ratio, r.Target)
}

// RunTrue times n calls of Run("true") against two raw limits spawned
// directly with os/exec, all interleaved so that they see the same machine
// load: `bash -c true` with its output captured into buffers (what a
// program that wants the output does), and with no output pipes at all (the
// floor). It reports the median per-call time of each, one row per
// baseline.
func RunTrue(ctx context.Context, workspace string, n int) ([]Row, error) {
	sh, err := shellcap.New(shellcap.Options{Workspace: workspace})
	if err != nil {
		return nil, err
	}
	defer sh.Close()
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, err
	}
	ours := func() error {
		res, err := sh.Run(ctx, shellcap.Request{Command: "true"})
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("Run(true): %s", res.Text())
		}
		return err
	}
	captured := func() error {
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, bash, "-c", "true")
		cmd.Dir, cmd.Stdout, cmd.Stderr = workspace, &stdout, &stderr
		return cmd.Run()
	}
	bare := func() error {
		cmd := exec.CommandContext(ctx, bash, "-c", "true")
		cmd.Dir = workspace
		return cmd.Run()
	}
	times, err := interleave(n, ours, captured, bare)
	if err != nil {
		return nil, err
	}
	o, c, b := median(times[0]), median(times[1]), median(times[2])
	return []Row{
		{Name: "Run(\"true\") vs bash -c true with output captured (median per call)", Ours: ms(o), Raw: ms(c), Unit: "ms", Ratio: float64(o) / float64(c), Target: "<= 1.05"},
		{Name: "Run(\"true\") vs bash -c true without output pipes (median per call)", Ours: ms(o), Raw: ms(b), Unit: "ms", Ratio: float64(o) / float64(b), Target: "(floor)"},
	}, nil
}

// SandboxedRunTrue times n calls of Run("true") on a Shell whose commands
// run in the sandbox (workspace-write, no network, through the Shell's
// launcher) against the same calls on a Shell without one, interleaved.
// It fails when this machine cannot enforce the sandbox.
func SandboxedRunTrue(ctx context.Context, workspace string, n int) (Row, error) {
	plain, err := shellcap.New(shellcap.Options{Workspace: workspace})
	if err != nil {
		return Row{}, err
	}
	defer plain.Close()
	boxed, err := shellcap.New(shellcap.Options{Workspace: workspace, Sandbox: sandbox.Confiner(sandbox.Config{})})
	if err != nil {
		return Row{}, err
	}
	defer boxed.Close()
	run := func(sh *shellcap.Shell) func() error {
		return func() error {
			res, err := sh.Run(ctx, shellcap.Request{Command: "true"})
			if err == nil && res.ExitCode != 0 {
				err = fmt.Errorf("Run(true): %s", res.Text())
			}
			return err
		}
	}
	times, err := interleave(n, run(boxed), run(plain))
	if err != nil {
		return Row{}, err
	}
	b, p := median(times[0]), median(times[1])
	return Row{Name: "sandboxed Run(\"true\") vs the same Shell without sandbox (median per call)", Ours: ms(b), Raw: ms(p), Unit: "ms", Ratio: float64(b) / float64(p), Target: "<= 1.3"}, nil
}

// interleave calls each fn n times, rotating which goes first so that none
// always runs on a warm cache, and returns the times of each.
func interleave(n int, fns ...func() error) ([][]time.Duration, error) {
	times := make([][]time.Duration, len(fns))
	for i := range n {
		for j := range fns {
			k := (i + j) % len(fns)
			start := time.Now()
			if err := fns[k](); err != nil {
				return nil, err
			}
			times[k] = append(times[k], time.Since(start))
		}
	}
	return times, nil
}

// LargeOutput has a command print size bytes and compares shellcap's
// throughput and resident-memory growth with a plain read of the same
// command's pipe into io.Discard.
func LargeOutput(ctx context.Context, workspace string, size int64) ([]Row, error) {
	command := "head -c " + strconv.FormatInt(size, 10) + " /dev/zero"

	rawDur, rawGrowth, err := measure(func() error {
		cmd := exec.CommandContext(ctx, "bash", "-c", command)
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		buf := make([]byte, 32<<10)
		if _, err := io.CopyBuffer(io.Discard, out, buf); err != nil {
			return err
		}
		return cmd.Wait()
	})
	if err != nil {
		return nil, err
	}

	sh, err := shellcap.New(shellcap.Options{Workspace: workspace, MaxOutputBytes: -1, DisableOutputFiles: true, MaxTimeout: time.Hour, DefaultTimeout: time.Hour})
	if err != nil {
		return nil, err
	}
	defer sh.Close()
	var res *shellcap.Result
	ourDur, ourGrowth, err := measure(func() error {
		var err error
		res, err = sh.Run(ctx, shellcap.Request{Command: command})
		return err
	})
	if err != nil {
		return nil, err
	}
	if res.StdoutBytes != size {
		return nil, fmt.Errorf("read %d bytes, want %d", res.StdoutBytes, size)
	}
	mib := float64(size) / (1 << 20)
	ourRate, rawRate := mib/ourDur.Seconds(), mib/rawDur.Seconds()
	return []Row{
		{Name: fmt.Sprintf("throughput, %s of output", human(size)), Ours: ourRate, Raw: rawRate, Unit: "MiB/s", Ratio: ourRate / rawRate, Target: ">= 0.80"},
		{Name: fmt.Sprintf("peak RSS growth, %s of output (ratio: share of the 16 MiB budget)", human(size)), Ours: float64(ourGrowth) / (1 << 20), Raw: float64(rawGrowth) / (1 << 20), Unit: "MiB", Ratio: float64(ourGrowth) / (16 << 20), Target: "< 1"},
	}, nil
}

// measure runs f and reports its duration and how far the process's peak
// resident set grew above its resident set at the start.
func measure(f func() error) (time.Duration, int64, error) {
	resetPeakRSS()
	before := statusKiB("VmRSS")
	start := time.Now()
	err := f()
	d := time.Since(start)
	return d, max(0, statusKiB("VmHWM")-before) * 1024, err
}

// resetPeakRSS resets VmHWM to the current RSS (Linux 4.0+).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// statusKiB reads a "Name:   N kB" line of /proc/self/status.
func statusKiB(name string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name+":"); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func human(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n >= 1<<20:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// TypicalPipeline is a representative 100-character agent command.
const TypicalPipeline = `cd src && grep -rn "TODO" --include='*.go' . | sort | uniq -c | sort -rn | head -20 > /tmp/todo.txt`

// PolicyCheck compares the policy check of TypicalPipeline with a
// Run("true") measured in the same run.
func PolicyCheck(ctx context.Context, workspace string, runs int) (Row, error) {
	sh, err := shellcap.New(shellcap.Options{Workspace: workspace})
	if err != nil {
		return Row{}, err
	}
	defer sh.Close()
	p, err := policy.New(policy.Rules{})
	if err != nil {
		return Row{}, err
	}
	var runTimes, checkTimes []time.Duration
	for range runs {
		start := time.Now()
		if _, err := sh.Run(ctx, shellcap.Request{Command: "true"}); err != nil {
			return Row{}, err
		}
		runTimes = append(runTimes, time.Since(start))
		const checks = 200
		start = time.Now()
		for range checks {
			if d := p.Check(TypicalPipeline); !d.Allowed() {
				return Row{}, fmt.Errorf("policy refused the typical pipeline: %s", d.Reason)
			}
		}
		checkTimes = append(checkTimes, time.Since(start)/checks)
	}
	c, r := median(checkTimes), median(runTimes)
	return Row{Name: "policy check of a 100-char pipeline vs Run(\"true\")", Ours: float64(c) / float64(time.Microsecond), Raw: float64(r) / float64(time.Microsecond), Unit: "µs", Ratio: float64(c) / float64(r), Target: "<= 0.02"}, nil
}
