package core

// Capture sizing: how much of each output stream an executor holds in
// memory. The model reads at most MaxOutputChars code points, and a code
// point is at most 4 bytes in UTF-8, so 4×MaxOutputChars bytes of each end
// of a stream are always enough for the text; the rest goes to a kept
// output file or is counted as omitted.
const (
	// minKeepBytes is the least kept of each end, so that a tiny
	// MaxOutputChars still leaves whole lines for the kept copy.
	minKeepBytes = 4096
	// unlimitedKeepBytes is kept of each end when MaxOutputChars is
	// negative (no cap on the text).
	unlimitedKeepBytes = 8 << 20
)

// KeepBytes returns how many bytes of its head, and as many of its tail,
// one output stream keeps in memory (capture.New(keep, keep, ...)) for a
// text cap of maxChars code points (negative: no cap) and an output cap of
// maxBytes (zero or negative: none): 4×maxChars, at least 4 KiB, 8 MiB
// without a text cap, never more than maxBytes. Both values are the
// resolved ones (defaults filled in).
func KeepBytes(maxChars int, maxBytes int64) int {
	keep := int64(unlimitedKeepBytes)
	if maxChars >= 0 {
		keep = 4 * int64(maxChars)
	}
	keep = max(keep, minKeepBytes)
	if maxBytes > 0 {
		keep = min(keep, maxBytes)
	}
	return int(keep)
}

// KeepBytes is [KeepBytes] for these settings.
func (s Settings) KeepBytes() int { return KeepBytes(s.MaxOutputChars, s.MaxOutputBytes) }

// Budget is an output stream's budget in characters of its beginning and
// its end (shellcap.Options.StdoutBudget, StderrBudget); the zero Budget
// means the default sizing above.
type Budget struct {
	Head, Tail int
}

// IsZero reports whether b is the zero Budget.
func (b Budget) IsZero() bool { return b == Budget{} }

// KeepBytes returns how many bytes of its head and of its tail one stream
// keeps in memory under b: [KeepBytes] for both with the zero Budget,
// otherwise 4 bytes per character of each end (what the result shows is
// then cut to the characters with capture's BytesWithin), never more than
// maxBytes.
func (b Budget) KeepBytes(maxChars int, maxBytes int64) (head, tail int) {
	if b.IsZero() {
		k := KeepBytes(maxChars, maxBytes)
		return k, k
	}
	bound := func(chars int) int {
		k := 4 * int64(chars)
		if maxBytes > 0 {
			k = min(k, maxBytes)
		}
		return int(k)
	}
	return bound(b.Head), bound(b.Tail)
}
