package capture

// ring keeps the last size bytes written to it. Until it first fills it grows
// like a slice, so a short stream costs little memory; once full it is
// overwritten in place and never allocates again.
type ring struct {
	buf   []byte // the held bytes; len(buf) == size once full
	size  int    // capacity in bytes; 0 keeps nothing
	start int    // index in buf of the oldest byte; 0 until the ring wraps
}

// len returns how many bytes the ring holds.
func (r *ring) len() int { return len(r.buf) }

// write appends p, overwriting the oldest bytes once the ring is full. A p of
// size bytes or more replaces the whole ring with its last size bytes in one
// copy.
func (r *ring) write(p []byte) {
	if r.size == 0 || len(p) == 0 {
		return
	}
	if len(p) >= r.size {
		if cap(r.buf) < r.size {
			r.buf = make([]byte, r.size)
		}
		r.buf = r.buf[:r.size]
		copy(r.buf, p[len(p)-r.size:])
		r.start = 0
		return
	}
	if len(r.buf) < r.size {
		n := min(r.size-len(r.buf), len(p))
		r.buf = appendBounded(r.buf, p[:n], r.size)
		p = p[n:]
		if len(p) == 0 {
			return
		}
	}
	n := copy(r.buf[r.start:], p)
	copy(r.buf, p[n:])
	r.start = (r.start + len(p)) % r.size
}

// segments returns the held bytes, oldest first, as two slices of the ring's
// storage. They alias the ring and are valid until the next write.
func (r *ring) segments() (older, newer []byte) {
	return r.buf[r.start:], r.buf[:r.start]
}

// at returns the i-th oldest held byte.
func (r *ring) at(i int) byte {
	return r.buf[(r.start+i)%len(r.buf)]
}

// appendFrom appends the held bytes from the i-th oldest on to dst.
func (r *ring) appendFrom(dst []byte, i int) []byte {
	older, newer := r.segments()
	if i < len(older) {
		dst = append(dst, older[i:]...)
		i = 0
	} else {
		i -= len(older)
	}
	return append(dst, newer[i:]...)
}

// minGrowth is the smallest allocation appendBounded makes, so that a stream
// of tiny writes does not reallocate on every one.
const minGrowth = 512

// appendBounded appends p to dst like append, but never lets the capacity of
// the result exceed limit. The caller guarantees len(dst)+len(p) <= limit.
func appendBounded(dst, p []byte, limit int) []byte {
	need := len(dst) + len(p)
	if need > cap(dst) {
		grown := make([]byte, len(dst), min(limit, max(2*cap(dst), need, minGrowth)))
		copy(grown, dst)
		dst = grown
	}
	return append(dst, p...)
}
