package textfmt

import (
	"strconv"
	"time"
)

// FormatSeconds returns d in seconds as the shortest decimal that reads back
// to the same float64, followed by "s": "0.5s", "30s", "120s", "0.001s",
// "1.25s". Zero is "0s", and a negative d keeps its sign.
func FormatSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
