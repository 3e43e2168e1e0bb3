package jobs

import (
	"crypto/rand"
	"encoding/hex"
)

// idLen is the length of a job ID: 128 random bits in lower-case hex.
const idLen = 32

// newID returns a fresh job ID.
func newID() string {
	var b [idLen / 2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// validID reports whether id is well-formed: exactly 32 lower-case hex
// digits. Anything else is rejected before it reaches a file path.
func validID(id string) bool {
	if len(id) != idLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
