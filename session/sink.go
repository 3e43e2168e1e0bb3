package session

import (
	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/capture"
)

// sink collects one command's output: a bounded head and tail of each
// stream, and the count of bytes against the output cap. Bytes past the
// cap are counted as omitted and dropped.
type sink struct {
	stdout, stderr *capture.Buffer
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
