package textfmt

import (
	"strings"
	"unicode/utf8"
)

// Bytes that start or end escape sequences.
const (
	esc    = 0x1b // ESC: starts every 7-bit sequence
	bel    = 0x07 // BEL: ends an OSC string, as xterm allows
	c1CSI  = 0x9b // 8-bit CSI, when not part of a UTF-8 character
	stByte = '\\' // ESC \ is ST, the string terminator
)

// StripANSI returns s without its ANSI/VT escape sequences:
//
//   - CSI: ESC [ (or a lone 8-bit 0x9B byte that is not part of a valid UTF-8
//     character), parameter and intermediate bytes, and a final byte in
//     0x40–0x7E, as in ESC[1;31m or ESC[?25l;
//   - OSC: ESC ] up to BEL or ESC \, as in titles and OSC 8 hyperlinks;
//   - DCS, SOS, PM and APC: ESC P, X, ^ or _ up to ESC \;
//   - other escapes: ESC, any intermediate bytes 0x20–0x2F, and one final byte
//     0x30–0x7E, as in ESC M, ESC 7 or the charset selection ESC ( B.
//
// Other control characters, \n, \t and \r among them, are kept, including
// those inside a CSI sequence, which a terminal executes as it parses. A
// sequence interrupted by an ESC (or, in CSI, by a byte of 0x80 or more) is
// removed up to that byte, which is then read afresh. An unterminated
// escape or CSI sequence at the end of s is removed; an unterminated OSC,
// DCS, SOS, PM or APC string loses only its introducer, so one stray
// ESC ] cannot hide the rest of the output.
//
// StripANSI runs in linear time, never panics, and returns s without
// allocating when it has nothing to remove.
func StripANSI(s string) string {
	if strings.IndexByte(s, esc) < 0 && strings.IndexByte(s, c1CSI) < 0 {
		return s
	}
	st := stripper{s: s}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == esc:
			i = st.escape(i)
		case c < utf8.RuneSelf:
			i++
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			if size == 1 && c == c1CSI {
				i = st.csi(i, i+1)
			} else {
				i += size
			}
		}
	}
	return st.result()
}

// stripper copies s to out without the byte ranges it is told to drop. It
// allocates nothing until the first drop.
type stripper struct {
	s    string
	out  strings.Builder
	kept int  // s[kept:] has not been copied to out or dropped yet
	used bool // out holds the result so far
}

// drop removes s[from:to] from the result; from >= the end of the last drop.
func (st *stripper) drop(from, to int) {
	if !st.used {
		st.out.Grow(len(st.s) - (to - from))
		st.used = true
	}
	st.out.WriteString(st.s[st.kept:from])
	st.kept = to
}

// result returns s with the dropped ranges removed.
func (st *stripper) result() string {
	if !st.used {
		return st.s
	}
	st.out.WriteString(st.s[st.kept:])
	return st.out.String()
}

// escape drops the sequence that starts with the ESC at s[i] and returns the
// index of the first byte after it.
func (st *stripper) escape(i int) int {
	s := st.s
	j := i + 1
	if j == len(s) {
		st.drop(i, j)
		return j
	}
	switch s[j] {
	case '[':
		return st.csi(i, j+1)
	case ']':
		return st.controlString(i, j+1, true)
	case 'P', 'X', '^', '_':
		return st.controlString(i, j+1, false)
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
		j++
	}
	st.drop(i, j)
	return j
}

// csi drops the CSI sequence that starts at s[start] and whose parameters
// start at s[j], and returns the index of the first byte after it.
func (st *stripper) csi(start, j int) int {
	s := st.s
	for ; j < len(s); j++ {
		switch c := s[j]; {
		case c >= 0x40 && c <= 0x7e: // final byte
			st.drop(start, j+1)
			return j + 1
		case c >= 0x20 && c <= 0x3f, c == 0x7f: // parameter, intermediate, or ignored DEL
		case c == esc, c >= 0x80: // interrupts the sequence; read it afresh
			st.drop(start, j)
			return j
		default: // another control character: kept, and the sequence goes on
			st.drop(start, j)
			start = j + 1
		}
	}
	st.drop(start, len(s))
	return len(s)
}

// controlString drops the OSC, DCS, SOS, PM or APC string that starts at
// s[start] and whose content starts at s[j], up to ESC \ (or BEL, if
// belEnds), and returns the index of the first byte after it. An ESC not
// followed by \ ends the string and is read afresh. An unterminated string
// loses only its introducer.
func (st *stripper) controlString(start, j int, belEnds bool) int {
	s, content := st.s, j
	for ; j < len(s); j++ {
		switch s[j] {
		case bel:
			if belEnds {
				st.drop(start, j+1)
				return j + 1
			}
		case esc:
			if j+1 < len(s) && s[j+1] == stByte {
				st.drop(start, j+2)
				return j + 2
			}
			st.drop(start, j)
			return j
		}
	}
	// Unterminated: a terminal would swallow the rest, but a model must
	// not lose the output behind one stray introducer, so only the
	// introducer goes.
	st.drop(start, content)
	return content
}
