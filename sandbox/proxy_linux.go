package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// proxyPort is the port the allowlist proxy listens on, on 127.0.0.1 of the
// sandbox's own network namespace.
const proxyPort = 3128

// proxyURL is what the command's HTTP_PROXY and friends say.
var proxyURL = fmt.Sprintf("http://127.0.0.1:%d", proxyPort)

const (
	// maxProxyHeader bounds a request line and its headers.
	maxProxyHeader = 64 << 10
	// proxyHeaderWait bounds the wait for a complete request header.
	proxyHeaderWait = time.Minute
	// proxyDialTimeout bounds resolving and connecting to an allowed
	// destination.
	proxyDialTimeout = 30 * time.Second
)

var (
	// proxyLookup resolves allowed names and proxyDial connects; tests
	// replace them. Wrap copies both into each proxy it starts.
	proxyLookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	proxyDial = (&net.Dialer{}).DialContext
	// proxyStarted, when set (by tests), is called with every proxy Wrap
	// starts.
	proxyStarted func(*proxy)
)

// proxy is the host side of the network allowlist: an HTTP proxy that
// serves CONNECT and absolute-form requests from inside the sandbox,
// checking each destination against the rules before resolving or dialing
// anything.
type proxy struct {
	rules  allowlist
	limits proxyLimits
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	dial   func(ctx context.Context, network, address string) (net.Conn, error)

	ctx    context.Context // canceled by stop
	cancel context.CancelFunc
	done   chan struct{} // closed when stop has finished

	mu     sync.Mutex
	closed bool
	ln     net.Listener
	conns  map[net.Conn]struct{}
	// clients counts the client connections being served.
	clients int
	wg      sync.WaitGroup
}

func newProxy(rules allowlist, limits proxyLimits) *proxy {
	ctx, cancel := context.WithCancel(context.Background())
	return &proxy{
		rules: rules, limits: limits, lookup: proxyLookup, dial: proxyDial,
		ctx: ctx, cancel: cancel, done: make(chan struct{}),
		conns: map[net.Conn]struct{}{},
	}
}

// serve accepts connections on ln until stop.
func (p *proxy) serve(ln net.Listener) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		ln.Close()
		return
	}
	p.ln = ln
	p.wg.Add(1)
	go p.accept(ln)
}

func (p *proxy) accept(ln net.Listener) {
	defer p.wg.Done()
	backoff := time.Millisecond
	for {
		c, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// Out of descriptors or a connection reset before accept:
			// retry after a pause, as net/http does.
			select {
			case <-p.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = time.Millisecond
		if why := p.admit(); why != "" {
			refuseBusy(c, why)
			continue
		}
		if !p.track(c) || !p.spawn(func() { defer p.leave(); p.handle(c) }) {
			p.leave()
			c.Close()
			return
		}
	}
}

// stop closes the listener and every open connection, and returns once
// every goroutine of the proxy has ended. It may be called more than once.
func (p *proxy) stop() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.done
		return
	}
	p.closed = true
	p.cancel()
	if p.ln != nil {
		p.ln.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	close(p.done)
}

// track records c so that stop closes it; false means the proxy is
// stopping and c was not recorded.
func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

// release closes c and forgets it.
func (p *proxy) release(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

// spawn runs f in a goroutine stop waits for; false means the proxy is
// stopping and f did not run.
func (p *proxy) spawn(f func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		f()
	}()
	return true
}

// handle serves one client connection: one CONNECT tunnel or one forwarded
// request.
func (p *proxy) handle(c net.Conn) {
	defer p.release(c)
	c.SetReadDeadline(time.Now().Add(proxyHeaderWait))
	lim := &headerLimit{r: c, left: maxProxyHeader}
	br := bufio.NewReader(lim)
	req, err := http.ReadRequest(br)
	switch {
	case err == io.EOF:
		return // closed without a request
	case err != nil && lim.left <= 0:
		reply(c, http.StatusBadRequest, "request header larger than 64 KiB")
		return
	case err != nil:
		reply(c, http.StatusBadRequest, "malformed request")
		return
	}
	if lim.left == 0 {
		// The header, and what came right after it, filled the limit.
		reply(c, http.StatusBadRequest, "request header larger than 64 KiB")
		return
	}
	lim.left = -1
	// From here on, the connection and its destination share an idle
	// timer.
	act := newActivity()
	ic := &idleConn{Conn: c, idle: p.limits.idle, act: act}
	lim.r = ic
	if req.Method == http.MethodConnect {
		p.tunnel(ic, br, req, act)
		return
	}
	p.forward(ic, req, act)
}

// tunnel answers CONNECT host:port: after the check, it connects and copies
// both ways until both sides are done.
func (p *proxy) tunnel(c net.Conn, br *bufio.Reader, req *http.Request, act *activity) {
	if strings.HasPrefix(req.RequestURI, "/") {
		reply(c, http.StatusBadRequest, "CONNECT takes host:port")
		return
	}
	raw, ok := p.open(c, req.RequestURI)
	if !ok {
		return
	}
	defer p.release(raw)
	up := &idleConn{Conn: raw, idle: p.limits.idle, act: act}
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	sent := make(chan struct{})
	if !p.spawn(func() {
		defer close(sent)
		copyPlain(up, br) // br first hands over what the client sent early
		closeWrite(up)
	}) {
		return
	}
	copyPlain(c, up)
	closeWrite(c)
	<-sent
}

// forward passes one absolute-form request (GET http://host/path) to its
// destination and the response back, then closes the connection.
func (p *proxy) forward(c net.Conn, req *http.Request, act *activity) {
	if !req.URL.IsAbs() || req.URL.Host == "" {
		reply(c, http.StatusBadRequest, "this proxy takes CONNECT host:port or absolute-form requests such as GET http://host/path")
		return
	}
	if !strings.EqualFold(req.URL.Scheme, "http") {
		reply(c, http.StatusBadRequest, "only http:// URLs are forwarded; use CONNECT for other schemes")
		return
	}
	hostport := req.URL.Host
	if req.URL.Port() == "" {
		hostport = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	raw, ok := p.open(c, hostport)
	if !ok {
		return
	}
	defer p.release(raw)
	up := &idleConn{Conn: raw, idle: p.limits.idle, act: act}
	if strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
		// The body is sent whole below: ask for it now rather than let
		// the client wait out its own timer.
		req.Header.Del("Expect")
		if _, err := io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
			return
		}
	}
	dropHopHeaders(req.Header)
	req.RequestURI = ""
	req.Host = req.URL.Host
	req.Close = true
	bw := bufio.NewWriter(up)
	if err := req.Write(bw); err != nil || bw.Flush() != nil {
		reply(c, http.StatusBadGateway, "could not send the request")
		return
	}
	ubr := bufio.NewReader(up)
	for {
		resp, err := http.ReadResponse(ubr, req)
		if err != nil {
			reply(c, http.StatusBadGateway, "no valid response from the destination")
			return
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			continue // interim responses stay between us and the destination
		}
		dropHopHeaders(resp.Header)
		resp.Header.Set("Connection", "close")
		resp.Close = true
		resp.Write(c)
		resp.Body.Close()
		return
	}
}

// open checks hostport against the rules and, only when allowed, resolves
// and connects to it. On failure it has answered the client.
func (p *proxy) open(c net.Conn, hostport string) (net.Conn, bool) {
	t, err := parseTarget(hostport)
	if err != nil {
		reply(c, http.StatusBadRequest, "invalid destination: "+err.Error())
		return nil, false
	}
	if !p.rules.allows(t) {
		reply(c, http.StatusForbidden, t.String()+" is not on the sandbox allowlist")
		return nil, false
	}
	up, err := p.connect(t)
	if err != nil {
		reply(c, http.StatusBadGateway, "cannot reach "+t.String()+": "+err.Error())
		return nil, false
	}
	if !p.track(up) {
		up.Close()
		return nil, false
	}
	return up, true
}

// connect resolves an allowed target when it is a name and dials its
// addresses in turn, within proxyDialTimeout.
func (p *proxy) connect(t target) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(p.ctx, proxyDialTimeout)
	defer cancel()
	addrs := []netip.Addr{t.addr}
	if !t.addr.IsValid() {
		var err error
		if addrs, err = p.lookup(ctx, t.host); err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, errors.New("no address")
		}
	}
	var first error
	for _, a := range addrs {
		c, err := p.dial(ctx, "tcp", netip.AddrPortFrom(a.Unmap().WithZone(""), t.port).String())
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// hopHeaders concern one connection and are not passed on.
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

func dropHopHeaders(h http.Header) {
	for _, f := range h["Connection"] {
		for _, name := range strings.Split(f, ",") {
			h.Del(strings.TrimSpace(name))
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}

// reply writes a complete plain-text response that closes the connection.
func reply(w io.Writer, code int, msg string) {
	body := "shellcap sandbox proxy: " + msg + "\n"
	fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, http.StatusText(code), len(body), body)
}

// copyPlain copies through a buffer, never with splice(2): splice keeps a
// cached pipe pair per thread that outlives the tunnel, which descriptor
// accounting (ours in tests, a caller's) would take for a leak.
func copyPlain(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	io.CopyBuffer(struct{ io.Writer }{dst}, struct{ io.Reader }{src}, buf)
}

// closeWrite half-closes c when it can, so the peer sees the end of the
// stream while the other direction goes on.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}

// headerLimit lets at most left bytes through while the request header is
// read; a negative left lifts the limit.
type headerLimit struct {
	r    io.Reader
	left int
}

var errHeaderTooLarge = errors.New("request header too large")

func (l *headerLimit) Read(b []byte) (int, error) {
	if l.left < 0 {
		return l.r.Read(b)
	}
	if l.left == 0 {
		return 0, errHeaderTooLarge
	}
	if len(b) > l.left {
		b = b[:l.left]
	}
	n, err := l.r.Read(b)
	l.left -= n
	return n, err
}
