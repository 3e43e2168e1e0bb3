//go:build linux

package session_test

import (
	"slices"
	"time"
)

// median sorts ds and returns its middle element.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
