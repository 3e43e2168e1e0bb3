package capture_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/shellcap/shellcap/internal/capture"
)

func TestBuffer(t *testing.T) {
	tests := []struct {
		name        string
		head, tail  int
		writes      []string
		wantHead    string
		wantTail    string
		wantOmitted int64
	}{
		{name: "empty", head: 4, tail: 4},
		{name: "fits", head: 4, tail: 4, writes: []string{"abcdef"}, wantHead: "abcdef"},
		{name: "exact fit", head: 3, tail: 3, writes: []string{"abc", "def"}, wantHead: "abcdef"},
		{name: "one over", head: 3, tail: 3, writes: []string{"abcdefg"}, wantHead: "abc", wantTail: "efg", wantOmitted: 1},
		{name: "drops middle", head: 3, tail: 3, writes: []string{"abcdefgh"}, wantHead: "abc", wantTail: "fgh", wantOmitted: 2},
		{name: "ring wraps", head: 2, tail: 3, writes: []string{"ab", "cd", "ef", "gh", "i"}, wantHead: "ab", wantTail: "ghi", wantOmitted: 4},
		{name: "ring wraps bytewise", head: 1, tail: 2, writes: strings.Split("abcdefghij", ""), wantHead: "a", wantTail: "ij", wantOmitted: 7},
		{name: "write larger than ring", head: 2, tail: 3, writes: []string{"abcdefghijklmnop"}, wantHead: "ab", wantTail: "nop", wantOmitted: 11},
		{name: "large write after wrap", head: 1, tail: 3, writes: []string{"ab", "cd", "efghijk", "l"}, wantHead: "a", wantTail: "jkl", wantOmitted: 8},
		{name: "no head", head: 0, tail: 3, writes: []string{"abcdef"}, wantTail: "def", wantOmitted: 3},
		{name: "no head fits", head: 0, tail: 3, writes: []string{"ab"}, wantHead: "ab"},
		{name: "no tail", head: 3, tail: 0, writes: []string{"ab", "cdef"}, wantHead: "abc", wantOmitted: 3},
		{name: "no head no tail", head: 0, tail: 0, writes: []string{"abc"}, wantOmitted: 3},
		{name: "empty writes", head: 1, tail: 1, writes: []string{"", "a", "", ""}, wantHead: "a"},

		// A character split by the head's cut moves out of the head.
		{name: "head splits 2-byte", head: 3, tail: 3, writes: []string{"abéxyzw"}, wantHead: "ab", wantTail: "yzw", wantOmitted: 3},
		{name: "head splits 3-byte", head: 2, tail: 2, writes: []string{"a€bcd"}, wantHead: "a", wantTail: "cd", wantOmitted: 4},
		{name: "head splits 3-byte after 2", head: 3, tail: 2, writes: []string{"a€bcd"}, wantHead: "a", wantTail: "cd", wantOmitted: 4},
		{name: "head splits 4-byte", head: 3, tail: 2, writes: []string{"ab😀cd"}, wantHead: "ab", wantTail: "cd", wantOmitted: 4},
		{name: "head splits 4-byte after 3", head: 5, tail: 2, writes: []string{"ab😀cd"}, wantHead: "ab", wantTail: "cd", wantOmitted: 4},
		{name: "head ends on boundary", head: 3, tail: 2, writes: []string{"aéxyz"}, wantHead: "aé", wantTail: "yz", wantOmitted: 1},
		{name: "head 4-byte ends on boundary", head: 6, tail: 1, writes: []string{"ab😀cd"}, wantHead: "ab😀", wantTail: "d", wantOmitted: 1},
		{name: "head split across writes", head: 3, tail: 2, writes: []string{"ab\xf0", "\x9f", "\x98\x80", "cd"}, wantHead: "ab", wantTail: "cd", wantOmitted: 4},

		// The end of a character split by the tail's cut moves out of the tail.
		{name: "tail splits 2-byte", head: 1, tail: 1, writes: []string{"abcé"}, wantHead: "a", wantOmitted: 4},
		{name: "tail splits 2-byte then ascii", head: 1, tail: 2, writes: []string{"abcéz"}, wantHead: "a", wantTail: "z", wantOmitted: 4},
		{name: "tail splits 3-byte", head: 1, tail: 3, writes: []string{"abc€d"}, wantHead: "a", wantTail: "d", wantOmitted: 5},
		{name: "tail splits 4-byte", head: 1, tail: 4, writes: []string{"ab😀z"}, wantHead: "a", wantTail: "z", wantOmitted: 5},
		{name: "tail splits 4-byte late", head: 1, tail: 2, writes: []string{"ab😀z"}, wantHead: "a", wantTail: "z", wantOmitted: 5},
		{name: "tail starts on boundary", head: 1, tail: 5, writes: []string{"abc😀z"}, wantHead: "a", wantTail: "😀z", wantOmitted: 2},
		{name: "tail split after wrap", head: 1, tail: 3, writes: []string{"abcdefg", "hi€", "jk"}, wantHead: "a", wantTail: "jk", wantOmitted: 11},
		{name: "tail split in large write", head: 0, tail: 2, writes: []string{"xxxxxxxxxx€z"}, wantTail: "z", wantOmitted: 13},
		{name: "tail split with head context", head: 2, tail: 2, writes: []string{"a€", "x"}, wantHead: "a", wantTail: "x", wantOmitted: 3},
		{name: "one char split by both cuts", head: 1, tail: 2, writes: []string{"😀"}, wantOmitted: 4},

		// Invalid UTF-8 is kept as it is.
		{name: "head keeps truncated sequence", head: 2, tail: 2, writes: []string{"a\xe2ZYXW"}, wantHead: "a\xe2", wantTail: "XW", wantOmitted: 2},
		{name: "head keeps lone lead", head: 1, tail: 1, writes: []string{"\xf0abc"}, wantHead: "\xf0", wantTail: "c", wantOmitted: 2},
		{name: "head keeps overlong", head: 2, tail: 1, writes: []string{"a\xe0\x80\x80b"}, wantHead: "a\xe0", wantTail: "b", wantOmitted: 2},
		{name: "tail keeps stray continuation", head: 1, tail: 2, writes: []string{"abc\x80\x80"}, wantHead: "a", wantTail: "\x80\x80", wantOmitted: 2},
		{name: "tail keeps continuation of broken sequence", head: 1, tail: 3, writes: []string{"a\xe2\x82xy"}, wantHead: "a", wantTail: "\x82xy", wantOmitted: 1},
		{name: "tail keeps surrogate bytes", head: 1, tail: 2, writes: []string{"a\xed\xa0\x80"}, wantHead: "a", wantTail: "\xa0\x80", wantOmitted: 1},
		{name: "encoded U+FFFD is a character", head: 2, tail: 1, writes: []string{"a\uFFFDb"}, wantHead: "a", wantTail: "b", wantOmitted: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := capture.New(tt.head, tt.tail, nil)
			var total int64
			for _, w := range tt.writes {
				n, err := b.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
				total += int64(len(w))
			}
			if got := string(b.Head()); got != tt.wantHead {
				t.Errorf("Head() = %q, want %q", got, tt.wantHead)
			}
			if got := string(b.Tail()); got != tt.wantTail {
				t.Errorf("Tail() = %q, want %q", got, tt.wantTail)
			}
			if got := b.Omitted(); got != tt.wantOmitted {
				t.Errorf("Omitted() = %d, want %d", got, tt.wantOmitted)
			}
			if got := b.Total(); got != total {
				t.Errorf("Total() = %d, want %d", got, total)
			}
			want := tt.wantHead
			if tt.wantOmitted > 0 {
				want += fmt.Sprintf("\n[... %d bytes omitted ...]\n", tt.wantOmitted) + tt.wantTail
			}
			if got := string(b.Bytes()); got != want {
				t.Errorf("Bytes() = %q, want %q", got, want)
			}
		})
	}
}

func TestBufferCopies(t *testing.T) {
	b := capture.New(2, 2, nil)
	b.Write([]byte("abcdef"))
	head, tail, all := b.Head(), b.Tail(), b.Bytes()
	b.Write([]byte("XYZW"))
	if string(head) != "ab" || string(tail) != "ef" || string(all) != "ab\n[... 2 bytes omitted ...]\nef" {
		t.Errorf("results changed after a later Write: %q %q %q", head, tail, all)
	}
	head[0], tail[0] = '!', '!'
	if string(b.Head()) != "ab" || string(b.Tail()) != "ZW" {
		t.Errorf("Head() = %q, Tail() = %q after editing earlier results", b.Head(), b.Tail())
	}
}

func TestNewPanicsOnNegativeSize(t *testing.T) {
	for _, sizes := range [][2]int{{-1, 0}, {0, -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%d, %d, nil) did not panic", sizes[0], sizes[1])
				}
			}()
			capture.New(sizes[0], sizes[1], nil)
		}()
	}
}

func TestWriteAllocs(t *testing.T) {
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	for _, tt := range []struct {
		name  string
		spill capture.SpillFunc
	}{
		{name: "memory"},
		{name: "spill", spill: func() (io.WriteCloser, int64, error) { return discard{}, 0, nil }},
		{name: "spill over budget", spill: func() (io.WriteCloser, int64, error) { return discard{}, 1, nil }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := capture.New(1000, 3000, tt.spill)
			for _, n := range []int{len(chunk), 1, 100, 5000} { // warm up: grow head and ring
				b.Write(chunk[:n])
			}
			for _, n := range []int{1, 100, 2999, 3000, 3001, 3003, len(chunk)} {
				if allocs := testing.AllocsPerRun(100, func() { b.Write(chunk[:n]) }); allocs != 0 {
					t.Errorf("Write of %d bytes: %v allocations, want 0", n, allocs)
				}
			}
		})
	}
}

// discard is an io.WriteCloser that drops everything.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

// TestConcurrentReaders runs one writer against readers calling every method;
// run it with -race.
func TestConcurrentReaders(t *testing.T) {
	spilled := new(lockedBuffer)
	b := capture.New(64, 64, func() (io.WriteCloser, int64, error) { return spilled, 0, nil })
	line := []byte("a line of output with a € sign\n")
	stream := bytes.Repeat(line, 2000)
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			var last int64
			for {
				select {
				case <-done:
					return
				default:
				}
				// Each call is its own snapshot while the writer goes on, so
				// every check below holds for one call alone.
				if head := b.Head(); len(head) > 128 || !bytes.HasPrefix(stream, head) {
					t.Errorf("Head = %q: not a prefix of the stream of at most 128 bytes", head)
				}
				if tail := b.Tail(); len(tail) > 64 || !bytes.Contains(stream, tail) {
					t.Errorf("Tail = %q: not a piece of the stream of at most 64 bytes", tail)
				}
				if got := b.Bytes(); !wellFormed(got, stream) {
					t.Errorf("Bytes = %q: neither the whole stream nor head, marker and tail", got)
				}
				if total := b.Total(); total < last {
					t.Errorf("Total went back from %d to %d", last, total)
				} else {
					last = total
				}
				_ = b.Omitted()
				_, _ = b.Spilled()
				_ = b.SpillErr()
			}
		})
	}
	for range 2000 {
		b.Write(line)
	}
	close(done)
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(spilled.Bytes(), stream) {
		t.Errorf("spill file holds %d bytes, want the %d written", spilled.Len(), len(stream))
	}
}

// wellFormed reports whether got, a Bytes result of a Buffer with caps 64 and
// 64 fed a prefix of stream, is that prefix whole (nothing dropped yet) or a
// head of at most 64 bytes, the omitted-bytes marker and a tail of at most 64.
func wellFormed(got, stream []byte) bool {
	if len(got) <= 128 && bytes.HasPrefix(stream, got) {
		return true
	}
	head, rest, ok := bytes.Cut(got, []byte("\n[... "))
	if !ok {
		return false
	}
	_, tail, ok := bytes.Cut(rest, []byte(" bytes omitted ...]\n"))
	return ok && len(head) <= 64 && len(tail) <= 64 &&
		bytes.HasPrefix(stream, head) && bytes.Contains(stream, tail)
}

// lockedBuffer is a bytes.Buffer usable as a spill writer.
type lockedBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	closed int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed++
	return nil
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.buf.Bytes())
}

func (l *lockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Len()
}
