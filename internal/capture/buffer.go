package capture

import (
	"strconv"
	"sync"
	"unicode/utf8"
)

// Buffer is an [io.Writer] that keeps the first headBytes and the last
// tailBytes written (the sizes given to [New]), counts what it drops, and
// optionally spills the complete stream to a file once it starts dropping.
//
// Its memory stays at headBytes+tailBytes plus a small constant whatever is
// written, and it allocates nothing per Write once its storage has grown. All
// methods are safe for concurrent use: typically one goroutine copies a pipe
// into Write while others read Head, Tail or Bytes to show progress.
type Buffer struct {
	mu sync.Mutex

	headCap int
	head    []byte // the first bytes written, at most headCap

	// afterHead holds the first bytes written after the head filled, so that
	// Head can tell a character split by the cut from invalid UTF-8.
	afterHead    [utf8.UTFMax - 1]byte
	afterHeadLen int

	// tail holds the last tailCap bytes plus up to utf8.UTFMax-1 bytes before
	// them, again to tell a split character from invalid UTF-8.
	tailCap int
	tail    ring

	total int64
	spill spill
}

// New returns a Buffer that keeps the first headBytes and the last tailBytes
// written. Either may be zero. spill, if not nil, is called the first time the
// buffer must drop bytes; see [SpillFunc]. New panics if headBytes or
// tailBytes is negative.
func New(headBytes, tailBytes int, spill SpillFunc) *Buffer {
	if headBytes < 0 || tailBytes < 0 {
		panic("capture: negative buffer size")
	}
	b := &Buffer{headCap: headBytes, tailCap: tailBytes}
	if tailBytes > 0 {
		b.tail.size = tailBytes + len(b.afterHead)
	}
	b.spill.open = spill
	return b
}

// Write keeps what fits in the head and the tail and drops the rest. It never
// fails and always returns len(p), nil. The spill file, if any, is written
// before Write returns.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	rest := b.fillHead(p)
	if len(rest) == 0 {
		return len(p), nil
	}
	b.afterHeadLen += copy(b.afterHead[b.afterHeadLen:], rest)
	if b.spill.pending() && b.tail.len()+len(rest) > b.tailCap {
		// Nothing was dropped yet: the head and the ring hold the whole
		// stream so far.
		older, newer := b.tail.segments()
		b.spill.start(b.head, older, newer)
	}
	b.spill.write(rest)
	b.tail.write(rest)
	return len(p), nil
}

// fillHead copies into the head what still fits there and returns the rest of p.
func (b *Buffer) fillHead(p []byte) []byte {
	n := min(b.headCap-len(b.head), len(p))
	if n > 0 {
		b.head = appendBounded(b.head, p[:n], b.headCap)
	}
	return p[n:]
}

// Total returns the number of bytes written in all.
func (b *Buffer) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Omitted returns the number of bytes written but not in Head or Tail: the
// bytes dropped between them, plus the bytes of a character split by either
// cut.
func (b *Buffer) Omitted() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cuts().omitted
}

// Head returns a copy of the first bytes written. It does not end inside a
// UTF-8 character: a character split by the head's cut is counted as omitted
// instead. When nothing was dropped, Head returns everything written.
func (b *Buffer) Head() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.appendHead(nil, b.cuts())
}

// Tail returns a copy of the last bytes written. It does not start inside a
// UTF-8 character: the end of a character split by the tail's cut is counted
// as omitted instead. Tail is empty when nothing was dropped.
func (b *Buffer) Tail() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.appendTail(nil, b.cuts())
}

// Bytes returns Head, then, if anything was omitted, a marker line
// "\n[... N bytes omitted ...]\n", then Tail. When nothing was omitted it is
// exactly Head.
func (b *Buffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.cuts()
	out := b.appendHead(nil, c)
	if c.omitted == 0 {
		return out
	}
	out = append(out, "\n[... "...)
	out = strconv.AppendInt(out, c.omitted, 10)
	out = append(out, " bytes omitted ...]\n"...)
	return b.appendTail(out, c)
}

// Close closes the spill writer, if any, and turns spilling off: bytes written
// after Close are kept in memory only, and a spill file still open at that
// point becomes incomplete. Close returns the spill error, if any; calling it
// again returns the same error.
func (b *Buffer) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spill.close()
}

// SpillErr returns the first error from the SpillFunc or from writing or
// closing the spill writer, or nil.
func (b *Buffer) SpillErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spill.err
}

// Spilled reports whether a spill file was written (ok: the SpillFunc returned
// a writer) and whether it holds every byte written (complete: no budget
// overrun, no write or close error, no write after Close).
func (b *Buffer) Spilled() (complete, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ok = b.spill.w != nil
	return ok && !b.spill.incomplete, ok
}
