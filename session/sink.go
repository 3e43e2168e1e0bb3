package session

import (
	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/capture"
	"github.com/shellcap/shellcap/internal/core"
)

// sink collects one command's output: a bounded head and tail of each
// stream, and the count of bytes against the output cap. Bytes past the
// cap are counted as omitted and dropped.
type sink struct {
	stdout, stderr *capture.Buffer
	budgets        [3]core.Budget // by stream: the Shell's StdoutBudget, StderrBudget
	total          int64
	dropped        [3]int64 // by stream, past the cap
	max            int64    // <= 0: no cap
	over           bool     // the cap was exceeded
	reported       bool     // takeCapHit has said so
	firstID        uint64   // the first step id of the call
	interrupted    bool     // the shell was sent SIGINT
}

func newSink(keep int, maxBytes int64) *sink {
	return &sink{
		stdout: capture.New(keep, keep, nil),
		stderr: capture.New(keep, keep, nil),
		max:    maxBytes,
	}
}

// newBudgetSink is newSink keeping each stream's head and tail as the
// Shell's per-stream budgets say (the zero Budget: keep bytes at each end).
func newBudgetSink(st core.Settings, maxChars int, maxBytes int64) *sink {
	s := &sink{max: maxBytes}
	s.budgets[shellcap.Stdout], s.budgets[shellcap.Stderr] = st.StdoutBudget, st.StderrBudget
	oh, ot := st.StdoutBudget.KeepBytes(maxChars, maxBytes)
	eh, et := st.StderrBudget.KeepBytes(maxChars, maxBytes)
	s.stdout, s.stderr = capture.New(oh, ot, nil), capture.New(eh, et, nil)
	return s
}

// kept returns what the sink shows of one stream and how many bytes it
// leaves out: within the stream's budget when it has one.
func (s *sink) kept(stream shellcap.Stream) ([]byte, int64) {
	b := s.stdout
	if stream == shellcap.Stderr {
		b = s.stderr
	}
	if bud := s.budgets[stream]; !bud.IsZero() {
		return b.BytesWithin(bud.Head, bud.Tail)
	}
	return b.Bytes(), b.Omitted()
}

func (s *sink) write(stream shellcap.Stream, p []byte) {
	if s.max > 0 {
		room := s.max - s.total
		if int64(len(p)) > room {
			s.over = true
			s.dropped[stream] += int64(len(p)) - max(room, 0)
			p = p[:max(room, 0)]
		}
	}
	s.total += int64(len(p))
	if len(p) == 0 {
		return
	}
	if stream == shellcap.Stdout {
		_, _ = s.stdout.Write(p)
	} else {
		_, _ = s.stderr.Write(p)
	}
}

// takeCapHit reports, once, that the cap was exceeded.
func (s *sink) takeCapHit() bool {
	if s.over && !s.reported {
		s.reported = true
		return true
	}
	return false
}
