//go:build linux

package session_test

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/shellcap/shellcap/session"
)

// BenchmarkSessionRoundTrip compares a session round trip of the builtin
// true with a raw bash reading commands from a pipe, in the same run and
// interleaved (the order alternates), so that machine load affects both
// alike. It reports the median time of each and their ratio (session /
// raw): "ratio" for the session protocol alone, "ratio-policy" for Run
// with the Shell's policy check in front. Medians, because a shared
// machine's stalls hit single calls and would dominate means.
func BenchmarkSessionRoundTrip(b *testing.B) {
	s := newSession(b, session.Options{})
	raw := startRawBash(b)
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
			res, err := s.RunUnchecked(ctx, session.Request{Command: "true"})
			sessT = append(sessT, time.Since(t0))
			if err != nil || res.ExitCode != 0 {
				b.Fatalf("session: %v %v", err, res)
			}
		},
		func() {
			t0 := time.Now()
			res, err := s.Run(ctx, session.Request{Command: "true"})
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

// rawBash is a plain non-interactive bash reading commands from a pipe:
// the floor any persistent shell protocol is measured against.
type rawBash struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRawBash(b *testing.B) *rawBash {
	cmd := exec.Command("bash", "--norc", "--noprofile")
	cmd.Env = []string{testMark, "PATH=/usr/bin:/bin"}
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

// roundTrip runs true and reads its exit status back.
func (r *rawBash) roundTrip(b *testing.B) {
	if _, err := io.WriteString(r.in, "true; echo $?\n"); err != nil {
		b.Fatal(err)
	}
	line, err := r.out.ReadString('\n')
	if err != nil || line != "0\n" {
		b.Fatalf("raw bash: %q %v", line, err)
	}
}
