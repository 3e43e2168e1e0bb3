package jobs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"unicode/utf8"
)

// holeAlign is the granularity of dropped log bytes: file systems free
// whole blocks only.
const holeAlign = 4096

// boundedLog is the supervisor's writer for one log file. The file's
// length always equals the number of bytes written, so an offset names
// the same byte for its whole life; once the file holds more than max
// bytes past what was dropped, its oldest part is turned into a hole (or,
// where the file system cannot do that, the file is emptied) so that at
// least max/2 recent bytes stay readable and the disk use stays bounded.
type boundedLog struct {
	mu      sync.Mutex
	f       *os.File
	max     int64
	written int64 // bytes written, = the file's length
	dropped int64 // bytes at the start no longer kept
	lost    int64 // bytes that could not be written (a full disk)
	lostErr error // why the first of them could not
	onDrop  func(written, dropped int64)
	// onLoss is called (with l.mu held) after each write that lost bytes.
	onLoss func(lost int64, err error)
}

func (l *boundedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.f.Write(p)
	l.written += int64(n)
	if l.written-l.dropped > l.max {
		l.dropOldest()
	}
	if err != nil {
		// A full disk must not block the command: count what was lost and
		// keep accepting.
		l.lost += int64(len(p) - n)
		if l.lostErr == nil {
			l.lostErr = err
		}
		if l.onLoss != nil {
			l.onLoss(l.lost, l.lostErr)
		}
		return len(p), nil
	}
	return n, nil
}

// dropOldest frees everything but the last max/2 bytes (rounded to whole
// blocks).
func (l *boundedLog) dropOldest() {
	keepFrom := (l.written - l.max/2) / holeAlign * holeAlign
	if keepFrom <= l.dropped {
		return
	}
	if punchHole(l.f, l.dropped, keepFrom-l.dropped) == nil {
		l.dropped = keepFrom
	} else {
		// No hole punching: start the file again. Offsets then move
		// back, which readers detect by the file being shorter than
		// they last saw.
		_ = l.f.Truncate(0)
		_, _ = l.f.Seek(0, io.SeekStart)
		l.dropped += l.written
		l.written = 0
	}
	if l.onDrop != nil {
		l.onDrop(l.written, l.dropped)
	}
}

func (l *boundedLog) counts() (written, dropped, lost int64, lostErr error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written, l.dropped, l.lost, l.lostErr
}

// logChunk is a part of a log read from its end.
type logChunk struct {
	data    []byte
	start   int64 // offset of data[0] in the log
	end     int64 // the log's length when read
	skipped int64 // bytes between the requested start and start
}

// readLog reads path from offset from (clamped so that at most window
// bytes are read) to its end. A start inside a UTF-8 character moves to
// the character's end. A missing file reads as empty; a file that is not
// the job's own (a symlink, another user's, a hard link) is an error.
func readLog(path string, from, window int64) (logChunk, error) {
	return readLogEnd(path, from, window, false)
}

// readLogEnd is readLog; with final (the job has ended, the log is
// complete) a character left incomplete at the end is kept, to be shown
// as U+FFFD, instead of left for a next read.
func readLogEnd(path string, from, window int64, final bool) (logChunk, error) {
	f, err := openJobFile(path, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return logChunk{start: from, end: from}, nil
		}
		return logChunk{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return logChunk{}, err
	}
	size := fi.Size()
	if from > size {
		from = 0 // the log was restarted (no hole punching)
	}
	start := max(from, size-window)
	data := make([]byte, size-start)
	n, err := f.ReadAt(data, start)
	if err != nil && err != io.EOF {
		return logChunk{}, err
	}
	data = data[:n]
	// Skip the rest of a character cut by the window.
	if start > from {
		cut := 0
		for cut < len(data) && cut < utf8.UTFMax-1 && !utf8.RuneStart(data[cut]) {
			cut++
		}
		data = data[cut:]
		start += int64(cut)
	}
	// Leave a character still being written for the next read.
	for i := len(data) - 1; !final && i >= 0 && i >= len(data)-(utf8.UTFMax-1); i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				data = data[:i]
			}
			break
		}
	}
	return logChunk{data: data, start: start, end: start + int64(len(data)), skipped: start - from}, nil
}

// readLogRange reads at most n bytes of path from offset from on, as they
// are (the caller handles characters cut at either end). A missing file
// reads as empty; a file that is not the job's own is an error.
func readLogRange(path string, from, n int64) ([]byte, error) {
	f, err := openJobFile(path, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if from >= fi.Size() {
		return nil, nil
	}
	data := make([]byte, min(n, fi.Size()-from))
	k, err := f.ReadAt(data, from)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return data[:k], nil
}

// readHeadTail reads the first and the last window/2 bytes of path (cut on
// UTF-8 boundaries) and counts the bytes between them; the whole log when
// it is no longer than window. A log whose head was dropped (dropped > 0)
// reads as its last window bytes.
func readHeadTail(path string, window, dropped int64) (head, tail []byte, omitted int64, err error) {
	all, err := readLog(path, 0, window)
	if err != nil || all.skipped == 0 || dropped > 0 {
		return nil, all.data, all.skipped, err
	}
	f, err := openJobFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, all.data, all.skipped, nil
	}
	defer f.Close()
	head = make([]byte, window/2)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, all.data, all.skipped, nil
	}
	head = head[:n]
	for i := len(head) - 1; i >= 0 && i >= len(head)-(utf8.UTFMax-1); i-- {
		if utf8.RuneStart(head[i]) {
			if !utf8.FullRune(head[i:]) {
				head = head[:i]
			}
			break
		}
	}
	tail = all.data
	if cut := int64(len(tail)) - (window - window/2); cut > 0 {
		tail = tail[cut:]
		for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
			tail = tail[1:]
		}
	}
	return head, tail, all.end - int64(len(tail)) - int64(len(head)), nil
}
