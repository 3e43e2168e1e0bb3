package capture

import "io"

// SpillFunc opens the file a [Buffer] spills its complete stream to. The
// buffer calls it at most once, under its lock, the first time it must drop
// bytes; it must not call the buffer's methods.
//
// It returns where to write the complete stream and the byte budget for it.
// The buffer first writes the head and everything it still holds, then every
// later byte. It writes at most maxBytes bytes; if the stream is longer, the
// file holds its first maxBytes bytes and [Buffer.Spilled] reports it
// incomplete. A maxBytes of zero or less means no budget.
//
// If it returns an error, spilling is off and the buffer keeps the error for
// [Buffer.SpillErr] and [Buffer.Close]. If it returns a nil writer and no
// error, spilling is off.
type SpillFunc func() (w io.WriteCloser, maxBytes int64, err error)

// spill is the state of a Buffer's spill file. Its methods are called with
// the Buffer's lock held.
type spill struct {
	open       SpillFunc      // nil once called, or when spilling is off
	w          io.WriteCloser // nil unless open returned a writer
	budget     int64          // bytes the file may hold; <= 0 means no budget
	written    int64          // bytes written to w
	incomplete bool           // some byte of the stream is missing from w
	closed     bool           // w was closed
	err        error          // first error from open, w.Write or w.Close
}

// pending reports whether the spill file has not been asked for yet.
func (s *spill) pending() bool { return s.open != nil }

// start calls the SpillFunc and writes to the file the bytes held so far,
// in stream order.
func (s *spill) start(held ...[]byte) {
	open := s.open
	s.open = nil
	w, budget, err := open()
	if err != nil {
		s.err = err
		if w != nil {
			_ = w.Close() // a writer returned beside an error is not ours to use
		}
		return
	}
	s.w, s.budget = w, budget
	for _, p := range held {
		s.write(p)
	}
}

// write appends p to the spill file, within the budget. After the budget is
// spent, after an error, or after close, the file is marked incomplete and
// nothing more is written.
func (s *spill) write(p []byte) {
	if s.w == nil || len(p) == 0 || s.incomplete {
		return
	}
	if s.closed {
		s.incomplete = true
		return
	}
	if s.budget > 0 && int64(len(p)) > s.budget-s.written {
		p = p[:s.budget-s.written]
		s.incomplete = true
		if len(p) == 0 {
			return
		}
	}
	n, err := s.w.Write(p)
	s.written += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		s.fail(err)
	}
}

// close closes the spill file, once, and turns spilling off for good.
func (s *spill) close() error {
	s.open = nil
	if s.w != nil && !s.closed {
		s.closed = true
		if err := s.w.Close(); err != nil {
			s.fail(err)
		}
	}
	return s.err
}

// fail records the first error and marks the file incomplete.
func (s *spill) fail(err error) {
	if s.err == nil {
		s.err = err
	}
	s.incomplete = true
}
