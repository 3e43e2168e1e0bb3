package capture_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/shellcap/shellcap/internal/capture"
)

// FuzzBuffer writes data in chunks of sizes drawn from seed and compares the
// buffer with a reference that keeps everything. budget < 0 turns spilling
// off, 0 spills without a budget.
func FuzzBuffer(f *testing.F) {
	f.Add([]byte("hello, world"), uint16(3), uint16(4), int16(0), uint64(1))
	f.Add([]byte("ab😀cd€ef\xe2\x82xyzé"), uint16(3), uint16(2), int16(5), uint64(2))
	f.Add([]byte("\xf0\x9f\x98\x80\xf0\x9f\x98"), uint16(1), uint16(2), int16(-1), uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, headCap, tailCap uint16, budget int16, seed uint64) {
		head, tail := int(headCap%512), int(tailCap%512)
		spilled := new(lockedBuffer)
		calls := 0
		var spill capture.SpillFunc
		if budget >= 0 {
			spill = func() (io.WriteCloser, int64, error) {
				calls++
				return spilled, int64(budget), nil
			}
		}
		b := capture.New(head, tail, spill)
		rng := rand.New(rand.NewPCG(seed, uint64(len(data))))
		for rest := data; len(rest) > 0; {
			n := min(len(rest), rng.IntN(2*(head+tail)+8))
			if n, err := b.Write(rest[:n]); err != nil {
				t.Fatalf("Write: %d, %v", n, err)
			}
			rest = rest[n:]
		}
		if err := b.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}

		wantHead, wantTail, wantOmitted := reference(data, head, tail)
		gotHead, gotTail, gotOmitted := b.Head(), b.Tail(), b.Omitted()
		if !bytes.Equal(gotHead, wantHead) || !bytes.Equal(gotTail, wantTail) || gotOmitted != wantOmitted {
			t.Fatalf("caps %d/%d over %q:\n got head %q, tail %q, omitted %d\nwant head %q, tail %q, omitted %d",
				head, tail, data, gotHead, gotTail, gotOmitted, wantHead, wantTail, wantOmitted)
		}
		checkBufferInvariants(t, b, data)

		dropped := len(data) > head+tail
		if !dropped || spill == nil {
			if calls != 0 {
				t.Fatalf("SpillFunc called %d times without a drop", calls)
			}
			return
		}
		if calls != 1 {
			t.Fatalf("SpillFunc called %d times, want 1", calls)
		}
		want, wantComplete := data, true
		if budget > 0 && int(budget) < len(data) {
			want, wantComplete = data[:budget], false
		}
		if got := spilled.Bytes(); !bytes.Equal(got, want) {
			t.Fatalf("spill file = %q, want %q", got, want)
		}
		if complete, ok := b.Spilled(); complete != wantComplete || !ok {
			t.Fatalf("Spilled() = %v, %v; want %v, true", complete, ok, wantComplete)
		}
	})
}

// checkBufferInvariants checks what must hold whatever the cut rules are.
func checkBufferInvariants(t *testing.T, b *capture.Buffer, data []byte) {
	t.Helper()
	head, tail, omitted := b.Head(), b.Tail(), b.Omitted()
	if b.Total() != int64(len(data)) {
		t.Fatalf("Total() = %d, want %d", b.Total(), len(data))
	}
	if !bytes.HasPrefix(data, head) {
		t.Fatalf("Head() %q is not a prefix of %q", head, data)
	}
	if !bytes.HasSuffix(data, tail) {
		t.Fatalf("Tail() %q is not a suffix of %q", tail, data)
	}
	if got := int64(len(head)+len(tail)) + omitted; got != int64(len(data)) {
		t.Fatalf("len(Head)+len(Tail)+Omitted = %d, want %d", got, len(data))
	}
	if omitted == 0 && (len(tail) != 0 || !bytes.Equal(head, data)) {
		t.Fatalf("nothing omitted but Head() = %q, Tail() = %q", head, tail)
	}
	if utf8.Valid(data) && (!utf8.Valid(head) || !utf8.Valid(tail)) {
		t.Fatalf("valid input cut inside a character: Head() = %q, Tail() = %q", head, tail)
	}
	want := string(head)
	if omitted > 0 {
		want += fmt.Sprintf("\n[... %d bytes omitted ...]\n", omitted) + string(tail)
	}
	if got := string(b.Bytes()); got != want {
		t.Fatalf("Bytes() = %q, want %q", got, want)
	}
}

// reference computes Head, Tail and Omitted from the whole stream: the head is
// data[:headCap] and the tail data[len-tailCap:], each cut moved off a valid
// UTF-8 character it would split.
func reference(data []byte, headCap, tailCap int) (head, tail []byte, omitted int64) {
	if len(data) <= headCap+tailCap {
		return data, nil, 0
	}
	headEnd, tailStart := headCap, len(data)-tailCap
	if start, _, ok := runeAround(data, headEnd); ok {
		headEnd = start
	}
	if tailCap > 0 {
		if _, end, ok := runeAround(data, tailStart); ok {
			tailStart = end
		}
	} else {
		tailStart = len(data)
	}
	head, tail = data[:headEnd], data[tailStart:]
	return head, tail, int64(len(data) - len(head) - len(tail))
}

// runeAround reports the valid UTF-8 character that starts before cut and
// ends after it, if there is one.
func runeAround(data []byte, cut int) (start, end int, ok bool) {
	for i := cut - 1; i >= 0 && i >= cut-(utf8.UTFMax-1); i-- {
		if !utf8.RuneStart(data[i]) {
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return 0, 0, false
		}
		return i, i + size, i+size > cut
	}
	return 0, 0, false
}
