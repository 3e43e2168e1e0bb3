package temporal

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// MaxResultBytes bounds what an activity returns, as JSON. Temporal fails
// an activity whose result is over its payload limit (2 MB by default), and
// the command's output would be lost with it; a Shell whose output caps are
// large (or off) can produce more. So a larger result gives up the middle of
// its longest strings first — stdout, stderr, the structured copies —, the
// text the model reads last, each cut marked with the bytes it left out.
const MaxResultBytes = 1 << 20

// fit returns v, or, when its JSON is over MaxResultBytes, a copy whose
// longest strings are cut in the middle until it is not.
func fit[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil || len(b) <= MaxResultBytes {
		return v
	}
	var tree any
	if json.Unmarshal(b, &tree) != nil {
		return v
	}
	shrink(tree, len(b)-MaxResultBytes)
	small, err := json.Marshal(tree)
	if err != nil {
		return v
	}
	var out T
	if json.Unmarshal(small, &out) != nil {
		return v
	}
	return out
}

// leaf is one string of a decoded JSON tree and how to replace it.
type leaf struct {
	s   string
	key string // the object key it is under ("" in an array)
	set func(string)
}

// shrink cuts the strings of tree until its JSON is at least excess bytes
// shorter: the longest first, the model's "text" only when the others do
// not suffice.
func shrink(tree any, excess int) {
	var leaves []*leaf
	collect(tree, "", func(l *leaf) { leaves = append(leaves, l) })
	for _, textToo := range []bool{false, true} {
		for excess > 0 {
			i := -1
			for j, l := range leaves {
				if (l.key != "text" || textToo) && len(l.s) > 2*keepEach && (i < 0 || len(l.s) > len(leaves[i].s)) {
					i = j
				}
			}
			if i < 0 {
				break
			}
			l := leaves[i]
			before := jsonLen(l.s)
			l.s = cutMiddle(l.s, min(len(l.s)-2*keepEach, excess+len(l.s)/8+64))
			l.set(l.s)
			excess -= before - jsonLen(l.s)
			leaves = slices.Delete(leaves, i, i+1) // one cut each: its marker says how much went
		}
	}
}

// keepEach is the least a cut keeps of each end of a string.
const keepEach = 1024

func collect(v any, key string, add func(*leaf)) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			if s, ok := c.(string); ok {
				add(&leaf{s: s, key: k, set: func(n string) { t[k] = n }})
				continue
			}
			collect(c, k, add)
		}
	case []any:
		for i, c := range t {
			if s, ok := c.(string); ok {
				add(&leaf{s: s, set: func(n string) { t[i] = n }})
				continue
			}
			collect(c, "", add)
		}
	}
}

// cutMiddle removes about n bytes from the middle of s, on character
// boundaries, and marks the gap as the library marks omitted output.
func cutMiddle(s string, n int) string {
	head := (len(s) - n) / 2
	tail := len(s) - (len(s) - n - head)
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return fmt.Sprintf("%s\n[... %d bytes omitted: the result would exceed Temporal's payload limit ...]\n%s", s[:head], tail-head, s[tail:])
}

func jsonLen(s string) int {
	b, _ := json.Marshal(s)
	return len(b)
}
