package sandbox

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"
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

// admit counts a new client connection in, or reports that the sandbox
// already holds as many as it may.
func (p *proxy) admit() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.clients >= p.limits.conns {
		return false
	}
	p.clients++
	return true
}

// leave counts a client connection out.
func (p *proxy) leave() {
	p.mu.Lock()
	p.clients--
	p.mu.Unlock()
}

// refuseBusy answers a connection over the limit and closes it. The reply
// fits in a fresh socket's buffer; the deadline only guards a peer that
// somehow has none.
func (p *proxy) refuseBusy(c net.Conn) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	reply(c, http.StatusServiceUnavailable, fmt.Sprintf("this sandbox already holds %d proxy connections, its limit; close some and retry", p.limits.conns))
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
