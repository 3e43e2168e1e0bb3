package capture

import (
	"bytes"
	"testing"
)

// TestMemoryBounded writes far more than the caps, in writes small and huge,
// and checks that the storage never outgrew them.
func TestMemoryBounded(t *testing.T) {
	const head, tail = 1000, 3000
	b := New(head, tail, nil)
	huge := bytes.Repeat([]byte("x"), 8<<20)
	for _, n := range []int{1, 7, 999, 1000, 1001, 2999, 3000, 3001, 3003, 3004, len(huge)} {
		for range 50 {
			b.Write(huge[:n])
		}
	}
	if cap(b.head) > head {
		t.Errorf("head capacity %d, want at most %d", cap(b.head), head)
	}
	if maxTail := tail + len(b.afterHead); cap(b.tail.buf) > maxTail {
		t.Errorf("tail capacity %d, want at most %d", cap(b.tail.buf), maxTail)
	}
}

// TestMemoryShortStream checks that a short stream does not allocate the caps.
func TestMemoryShortStream(t *testing.T) {
	b := New(1<<20, 1<<20, nil)
	b.Write([]byte("hello\n"))
	if cap(b.head) > minGrowth {
		t.Errorf("head capacity %d after a 6-byte write, want at most %d", cap(b.head), minGrowth)
	}
	if b.tail.buf != nil {
		t.Errorf("tail allocated %d bytes before the head filled", cap(b.tail.buf))
	}
}
