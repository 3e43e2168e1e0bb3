package jobs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/shellcap/shellcap"
)

// feedDrain bounds how long Run (after the command finished) and Close
// wait for a stdin feeder blocked in the caller's Read.
const feedDrain = time.Second

// onOutputChunk is the most bytes one OnOutput call carries.
const onOutputChunk = 32 << 10

// stdinFeed copies a Run request's Stdin into its job's stdin FIFO, in
// frames as Input writes them, and sends end-of-file when the reader ends
// (or fails). It runs in the host process: if the host dies first, the
// job's stdin stays open and the job may wait for input forever (Stop
// still ends it).
type stdinFeed struct {
	f       *os.File // the FIFO, open for writing
	path    string
	stopped atomic.Bool
	done    chan struct{}
}

// feedStdin starts copying r into job j's stdin. It returns nil when the
// FIFO is already gone (the command finished, or its supervisor did).
func (m *Manager) feedStdin(j *job, r io.Reader) *stdinFeed {
	path := filepath.Join(j.dir, stdinName)
	f, err := openStdinFIFO(path)
	if err != nil {
		return nil
	}
	// openStdinFIFO locked the FIFO; the feed locks it per frame batch so
	// that an Input from another process does not wait for the whole
	// stream.
	_ = unlockFIFO(f)
	fd := &stdinFeed{f: f, path: path, done: make(chan struct{})}
	j.fed.Store(true)
	m.mu.Lock()
	m.feeds[fd] = struct{}{}
	m.mu.Unlock()
	go func() {
		defer func() {
			f.Close()
			m.mu.Lock()
			delete(m.feeds, fd)
			m.mu.Unlock()
			close(fd.done)
		}()
		fd.copy(r)
	}()
	return fd
}

func (fd *stdinFeed) copy(r io.Reader) {
	buf := make([]byte, maxFrameBytes)
	for !fd.stopped.Load() {
		n, rerr := r.Read(buf)
		if fd.stopped.Load() {
			return
		}
		eof := rerr != nil
		if n > 0 || eof {
			err := lockFIFO(fd.f)
			if err == nil {
				_, err = writeFrames(fd.f, string(buf[:n]), eof)
				_ = unlockFIFO(fd.f)
			}
			if err != nil {
				return // the job no longer reads (it ended), or stop
			}
		}
		if eof {
			removeJobFile(filepath.Dir(fd.path), stdinName) // later Inputs find the stdin closed
			return
		}
	}
}

// stop makes the feed end: a write in progress fails at once, a Read in
// progress ends the feed when it returns. It waits up to wait for that.
func (fd *stdinFeed) stop(wait time.Duration) {
	if fd == nil {
		return
	}
	fd.stopped.Store(true)
	_ = fd.f.SetWriteDeadline(time.Now())
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-fd.done:
	case <-t.C:
	}
}

// stopFeeds stops every stdin feed (at Close).
func (m *Manager) stopFeeds() {
	m.mu.Lock()
	feeds := make([]*stdinFeed, 0, len(m.feeds))
	for fd := range m.feeds {
		feeds = append(feeds, fd)
	}
	m.mu.Unlock()
	deadline := time.Now().Add(feedDrain)
	for _, fd := range feeds {
		fd.stop(max(0, time.Until(deadline)))
	}
}

// logFollower passes the bytes a job's stdout and stderr logs gained to a
// Request.OnOutput callback, each stream in order.
type logFollower struct {
	dir    string
	fn     func(shellcap.Stream, []byte)
	window int64    // how far back from a log's end reading may start
	sent   [2]int64 // log offsets already passed on
	buf    []byte
}

func newLogFollower(dir string, fn func(shellcap.Stream, []byte), maxLogBytes int64) *logFollower {
	if fn == nil {
		return nil
	}
	// A log always keeps at least its last MaxLogBytes/2 bytes readable;
	// what lies before was dropped (a hole that reads as zeros).
	return &logFollower{dir: dir, fn: fn, window: maxLogBytes / 2, buf: make([]byte, onOutputChunk)}
}

// forward passes on what arrived since the last call.
func (lf *logFollower) forward() {
	if lf == nil {
		return
	}
	for i, s := range []struct {
		name   string
		stream shellcap.Stream
	}{{stdoutName, shellcap.Stdout}, {stderrName, shellcap.Stderr}} {
		lf.sent[i] = lf.forwardLog(filepath.Join(lf.dir, s.name), s.stream, lf.sent[i])
	}
}

// forwardLog passes on path's bytes from offset from to its end and
// returns the new offset.
func (lf *logFollower) forwardLog(path string, stream shellcap.Stream, from int64) int64 {
	f, err := openJobFile(path, os.O_RDONLY, 0)
	if err != nil {
		return from
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return from
	}
	size := fi.Size()
	if from > size {
		from = 0 // the log was restarted (no hole punching)
	}
	off := max(from, size-lf.window)
	for off < size {
		n, err := f.ReadAt(lf.buf[:min(int64(len(lf.buf)), size-off)], off)
		if n > 0 {
			lf.fn(stream, lf.buf[:n])
			off += int64(n)
		}
		if n == 0 || (err != nil && !errors.Is(err, io.EOF)) {
			break
		}
	}
	return off
}
