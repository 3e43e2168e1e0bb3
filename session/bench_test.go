//go:build linux

package session_test

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/session"
)

// BenchmarkSessionRoundTrip compares a session round trip of `ls -la`
// (a process started, output captured) with a raw bash reading commands
// from a pipe in the same directory, in the same run and interleaved (the
// order alternates), so that machine load affects both alike. It reports the median time of each and their ratio (session /
// raw): "ratio" for the session protocol alone, "ratio-policy" for Run
// with the Shell's policy check in front. Medians, because a shared
// machine's stalls hit single calls and would dominate means.
func BenchmarkSessionRoundTrip(b *testing.B) {
	sh := newShell(b, shellcap.Options{})
	s, err := session.New(context.Background(), sh, session.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	raw := startRawBash(b, sh)
	ctx := context.Background()
	var rawT, sessT, checkedT []time.Duration
	steps := []func(){
		func() {
			t0 := time.Now()
			raw.roundTrip(b)
			rawT = append(rawT, time.Since(t0))
		},
		func() {
			t0 := time.Now()
			res, err := s.RunUnchecked(ctx, session.Request{Command: benchCommand})
			sessT = append(sessT, time.Since(t0))
			if err != nil || res.ExitCode != 0 {
				b.Fatalf("session: %v %v", err, res)
			}
		},
		func() {
			t0 := time.Now()
			res, err := s.Run(ctx, session.Request{Command: benchCommand})
			checkedT = append(checkedT, time.Since(t0))
			if err != nil || res.ExitCode != 0 {
				b.Fatalf("session with policy: %v %v", err, res)
			}
		},
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		for j := range steps {
			steps[(i+j)%len(steps)]()
		}
	}
	b.StopTimer()
	r, ss, c := median(rawT), median(sessT), median(checkedT)
	b.ReportMetric(float64(r.Nanoseconds()), "raw-ns/op")
	b.ReportMetric(float64(ss.Nanoseconds()), "session-ns/op")
	b.ReportMetric(float64(c.Nanoseconds()), "session-policy-ns/op")
	b.ReportMetric(float64(ss)/float64(r), "ratio")
	b.ReportMetric(float64(c)/float64(r), "ratio-policy")
}

// rawBash is a plain non-interactive bash reading commands from a pipe,
// with the session's environment and directory (so that both run the same
// ls the same way): the floor any persistent shell protocol is measured
// against.
type rawBash struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRawBash(b *testing.B, sh *shellcap.Shell) *rawBash {
	prepared, err := core.Of(sh).Cmd(":", "", nil)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("bash", "--norc", "--noprofile")
	cmd.Dir, cmd.Env = prepared.Dir, prepared.Env
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	r := &rawBash{cmd: cmd, in: in, out: bufio.NewReader(out)}
	b.Cleanup(func() {
		r.in.Close()
		_ = r.cmd.Wait()
	})
	return r
}

// benchCommand is what both sides run.
const benchCommand = "ls -la"

// roundTrip runs benchCommand and reads its output and exit status back,
// the status after a marker line.
func (r *rawBash) roundTrip(b *testing.B) {
	if _, err := io.WriteString(r.in, benchCommand+"; echo \"\x01$?\"\n"); err != nil {
		b.Fatal(err)
	}
	for {
		line, err := r.out.ReadString('\n')
		if err != nil {
			b.Fatalf("raw bash: %v", err)
		}
		if strings.HasPrefix(line, "\x01") {
			if line != "\x010\n" {
				b.Fatalf("raw bash: status %q", line)
			}
			return
		}
	}
}
