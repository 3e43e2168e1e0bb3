//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package session

import (
	"context"
	"errors"

	"github.com/shellcap/shellcap"
)

// ErrClosed reports a call on a closed Session.
var ErrClosed = errors.New("session: closed")

// Session is a long-lived bash; on this platform it cannot be started.
type Session struct{}

// New returns shellcap.ErrUnsupported on this platform.
func New(ctx context.Context, sh *shellcap.Shell, opts Options) (*Session, error) {
	return nil, shellcap.ErrUnsupported
}

// Run returns shellcap.ErrUnsupported on this platform.
func (s *Session) Run(ctx context.Context, req Request) (*Result, error) {
	return nil, shellcap.ErrUnsupported
}

// Restart returns shellcap.ErrUnsupported on this platform.
func (s *Session) Restart(ctx context.Context) error { return shellcap.ErrUnsupported }

// Close does nothing on this platform.
func (s *Session) Close() error { return nil }
