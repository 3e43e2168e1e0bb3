package capture_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/shellcap/shellcap/internal/capture"
)

func TestSpillNotCalledWithoutDrop(t *testing.T) {
	calls := 0
	b := capture.New(3, 3, func() (io.WriteCloser, int64, error) {
		calls++
		return discard{}, 0, nil
	})
	b.Write([]byte("abcdef"))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Errorf("SpillFunc called %d times for a stream that fit", calls)
	}
	if complete, ok := b.Spilled(); complete || ok {
		t.Errorf("Spilled() = %v, %v; want false, false", complete, ok)
	}
}

func TestSpillToFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stdout")
	calls := 0
	b := capture.New(4, 4, func() (io.WriteCloser, int64, error) {
		calls++
		f, err := os.Create(path)
		return f, 0, err
	})
	var want bytes.Buffer
	for _, w := range []string{"ab", "cdefgh", "", "i", "jklmnopqrstuvwxyz", "€"} {
		b.Write([]byte(w))
		want.WriteString(w)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("SpillFunc called %d times, want 1", calls)
	}
	if complete, ok := b.Spilled(); !complete || !ok {
		t.Errorf("Spilled() = %v, %v; want true, true", complete, ok)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("spill file = %q, want %q", got, want.Bytes())
	}
}

func TestSpillBudget(t *testing.T) {
	const stream = "abcdefghijklmnopqrstuvwxyz"
	for _, tt := range []struct {
		budget       int64
		want         string
		wantComplete bool
	}{
		{budget: 0, want: stream, wantComplete: true},
		{budget: -1, want: stream, wantComplete: true},
		{budget: 26, want: stream, wantComplete: true},
		{budget: 25, want: stream[:25]},
		{budget: 8, want: stream[:8]},   // exactly what the buffer held when it started spilling
		{budget: 5, want: stream[:5]},   // less than that
		{budget: 12, want: stream[:12]}, // cut inside a later write
	} {
		spilled := new(lockedBuffer)
		b := capture.New(4, 4, func() (io.WriteCloser, int64, error) { return spilled, tt.budget, nil })
		b.Write([]byte(stream[:8]))
		b.Write([]byte(stream[8:10]))
		b.Write([]byte(stream[10:]))
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if got := string(spilled.Bytes()); got != tt.want {
			t.Errorf("budget %d: spill file = %q, want %q", tt.budget, got, tt.want)
		}
		if complete, ok := b.Spilled(); complete != tt.wantComplete || !ok {
			t.Errorf("budget %d: Spilled() = %v, %v; want %v, true", tt.budget, complete, ok, tt.wantComplete)
		}
		if spilled.closed != 1 {
			t.Errorf("budget %d: spill writer closed %d times, want 1", tt.budget, spilled.closed)
		}
	}
}

func TestSpillFuncError(t *testing.T) {
	errOpen := errors.New("no disk")
	calls := 0
	b := capture.New(2, 2, func() (io.WriteCloser, int64, error) {
		calls++
		return nil, 0, errOpen
	})
	b.Write([]byte("abcdef"))
	b.Write([]byte("ghijkl"))
	if calls != 1 {
		t.Errorf("SpillFunc called %d times, want 1", calls)
	}
	if got := string(b.Bytes()); got != "ab\n[... 8 bytes omitted ...]\nkl" {
		t.Errorf("Bytes() = %q after a spill error", got)
	}
	if err := b.SpillErr(); !errors.Is(err, errOpen) {
		t.Errorf("SpillErr() = %v, want %v", err, errOpen)
	}
	if err := b.Close(); !errors.Is(err, errOpen) {
		t.Errorf("Close() = %v, want %v", err, errOpen)
	}
	if complete, ok := b.Spilled(); complete || ok {
		t.Errorf("Spilled() = %v, %v; want false, false", complete, ok)
	}
}

func TestSpillFuncNilWriter(t *testing.T) {
	b := capture.New(2, 2, func() (io.WriteCloser, int64, error) { return nil, 0, nil })
	b.Write([]byte("abcdef"))
	if err := b.Close(); err != nil {
		t.Errorf("Close() = %v, want nil", err)
	}
	if complete, ok := b.Spilled(); complete || ok {
		t.Errorf("Spilled() = %v, %v; want false, false", complete, ok)
	}
}

func TestSpillWriteError(t *testing.T) {
	errFull := errors.New("disk full")
	w := &failingWriter{room: 5, err: errFull}
	b := capture.New(2, 2, func() (io.WriteCloser, int64, error) { return w, 0, nil })
	b.Write([]byte("abcdef"))
	b.Write([]byte("ghijkl"))
	b.Write([]byte("mnop"))
	if got := string(w.buf.Bytes()); got != "abcde" {
		t.Errorf("spill file = %q, want %q", got, "abcde")
	}
	if w.writes != 2 {
		t.Errorf("spill writer called %d times, want 2 (none after the error)", w.writes)
	}
	if got := string(b.Bytes()); got != "ab\n[... 12 bytes omitted ...]\nop" {
		t.Errorf("Bytes() = %q after a spill write error", got)
	}
	if complete, ok := b.Spilled(); complete || !ok {
		t.Errorf("Spilled() = %v, %v; want false, true", complete, ok)
	}
	if err := b.Close(); !errors.Is(err, errFull) {
		t.Errorf("Close() = %v, want %v", err, errFull)
	}
}

func TestSpillCloseError(t *testing.T) {
	errClose := errors.New("close failed")
	w := &failingWriter{room: 100, closeErr: errClose}
	b := capture.New(2, 2, func() (io.WriteCloser, int64, error) { return w, 0, nil })
	b.Write([]byte("abcdef"))
	for range 2 {
		if err := b.Close(); !errors.Is(err, errClose) {
			t.Errorf("Close() = %v, want %v", err, errClose)
		}
	}
	if w.closes != 1 {
		t.Errorf("spill writer closed %d times, want 1", w.closes)
	}
	if complete, ok := b.Spilled(); complete || !ok {
		t.Errorf("Spilled() = %v, %v; want false, true", complete, ok)
	}
}

func TestWriteAfterClose(t *testing.T) {
	t.Run("spilling", func(t *testing.T) {
		spilled := new(lockedBuffer)
		b := capture.New(2, 2, func() (io.WriteCloser, int64, error) { return spilled, 0, nil })
		b.Write([]byte("abcdef"))
		b.Close()
		b.Write([]byte("gh"))
		if got := string(spilled.Bytes()); got != "abcdef" {
			t.Errorf("spill file = %q, want %q", got, "abcdef")
		}
		if complete, ok := b.Spilled(); complete || !ok {
			t.Errorf("Spilled() = %v, %v; want false, true", complete, ok)
		}
		if got := string(b.Bytes()); got != "ab\n[... 4 bytes omitted ...]\ngh" {
			t.Errorf("Bytes() = %q", got)
		}
	})
	t.Run("not yet spilling", func(t *testing.T) {
		calls := 0
		b := capture.New(2, 2, func() (io.WriteCloser, int64, error) {
			calls++
			return discard{}, 0, nil
		})
		b.Write([]byte("ab"))
		b.Close()
		b.Write([]byte("cdef"))
		if calls != 0 {
			t.Errorf("SpillFunc called %d times after Close", calls)
		}
	})
}

// failingWriter accepts room bytes, then fails with err.
type failingWriter struct {
	buf      bytes.Buffer
	room     int
	err      error
	closeErr error
	writes   int
	closes   int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	if len(p) > w.room {
		w.buf.Write(p[:w.room])
		n := w.room
		w.room = 0
		return n, w.err
	}
	w.room -= len(p)
	return w.buf.Write(p)
}

func (w *failingWriter) Close() error {
	w.closes++
	return w.closeErr
}
