package sandbox

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// proxyLimits bound what one sandbox's proxy holds: client connections at
// once, and how long a connection may stay silent both ways. With them,
// the host process's descriptors a sandbox can take are at most about
// twice conns (a client and its destination each), whatever the command
// does.
type proxyLimits struct {
	conns int
	idle  time.Duration
}

// defaultProxyLimits are the limits of a zero Config.
var defaultProxyLimits = proxyLimits{conns: DefaultProxyConns, idle: DefaultProxyIdle}

// proxyBudget bounds the client connections of every proxy of this
// process together, so that many sandboxes at their own limits still
// leave the process most of its descriptors: each client costs two (it
// and its destination), and the budget is a quarter of the soft
// RLIMIT_NOFILE, read at the first connection.
var proxyBudget struct {
	once sync.Once
	mu   sync.Mutex
	used int
	max  int
}

// proxyBudgetMax is the process-wide budget; tests may lower it.
func proxyBudgetMax() int {
	proxyBudget.once.Do(func() {
		var r unix.Rlimit
		proxyBudget.max = 256
		if unix.Getrlimit(unix.RLIMIT_NOFILE, &r) == nil && r.Cur/4 > 256 {
			proxyBudget.max = int(min(r.Cur/4, 1<<20))
		}
	})
	return proxyBudget.max
}

// admit counts a new client connection in, or says why it may not come
// in: the sandbox already holds as many as it may, or this process's
// proxies together do.
func (p *proxy) admit() (refusal string) {
	budget := proxyBudgetMax()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.clients >= p.limits.conns {
		return fmt.Sprintf("this sandbox already holds %d proxy connections, its limit; close some and retry", p.limits.conns)
	}
	proxyBudget.mu.Lock()
	defer proxyBudget.mu.Unlock()
	if proxyBudget.used >= budget {
		return fmt.Sprintf("the sandboxes of this host process already hold %d proxy connections, their limit; retry later", budget)
	}
	proxyBudget.used++
	p.clients++
	return ""
}

// leave counts a client connection out.
func (p *proxy) leave() {
	p.mu.Lock()
	p.clients--
	p.mu.Unlock()
	proxyBudget.mu.Lock()
	proxyBudget.used--
	proxyBudget.mu.Unlock()
}

// refuseBusy answers a connection over a limit and closes it. The reply
// fits in a fresh socket's buffer; the deadline only guards a peer that
// somehow has none.
func refuseBusy(c net.Conn, why string) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	reply(c, http.StatusServiceUnavailable, why)
	c.Close()
}

// activity is the time of the last byte a connection pair passed, either
// way.
type activity struct{ last atomic.Int64 }

func newActivity() *activity {
	a := &activity{}
	a.touch()
	return a
}

func (a *activity) touch() { a.last.Store(time.Now().UnixNano()) }

func (a *activity) quietFor() time.Duration {
	return time.Duration(time.Now().UnixNano() - a.last.Load())
}

// idleConn is a connection whose reads and writes give up once the pair it
// belongs to has been silent, both ways, for idle.
type idleConn struct {
	net.Conn
	idle time.Duration
	act  *activity
}

func (c *idleConn) Read(b []byte) (int, error) {
	for {
		c.Conn.SetReadDeadline(time.Now().Add(c.idle))
		n, err := c.Conn.Read(b)
		if n > 0 {
			c.act.touch()
		}
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) && c.act.quietFor() < c.idle {
			continue // the other direction is busy
		}
		return n, err
	}
}

func (c *idleConn) Write(b []byte) (int, error) {
	c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	n, err := c.Conn.Write(b)
	if n > 0 {
		c.act.touch()
	}
	return n, err
}

// CloseWrite half-closes the connection when it can.
func (c *idleConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
