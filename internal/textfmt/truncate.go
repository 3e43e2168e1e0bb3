package textfmt

import (
	"strconv"
	"unicode/utf8"
)

// The marker TruncateTail puts before the kept tail, around its length in runes.
const (
	tailMarkerPrefix = "[... output truncated, showing last "
	tailMarkerSuffix = " chars]\n"
)

// The marker TruncateHeadTail puts between the kept head and tail, around the
// number of runes dropped.
const (
	middleMarkerPrefix = "\n[... "
	middleMarkerSuffix = " chars omitted ...]\n"
)

// TruncateTail returns s unchanged if it has at most maxChars runes, or if
// maxChars <= 0. Otherwise it drops the head of s and returns
// "[... output truncated, showing last N chars]\n" followed by the last N
// runes of s, with N chosen so that the whole result, marker included, has at
// most maxChars runes. When maxChars is too small to hold the marker and one
// rune, it returns the last maxChars runes of s with no marker.
//
// The choice of N is a contract shared with another tool:
// N = maxChars - len(marker(maxChars)), then raised by one if
// len(marker(N+1)) + N+1 <= maxChars still holds.
func TruncateTail(s string, maxChars int) string {
	if maxChars <= 0 {
		return s
	}
	count := utf8.RuneCountInString(s)
	if count <= maxChars {
		return s
	}
	n := maxChars - tailMarkerLen(maxChars)
	// Counting the marker at maxChars's width can leave one rune unused when
	// the marker for the smaller N is a digit shorter; take it back, once.
	if n+1 >= 1 && tailMarkerLen(n+1)+(n+1) <= maxChars {
		n++
	}
	if n <= 0 {
		return lastRunes(s, count, maxChars)
	}
	return tailMarkerPrefix + strconv.Itoa(n) + tailMarkerSuffix + lastRunes(s, count, n)
}

// TruncateHeadTail returns s unchanged if it has at most maxChars runes, or if
// maxChars <= 0. Otherwise it keeps both ends of s: the first half of the
// budget left after the marker "\n[... N chars omitted ...]\n", that marker
// with N the number of runes dropped, then the last half (the tail gets the
// odd rune). The result never has more than maxChars runes. When maxChars is
// too small for the marker and a rune at each end, it returns
// TruncateTail(s, maxChars).
func TruncateHeadTail(s string, maxChars int) string {
	if maxChars <= 0 {
		return s
	}
	count := utf8.RuneCountInString(s)
	if count <= maxChars {
		return s
	}
	// The marker's length depends on the number it shows, which depends on
	// the marker's length: try widths until the number fits. The first
	// width that fits is exact, so the result is exactly maxChars runes.
	for width := 1; ; width++ {
		kept := maxChars - len(middleMarkerPrefix) - width - len(middleMarkerSuffix)
		if kept < 2 {
			return TruncateTail(s, maxChars)
		}
		omitted := count - kept
		if decimalWidth(omitted) > width {
			continue
		}
		head := kept / 2
		return firstRunes(s, head) +
			middleMarkerPrefix + strconv.Itoa(omitted) + middleMarkerSuffix +
			lastRunes(s, count, kept-head)
	}
}

// tailMarkerLen returns the length in runes of TruncateTail's marker for n.
func tailMarkerLen(n int) int {
	return len(tailMarkerPrefix) + decimalWidth(n) + len(tailMarkerSuffix)
}

// decimalWidth returns the number of characters strconv.Itoa(n) has.
func decimalWidth(n int) int {
	width := 1
	if n < 0 {
		width++
	}
	for n <= -10 || n >= 10 {
		n /= 10
		width++
	}
	return width
}

// firstRunes returns the first n runes of s; an invalid byte counts as one.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// lastRunes returns the last n runes of s, which has count runes.
func lastRunes(s string, count, n int) string {
	skip := count - n
	for i := range s {
		if skip <= 0 {
			return s[i:]
		}
		skip--
	}
	return ""
}
