// Package textfmt shapes the text a model reads: truncation with markers that
// say what was cut, removal of terminal escape sequences, UTF-8 repair, Python
// repr quoting for messages, and durations in seconds.
//
// Lengths are counted in Unicode code points (runes), the unit model-facing
// tools usually budget in; an invalid UTF-8 byte counts as one. The exact
// output of [TruncateTail] is a contract shared with another tool: its
// arithmetic must not change.
//
// Every function is pure and safe for concurrent use. Those that rewrite a
// string (truncation, StripANSI, ValidUTF8) return it as it is, without
// allocating, when they have nothing to change.
package textfmt
