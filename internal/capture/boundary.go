package capture

import "unicode/utf8"

// cuts says which held bytes Head and Tail show.
type cuts struct {
	dropped  bool  // some byte between head and tail is gone
	headLen  int   // bytes of b.head shown, when dropped
	tailFrom int   // index in b.tail of the first byte shown, when dropped
	omitted  int64 // bytes written but shown by neither Head nor Tail
}

// cuts computes the cuts for the buffer's current content, moving each cut off
// any UTF-8 character it would split. The caller holds b.mu.
func (b *Buffer) cuts() cuts {
	tailLen := min(b.tail.len(), b.tailCap)
	raw := b.total - int64(len(b.head)) - int64(tailLen)
	if raw == 0 {
		return cuts{}
	}
	c := cuts{dropped: true, headLen: len(b.head)}
	before := b.head[max(0, len(b.head)-(utf8.UTFMax-1)):]
	inHead, _ := straddle(before, b.afterHead[:b.afterHeadLen])
	c.headLen -= inHead

	if tailLen > 0 {
		var ctx, first [utf8.UTFMax - 1]byte
		excess := b.tail.len() - tailLen
		n := 0
		if int64(b.tail.len()) == b.total-int64(len(b.head)) {
			// The ring never dropped a byte, so the head's end comes right
			// before the ring's start.
			k := min(len(ctx)-excess, len(b.head))
			n = copy(ctx[:], b.head[len(b.head)-k:])
		}
		for i := range excess {
			ctx[n] = b.tail.at(i)
			n++
		}
		m := min(len(first), tailLen)
		for i := range m {
			first[i] = b.tail.at(excess + i)
		}
		_, inTail := straddle(ctx[:n], first[:m])
		c.tailFrom = excess + inTail
	}
	c.omitted = b.total - int64(c.headLen) - int64(b.tail.len()-c.tailFrom)
	return c
}

// appendHead appends to dst the head as Head shows it.
func (b *Buffer) appendHead(dst []byte, c cuts) []byte {
	if !c.dropped {
		// Nothing was dropped: the head and the ring hold the whole stream.
		return b.tail.appendFrom(append(dst, b.head...), 0)
	}
	return append(dst, b.head[:c.headLen]...)
}

// appendTail appends to dst the tail as Tail shows it.
func (b *Buffer) appendTail(dst []byte, c cuts) []byte {
	if !c.dropped || b.tail.len() == 0 {
		return dst
	}
	return b.tail.appendFrom(dst, c.tailFrom)
}

// straddle looks for a valid UTF-8 character that starts in before and ends in
// after, where before holds at most the utf8.UTFMax-1 bytes just before a cut
// and after the bytes just after it. It returns how many of the character's
// bytes lie on each side, or 0, 0 when no character is split. A byte that is
// not part of a valid encoding is never treated as part of a character, so
// invalid UTF-8 is kept as it is.
func straddle(before, after []byte) (inBefore, inAfter int) {
	for i := len(before) - 1; i >= 0; i-- {
		if !utf8.RuneStart(before[i]) {
			continue
		}
		var seq [utf8.UTFMax]byte
		n := copy(seq[:], before[i:])
		n += copy(seq[n:], after)
		r, size := utf8.DecodeRune(seq[:n])
		inBefore = len(before) - i
		if (r == utf8.RuneError && size == 1) || size <= inBefore {
			return 0, 0
		}
		return inBefore, size - inBefore
	}
	return 0, 0
}
