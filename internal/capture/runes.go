package capture

import (
	"strconv"
	"unicode/utf8"
)

// BytesWithin is [Buffer.Bytes] with the head cut to at most headRunes code
// points and the tail to at most its last tailRunes (an invalid byte counts
// as one): what a caller with budgets in characters shows. When the whole
// stream has at most headRunes+tailRunes code points and nothing was
// dropped, it is returned whole. The marker line counts every byte left
// out, so omitted is also what it reports (0 when nothing is).
func (b *Buffer) BytesWithin(headRunes, tailRunes int) (out []byte, omitted int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.cuts()
	head := b.appendHead(nil, c)
	var tail []byte
	if c.dropped {
		tail = b.appendTail(nil, c)
	} else {
		if utf8.RuneCount(head) <= headRunes+tailRunes {
			return head, 0
		}
		tail = append([]byte(nil), head...) // out is built over head
	}
	head = head[:prefixLen(head, headRunes)]
	tail = tail[len(tail)-suffixLen(tail, tailRunes):]
	omitted = b.total - int64(len(head)) - int64(len(tail))
	if omitted == 0 {
		return append(head, tail...), 0
	}
	out = append(head, "\n[... "...)
	out = strconv.AppendInt(out, omitted, 10)
	out = append(out, " bytes omitted ...]\n"...)
	return append(out, tail...), omitted
}

// prefixLen returns the length in bytes of the first n code points of p.
func prefixLen(p []byte, n int) int {
	i := 0
	for ; n > 0 && i < len(p); n-- {
		_, size := utf8.DecodeRune(p[i:])
		i += size
	}
	return i
}

// suffixLen returns the length in bytes of the last n code points of p.
func suffixLen(p []byte, n int) int {
	j := len(p)
	for ; n > 0 && j > 0; n-- {
		_, size := utf8.DecodeLastRune(p[:j])
		j -= size
	}
	return len(p) - j
}
