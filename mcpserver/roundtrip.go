package mcpserver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Approval round trips. A client of protocol 2026-07-28 answers the
// server's question by calling the tool again with the answer and the
// round-trip state the server handed out. The state is the server's own
// word: a random nonce and an expiry, authenticated with an HMAC keyed by
// a secret of this process over the nonce, the expiry, the MCP session and
// the exact command. A nonce is good once. Anything else (a state the
// server did not issue, for another session or command, expired or
// replayed) is ignored and the question is asked again.
const (
	roundTripTTL   = 10 * time.Minute
	maxOpenRounds  = 4096
	roundTripLabel = "approve"
)

type roundTrips struct {
	secret [32]byte

	mu   sync.Mutex
	open map[string]time.Time // nonce (hex) -> expiry, questions not yet answered
	now  func() time.Time
}

func newRoundTrips() *roundTrips {
	rt := &roundTrips{open: map[string]time.Time{}, now: time.Now}
	if _, err := rand.Read(rt.secret[:]); err != nil {
		panic("mcpserver: no randomness for the approval secret: " + err.Error())
	}
	return rt
}

// issue returns the state of a new question about command in session.
func (rt *roundTrips) issue(session, command string) string {
	var n [16]byte
	if _, err := rand.Read(n[:]); err != nil {
		panic("mcpserver: no randomness for a nonce: " + err.Error())
	}
	nonce := hex.EncodeToString(n[:])
	exp := rt.now().Add(roundTripTTL)
	rt.mu.Lock()
	rt.expireLocked()
	for len(rt.open) >= maxOpenRounds { // drop the oldest question
		oldest, at := "", time.Time{}
		for k, v := range rt.open {
			if oldest == "" || v.Before(at) {
				oldest, at = k, v
			}
		}
		delete(rt.open, oldest)
	}
	rt.open[nonce] = exp
	rt.mu.Unlock()
	body := roundTripLabel + "." + nonce + "." + strconv.FormatInt(exp.Unix(), 10)
	return body + "." + rt.mac(body, session, command)
}

// redeem reports whether state is a question this server asked in session
// about exactly command, not expired and not answered before; it spends it.
func (rt *roundTrips) redeem(state, session, command string) bool {
	parts := strings.Split(state, ".")
	if len(parts) != 4 || parts[0] != roundTripLabel {
		return false
	}
	body := strings.Join(parts[:3], ".")
	if !hmac.Equal([]byte(parts[3]), []byte(rt.mac(body, session, command))) {
		return false
	}
	rt.mu.Lock()
	_, open := rt.open[parts[1]]
	delete(rt.open, parts[1]) // spent, whether in time or not
	rt.mu.Unlock()
	sec, err := strconv.ParseInt(parts[2], 10, 64)
	return open && err == nil && rt.now().Before(time.Unix(sec, 0))
}

func (rt *roundTrips) mac(body, session, command string) string {
	h := hmac.New(sha256.New, rt.secret[:])
	for _, s := range []string{body, session, command} {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

func (rt *roundTrips) expireLocked() {
	now := rt.now()
	for k, v := range rt.open {
		if !now.Before(v) {
			delete(rt.open, k)
		}
	}
}
