//go:build !unix

package shellcap

import (
	"context"
	"time"
)

const groupPoll = 10 * time.Millisecond

// execute is not implemented outside Unix.
func execute(ctx context.Context, sp *spawn) (*outcome, error) { return nil, ErrUnsupported }

func startError(err error, dir string) error { return err }

func writable(dir string) bool { return false }
