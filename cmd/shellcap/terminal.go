package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// colour wraps s in an ANSI colour when w is a terminal and NO_COLOR is not
// set (https://no-color.org).
func colour(w io.Writer, code, s string) string {
	if _, off := os.LookupEnv("NO_COLOR"); off || !isTerminal(w) {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// progressLine shows, on a terminal only, how long a command has run and
// how much it printed, on one line it rewrites and finally clears.
type progressLine struct {
	w     io.Writer
	bytes atomic.Int64
	stop  chan struct{}
	done  sync.WaitGroup
}

func startProgress(w io.Writer) *progressLine {
	p := &progressLine{w: w}
	if !isTerminal(w) {
		return p
	}
	p.stop = make(chan struct{})
	start := time.Now()
	p.done.Go(func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				fmt.Fprint(p.w, "\r\x1b[K")
				return
			case <-tick.C:
				msg := fmt.Sprintf("running %s, %d bytes of output", time.Since(start).Round(100*time.Millisecond), p.bytes.Load())
				fmt.Fprint(p.w, "\r\x1b[K"+colour(p.w, "2", msg))
			}
		}
	})
	return p
}

// count is a Request.OnOutput callback.
func (p *progressLine) count(n int) { p.bytes.Add(int64(n)) }

// end clears the line.
func (p *progressLine) end() {
	if p.stop != nil {
		close(p.stop)
		p.done.Wait()
	}
}
