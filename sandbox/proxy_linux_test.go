package sandbox

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// hostProxy is a proxy serving on a host listener, as the host side would
// after the handoff, with a resolver that counts lookups.
type hostProxy struct {
	*proxy
	addr    string
	mu      sync.Mutex
	lookups []string
}

func newHostProxy(t *testing.T, rules ...string) *hostProxy {
	t.Helper()
	al, _, err := parseAllowlist(rules)
	if err != nil {
		t.Fatal(err)
	}
	h := &hostProxy{proxy: newProxy(al, defaultProxyLimits)}
	h.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		h.mu.Lock()
		h.lookups = append(h.lookups, host)
		h.mu.Unlock()
		if host == "svc.test" {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.addr = ln.Addr().String()
	h.serve(ln)
	t.Cleanup(h.stop)
	return h
}

func (h *hostProxy) resolved() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.lookups...)
}

// exchange sends raw to the proxy and returns its whole answer (the proxy
// closes the connection after every answer but a tunnel).
func (h *hostProxy) exchange(t *testing.T, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp4", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	return string(b)
}

// echoServer accepts connections on 127.0.0.1 and echoes what it reads;
// its closed channel gets one value per connection that ended.
func echoServer(t *testing.T) (port int, closed chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed = make(chan struct{}, 16)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				copyPlain(c, c) // not splice: its cached pipes would count as leaked
				c.Close()
				closed <- struct{}{}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().(*net.TCPAddr).Port, closed
}

func statusOf(resp string) string {
	line, _, _ := strings.Cut(resp, "\r\n")
	return line
}

func TestProxyRefusesBadRequests(t *testing.T) {
	h := newHostProxy(t, "svc.test:80", "127.0.0.1:80")
	cases := []struct{ name, raw, want string }{
		{"origin form", "GET /index.html HTTP/1.1\r\nHost: svc.test\r\n\r\n", "absolute-form"},
		{"garbage", "HELLO\r\n\r\n", "malformed"},
		{"bad version", "GET http://svc.test/ HTTP/9\r\n\r\n", "malformed"},
		{"oversized header", "GET http://svc.test/ HTTP/1.1\r\nX-Big: " + strings.Repeat("a", 70<<10) + "\r\n\r\n", "64 KiB"},
		{"https absolute form", "GET https://svc.test/ HTTP/1.1\r\n\r\n", "only http://"},
		{"CONNECT without port", "CONNECT svc.test HTTP/1.1\r\n\r\n", "missing :port"},
		{"CONNECT path", "CONNECT /svc.test:80 HTTP/1.1\r\n\r\n", "host:port"},
		{"CONNECT wildcard", "CONNECT *.svc.test:80 HTTP/1.1\r\n\r\n", "invalid destination"},
		{"CONNECT userinfo", "CONNECT user@svc.test:80 HTTP/1.1\r\n\r\n", "invalid destination"},
		{"CONNECT numeric name", "CONNECT 127.1:80 HTTP/1.1\r\n\r\n", "invalid destination"},
		{"CONNECT zone", "CONNECT [fe80::1%25lo]:80 HTTP/1.1\r\n\r\n", "invalid destination"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := h.exchange(t, c.raw)
			if statusOf(resp) != "HTTP/1.1 400 Bad Request" || !strings.Contains(resp, c.want) {
				t.Fatalf("got %q, want 400 with %q", resp, c.want)
			}
		})
	}
	if got := h.resolved(); len(got) != 0 {
		t.Fatalf("bad requests caused lookups: %q", got)
	}
}

func TestProxyDeniesBeforeResolving(t *testing.T) {
	h := newHostProxy(t, "svc.test:80", "*.wild.test:443")
	for _, dest := range []string{"svc.test:81", "other.test:80", "wild.test:443", "evil-wild.test:443", "127.0.0.1:80", "169.254.169.254:80", "[::1]:80"} {
		resp := h.exchange(t, "CONNECT "+dest+" HTTP/1.1\r\nHost: "+dest+"\r\n\r\n")
		if statusOf(resp) != "HTTP/1.1 403 Forbidden" || !strings.Contains(resp, dest+" is not on the sandbox allowlist") {
			t.Errorf("CONNECT %s: %q", dest, resp)
		}
	}
	resp := h.exchange(t, "GET http://other.test/x HTTP/1.1\r\nHost: svc.test\r\n\r\n")
	if statusOf(resp) != "HTTP/1.1 403 Forbidden" || !strings.Contains(resp, "other.test:80 is not") {
		t.Errorf("GET with a listed Host header: %q", resp)
	}
	if got := h.resolved(); len(got) != 0 {
		t.Fatalf("denied names were resolved: %q", got)
	}
	// An allowed name is resolved, and a failure is a 502.
	resp = h.exchange(t, "CONNECT a.wild.test:443 HTTP/1.1\r\n\r\n")
	if statusOf(resp) != "HTTP/1.1 502 Bad Gateway" {
		t.Errorf("unresolvable allowed name: %q", resp)
	}
	if got := h.resolved(); len(got) != 1 || got[0] != "a.wild.test" {
		t.Fatalf("lookups %q, want [a.wild.test]", got)
	}
}

func TestProxyTunnelAndStop(t *testing.T) {
	port, closed := echoServer(t)
	h := newHostProxy(t, "svc.test:"+strconv.Itoa(port))
	c, err := net.Dial("tcp4", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	// The first bytes of the tunnelled protocol travel with the request.
	io.WriteString(c, "CONNECT svc.test:"+strconv.Itoa(port)+" HTTP/1.1\r\n\r\nearly;")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	io.WriteString(c, "late\n")
	line, err := br.ReadString('\n')
	if err != nil || line != "early;late\n" {
		t.Fatalf("echo through the tunnel: %q %v", line, err)
	}
	// Stopping the proxy ends the open tunnel on both sides.
	h.stop()
	if _, err := br.ReadByte(); err == nil {
		t.Fatal("the tunnel outlived the proxy")
	}
	<-closed
	if _, err := net.Dial("tcp4", h.addr); err == nil {
		t.Fatal("the proxy listener outlived the proxy")
	}
}

func TestProxyTunnelHalfClose(t *testing.T) {
	port, _ := echoServer(t)
	h := newHostProxy(t, "127.0.0.1:"+strconv.Itoa(port))
	c, err := net.Dial("tcp4", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	io.WriteString(c, "CONNECT 127.0.0.1:"+strconv.Itoa(port)+" HTTP/1.1\r\n\r\nping")
	c.(*net.TCPConn).CloseWrite()
	b, err := io.ReadAll(c)
	if err != nil || !strings.HasSuffix(string(b), "\r\n\r\nping") {
		t.Fatalf("half-closed tunnel: %q %v", b, err)
	}
}

func TestProxyForward(t *testing.T) {
	var got http.Header
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		got.Set("X-Seen-Host", r.Host)
		got.Set("X-Seen-URI", r.RequestURI)
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Keep-Alive", "timeout=5")
		io.WriteString(w, "posted "+string(body))
	})}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	h := newHostProxy(t, "svc.test:"+port)
	resp := h.exchange(t, "POST http://SVC.test:"+port+"/p?q=1 HTTP/1.1\r\nHost: elsewhere.test\r\nProxy-Authorization: secret\r\nContent-Length: 4\r\nConnection: keep-alive, X-Drop\r\nX-Drop: 1\r\nX-Keep: 1\r\nExpect: 100-continue\r\n\r\nbody")
	resp, ok := strings.CutPrefix(resp, "HTTP/1.1 100 Continue\r\n\r\n")
	if !ok || statusOf(resp) != "HTTP/1.1 200 OK" || !strings.HasSuffix(resp, "posted body") || !strings.Contains(resp, "Connection: close") || strings.Contains(resp, "Keep-Alive") {
		t.Fatalf("forwarded POST: %q", resp)
	}
	if got.Get("X-Seen-Host") != "SVC.test:"+port || got.Get("X-Seen-URI") != "/p?q=1" || got.Get("Proxy-Authorization") != "" || got.Get("X-Drop") != "" || got.Get("X-Keep") != "1" {
		t.Fatalf("the destination saw %v", got)
	}
}

// TestProxyHandoffEOF checks that the proxy goroutine ends when the helper
// closes the control socket without sending, as when cmd never starts.
func TestProxyHandoffEOF(t *testing.T) {
	var started *proxy
	proxyStarted = func(p *proxy) { started = p }
	defer func() { proxyStarted = nil }()
	ctl, err := startProxy(nil, defaultProxyLimits)
	if err != nil {
		t.Fatal(err)
	}
	ctl.Close()
	select {
	case <-started.done:
	case <-time.After(time.Minute):
		t.Fatal("the proxy did not end after EOF on the control socket")
	}
}

// TestProxyHandoff passes a listener and a pidfd of a child over the
// control socket, as the helper does, and checks that the proxy serves on
// that listener until the child exits, then closes it and its tunnels.
func TestProxyHandoff(t *testing.T) {
	port, closed := echoServer(t)
	var started *proxy
	proxyStarted = func(p *proxy) { started = p }
	defer func() { proxyStarted = nil }()
	al, _, _ := parseAllowlist([]string{"127.0.0.1:" + strconv.Itoa(port)})
	ctl, err := startProxy(al, defaultProxyLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	lf, err := ln.(*net.TCPListener).File()
	ln.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	child, err := os.StartProcess("/bin/sleep", []string{"sleep", "600"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	defer child.Wait()
	defer child.Kill()
	pidfd, err := unix.PidfdOpen(child.Pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = sendHandoff(ctl, proxyPort, int(lf.Fd()), pidfd)
	unix.Close(pidfd)
	if err != nil {
		t.Fatal(err)
	}
	lf.Close() // the proxy has its own copy now

	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	io.WriteString(c, "CONNECT 127.0.0.1:"+strconv.Itoa(port)+" HTTP/1.1\r\n\r\nhi\n")
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT through the handed-over listener: %v %v", resp, err)
	}
	if line, err := br.ReadString('\n'); line != "hi\n" {
		t.Fatalf("echo: %q %v", line, err)
	}
	select {
	case <-started.done:
		t.Fatal("the proxy stopped while the child runs")
	default:
	}
	child.Kill()
	<-started.done
	if _, err := br.ReadByte(); err == nil {
		t.Fatal("the tunnel outlived the child")
	}
	<-closed
	if c, err := net.Dial("tcp4", addr); err == nil {
		c.Close()
		t.Fatal("the listener outlived the child")
	}
}
