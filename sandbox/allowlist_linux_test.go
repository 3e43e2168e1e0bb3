package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shellcap/shellcap/internal/reexec"
)

// netWorld is the host side of an allowlist test: an HTTP server the
// rules allow, a TCP listener they do not, a resolver that knows a few test
// names and counts every lookup, and the proxies Wrap started.
type netWorld struct {
	allowed   *httptest.Server
	port      int // the allowed server's port
	hits      atomic.Int64
	lastPath  atomic.Value
	other     net.Listener // on 127.0.0.1, not allowed
	otherPort int
	otherHits atomic.Int64

	mu      sync.Mutex
	lookups map[string]int
	proxies []*proxy
}

// testNames resolve to the loopback address through the test resolver;
// every other name fails.
var testNames = map[string]bool{"localhost": true, "api.allowed.test": true, "allowed.test": true, "evil-allowed.test": true, "unlisted.test": true}

func newNetWorld(t *testing.T) *netWorld {
	t.Helper()
	w := &netWorld{lookups: map[string]int{}}
	w.allowed = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.hits.Add(1)
		w.lastPath.Store(r.URL.Path)
		fmt.Fprintf(rw, "hello from the host, path %s", r.URL.Path)
	}))
	t.Cleanup(w.allowed.Close)
	w.port = w.allowed.Listener.Addr().(*net.TCPAddr).Port
	var err error
	if w.other, err = net.Listen("tcp4", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	w.otherPort = w.other.Addr().(*net.TCPAddr).Port
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := w.other.Accept()
			if err != nil {
				return
			}
			w.otherHits.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { w.other.Close(); <-done })

	oldLookup, oldStarted := proxyLookup, proxyStarted
	proxyLookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		w.mu.Lock()
		w.lookups[host]++
		w.mu.Unlock()
		if testNames[host] {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	proxyStarted = func(p *proxy) {
		w.mu.Lock()
		w.proxies = append(w.proxies, p)
		w.mu.Unlock()
	}
	t.Cleanup(func() {
		proxyLookup, proxyStarted = oldLookup, oldStarted
		w.waitStopped(t)
	})
	return w
}

func (w *netWorld) lookupsOf(host string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lookups[host]
}

// waitStopped waits for every proxy started so far to stop, and checks
// that its listener is closed.
func (w *netWorld) waitStopped(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	ps := append([]*proxy(nil), w.proxies...)
	w.mu.Unlock()
	for _, p := range ps {
		select {
		case <-p.done:
		case <-time.After(time.Minute):
			t.Fatal("the proxy did not stop after the command exited")
		}
		p.mu.Lock()
		ln := p.ln
		p.mu.Unlock()
		if ln != nil {
			if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
				t.Errorf("proxy listener still open: %v", err)
			}
		}
	}
}

func (w *netWorld) config(ws string, allow ...string) Config {
	return Config{Workspace: ws, Network: NetworkAllowlist, Allow: allow}
}

// proxyRequest is a bash function that sends its argument (printf format)
// to the proxy and prints everything it answers.
const proxyRequest = `req() { exec 3<>/dev/tcp/127.0.0.1/3128 || return 1; printf "$1" >&3; cat <&3; exec 3<&-; }
`

// connectThenGet speaks CONNECT to the proxy, prints its status line, and
// sends a GET through the tunnel.
func connectThenGet(hostport, path string) string {
	return `exec 3<>/dev/tcp/127.0.0.1/3128 || exit 1
printf 'CONNECT ` + hostport + ` HTTP/1.1\r\nHost: ` + hostport + `\r\n\r\n' >&3
IFS= read -r status <&3; echo "tunnel: $status"
while IFS= read -r line <&3 && [ "$line" != $'\r' ]; do :; done
printf 'GET ` + path + ` HTTP/1.1\r\nHost: ` + hostport + `\r\nConnection: close\r\n\r\n' >&3
cat <&3
`
}

func TestAllowlistAllowed(t *testing.T) {
	requireSandbox(t)
	for _, mode := range startModes {
		t.Run(mode, func(t *testing.T) { testAllowlistAllowed(t, mode) })
	}
}

func testAllowlistAllowed(t *testing.T, mode string) {
	w := newNetWorld(t)
	p := strconv.Itoa(w.port)
	cfg := w.config(t.TempDir(), "127.0.0.1:"+p, "LocalHost:"+p)
	o := runVia(t, mode, cfg, connectThenGet("127.0.0.1:"+p, "/via-connect")+
		proxyRequest+"req 'GET http://localhost:"+p+"/via-get HTTP/1.1\\r\\nHost: localhost:"+p+"\\r\\n\\r\\n'")
	t.Logf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	if !strings.Contains(o.stdout, "tunnel: HTTP/1.1 200") || !strings.Contains(o.stdout, "hello from the host, path /via-connect") {
		t.Errorf("CONNECT tunnel: %q", o.stdout)
	}
	if !strings.Contains(o.stdout, "hello from the host, path /via-get") {
		t.Errorf("absolute-form GET: %q", o.stdout)
	}
	if w.hits.Load() != 2 {
		t.Errorf("the host server saw %d requests, want 2", w.hits.Load())
	}
	if w.lookupsOf("localhost") != 1 {
		t.Errorf("localhost resolved %d times, want 1", w.lookupsOf("localhost"))
	}
}

// denyCases are destinations the rules of TestAllowlistDenied refuse, with
// the request that asks for each.
func denyCases(port, otherPort string) []struct{ name, dest, raw string } {
	connect := func(dest string) string { return "CONNECT " + dest + ` HTTP/1.1\r\nHost: ` + dest + `\r\n\r\n` }
	return []struct{ name, dest, raw string }{
		{"other port, same host", "127.0.0.1:" + otherPort, connect("127.0.0.1:" + otherPort)},
		{"other port, absolute form", "127.0.0.1:" + otherPort, `GET http://127.0.0.1:` + otherPort + `/ HTTP/1.1\r\nHost: 127.0.0.1:` + port + `\r\n\r\n`},
		{"unlisted name", "unlisted.test:" + port, connect("unlisted.test:" + port)},
		{"wildcard domain itself", "allowed.test:" + port, connect("allowed.test:" + port)},
		{"name sharing the suffix", "evil-allowed.test:" + port, connect("evil-allowed.test:" + port)},
		{"name for a listed address", "localhost:" + port, connect("localhost:" + port)},
		{"unlisted IP literal", "127.0.0.2:" + port, connect("127.0.0.2:" + port)},
		{"IPv6 loopback literal", "[::1]:" + port, connect("[::1]:" + port)},
		{"metadata service", "169.254.169.254:80", connect("169.254.169.254:80")},
		{"metadata service, absolute form", "169.254.169.254:80", `GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n`},
	}
}

func TestAllowlistDenied(t *testing.T) {
	requireSandbox(t)
	for _, mode := range startModes {
		t.Run(mode, func(t *testing.T) { testAllowlistDenied(t, mode) })
	}
}

func testAllowlistDenied(t *testing.T, mode string) {
	w := newNetWorld(t)
	port, otherPort := strconv.Itoa(w.port), strconv.Itoa(w.otherPort)
	cases := denyCases(port, otherPort)
	script := proxyRequest
	for i, c := range cases {
		script += "echo '== " + strconv.Itoa(i) + "'; req '" + c.raw + "'; echo\n"
	}
	// The positive control: a name below the wildcard's domain.
	script += "echo '== wildcard'; req 'GET http://api.allowed.test:" + port + `/wild HTTP/1.1\r\nHost: api.allowed.test\r\n\r\n'` + "\n"
	o := runVia(t, mode, w.config(t.TempDir(), "127.0.0.1:"+port, "*.allowed.test:"+port), script)
	t.Logf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	answers := strings.Split(o.stdout, "== ")
	if len(answers) != len(cases)+2 {
		t.Fatalf("got %d answers for %d cases:\n%s", len(answers)-1, len(cases)+1, o.stdout)
	}
	for i, c := range cases {
		a := strings.TrimPrefix(answers[i+1], strconv.Itoa(i)+"\n")
		if !strings.HasPrefix(a, "HTTP/1.1 403 Forbidden\r\n") || !strings.Contains(a, c.dest+" is not on the sandbox allowlist") {
			t.Errorf("%s (%s): want 403 naming it, got %q", c.name, c.dest, a)
		}
	}
	if last := answers[len(answers)-1]; !strings.Contains(last, "HTTP/1.1 200 OK") || !strings.Contains(last, "path /wild") {
		t.Errorf("wildcard subdomain: %q", last)
	}
	if n := w.otherHits.Load(); n != 0 {
		t.Errorf("the unlisted port saw %d connections", n)
	}
	if n := w.hits.Load(); n != 1 {
		t.Errorf("the allowed server saw %d requests, want only the wildcard one", n)
	}
	for _, name := range []string{"unlisted.test", "allowed.test", "evil-allowed.test", "localhost"} {
		if n := w.lookupsOf(name); n != 0 {
			t.Errorf("%s was resolved %d times though it is not allowed", name, n)
		}
	}
	if n := w.lookupsOf("api.allowed.test"); n != 1 {
		t.Errorf("api.allowed.test resolved %d times, want 1", n)
	}
}

// hostAddr returns a non-loopback IPv4 address of this machine, or "".
func hostAddr() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	return ""
}

// TestAllowlistBypass tries to reach the host without the proxy: direct
// TCP to a host listener on loopback and on the machine's address, UDP, and
// DNS. All fail, nothing is resolved, and the proxy variables are set.
func TestAllowlistBypass(t *testing.T) {
	requireSandbox(t)
	for _, mode := range startModes {
		t.Run(mode, func(t *testing.T) { testAllowlistBypass(t, mode) })
	}
}

func testAllowlistBypass(t *testing.T, mode string) {
	f := newFixture(t)
	w := newNetWorld(t)
	port := strconv.Itoa(w.port)
	cfg := f.config(WorkspaceWrite)
	cfg.Network, cfg.Allow = NetworkAllowlist, []string{"127.0.0.1:" + port, "127.0.0.1:" + strconv.Itoa(f.port)}
	probe := func(args ...string) string {
		return f.probe + " " + reexec.Marker + " " + testProbe + " " + strings.Join(args, " ")
	}
	attempts := []escape{
		{name: "allowed host listener via /dev/tcp", script: "exec 3<>/dev/tcp/127.0.0.1/" + port, want: "permission denied"},
		{name: "fixture listener via /dev/tcp", script: "exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(f.port), want: "permission denied"},
		{name: "getent hosts", script: "getent hosts example.com"},
		{name: "UDP to a public resolver", script: "echo x > /dev/udp/8.8.8.8/53", want: "network is unreachable"},
		{name: "socket AF_VSOCK", script: probe("vsock"), want: "operation not permitted"},
		{name: "socket AF_NETLINK", script: probe("netlink"), want: "operation not permitted"},
		{name: "socket AF_PACKET", script: probe("packet"), want: "operation not permitted"},
		{name: "connect host abstract unix socket", script: probe("connect-unix", f.abstract)},
		{name: "unshare -Urn", script: "unshare -Urn true"},
	}
	if ip := hostAddr(); ip != "" {
		ln, err := net.Listen("tcp4", ip+":0")
		if err != nil {
			t.Fatal(err)
		}
		var hits atomic.Int64
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				hits.Add(1)
				c.Close()
			}
		}()
		defer func() {
			ln.Close()
			if hits.Load() != 0 {
				t.Errorf("the listener on %s saw %d connections", ip, hits.Load())
			}
		}()
		_, lp, _ := net.SplitHostPort(ln.Addr().String())
		attempts = append(attempts, escape{name: "host address via /dev/tcp", script: "exec 3<>/dev/tcp/" + ip + "/" + lp})
	} else {
		t.Log("no non-loopback IPv4 address: skipping the host address attempt")
	}
	for _, e := range attempts {
		t.Run(e.name, func(t *testing.T) {
			o := runVia(t, mode, cfg, e.script)
			out := o.stdout + o.stderr
			t.Logf("exit %d: %s", o.code, strings.TrimSpace(out))
			if o.code == 0 {
				t.Errorf("bypass succeeded: %q", e.script)
			}
			if e.want != "" && !strings.Contains(strings.ToLower(out), e.want) {
				t.Errorf("want %q in output, got %q", e.want, out)
			}
		})
	}
	if w.hits.Load() != 0 {
		t.Errorf("the allowed server saw %d requests without the proxy", w.hits.Load())
	}
	w.mu.Lock()
	if len(w.lookups) != 0 {
		t.Errorf("lookups happened: %v", w.lookups)
	}
	w.mu.Unlock()
	f.untouched(t)
}

// TestAllowlistInside checks what the command sees: the proxy variables
// (overriding the caller's), lo up, AF_INET sockets allowed and only the
// proxy reachable.
func TestAllowlistInside(t *testing.T) {
	requireSandbox(t)
	for _, mode := range startModes {
		t.Run(mode, func(t *testing.T) { testAllowlistInside(t, mode) })
	}
}

func testAllowlistInside(t *testing.T, mode string) {
	f := newFixture(t)
	newNetWorld(t)
	cfg := f.config(WorkspaceWrite)
	cfg.Network = NetworkAllowlist
	o := runVia(t, mode, cfg, `echo "$HTTP_PROXY $HTTPS_PROXY $ALL_PROXY $http_proxy $https_proxy $all_proxy [${NO_PROXY-unset}] [${no_proxy-unset}]"
cat /sys/class/net/lo/operstate /sys/class/net/lo/flags; ls /sys/class/net | tr '\n' ' '; echo
`+f.probe+" "+reexec.Marker+" "+testProbe+` inet
exec 3<>/dev/tcp/127.0.0.1/3128 && echo proxy reachable`,
		"HTTP_PROXY=http://evil.test:1", "NO_PROXY=*", "no_proxy=*")
	want := "http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 [] []\n"
	if o.code != 0 || !strings.HasPrefix(o.stdout, want) {
		t.Fatalf("exit %d\n%q\nwant prefix %q\n%s", o.code, o.stdout, want, o.stderr)
	}
	lines := strings.Split(o.stdout, "\n")
	if len(lines) < 6 {
		t.Fatalf("short output %q", o.stdout)
	}
	flags, err := strconv.ParseUint(lines[2], 0, 32)
	if err != nil || flags&1 == 0 || strings.TrimSpace(lines[3]) != "lo" || lines[4] != "succeeded" || lines[5] != "proxy reachable" {
		t.Fatalf("lo flags, interfaces, AF_INET socket or proxy: %q", o.stdout)
	}
}

// TestAllowlistProxyStops checks that the proxy closes its listener and
// open tunnels once the command exits, even when a background process held
// a tunnel open.
func TestAllowlistProxyStops(t *testing.T) {
	requireSandbox(t)
	for _, mode := range startModes {
		t.Run(mode, func(t *testing.T) { testAllowlistProxyStops(t, mode) })
	}
}

func testAllowlistProxyStops(t *testing.T, mode string) {
	w := newNetWorld(t)
	hold, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	ended := make(chan error, 1)
	go func() {
		c, err := hold.Accept()
		if err != nil {
			ended <- err
			return
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(time.Minute))
		_, err = io.Copy(io.Discard, c)
		ended <- err
	}()
	hp := strconv.Itoa(hold.Addr().(*net.TCPAddr).Port)
	o := runVia(t, mode, w.config(t.TempDir(), "127.0.0.1:"+hp), `(exec 3<>/dev/tcp/127.0.0.1/3128
printf 'CONNECT 127.0.0.1:`+hp+` HTTP/1.1\r\n\r\n' >&3
IFS= read -r status <&3; echo "$status" > tunnel-open; exec sleep 600) &
while [ ! -s tunnel-open ]; do sleep 0.01; done; cat tunnel-open`)
	if o.code != 0 || !strings.HasPrefix(o.stdout, "HTTP/1.1 200") {
		t.Fatalf("exit %d %q %s", o.code, o.stdout, o.stderr)
	}
	w.waitStopped(t)
	if err := <-ended; err != nil {
		t.Fatalf("the held tunnel did not end cleanly: %v", err)
	}
}

// TestAllowlistWrap checks the configuration errors and the report.
func TestAllowlistWrap(t *testing.T) {
	requireSandbox(t)
	w := newNetWorld(t)
	ws := t.TempDir()
	wrap := func(cfg Config) (*report, error) {
		cmd := exec.Command("/bin/true")
		cmd.Dir = ws
		rep, err := wrapCmd(cmd, cfg)
		closeExtra(cmd)
		return rep, err
	}
	_, err := wrap(w.config(ws, "example.com:443", "example.com"))
	var re *RuleError
	if !errors.As(err, &re) || re.Rule != "example.com" || !strings.Contains(err.Error(), `"example.com": missing :port`) {
		t.Errorf("rule without port: %v", err)
	}
	if _, err := wrap(Config{Workspace: ws, Allow: []string{"example.com:443"}}); err == nil || !strings.Contains(err.Error(), "Allow needs Network") {
		t.Errorf("Allow without the allowlist network: %v", err)
	}
	if _, err := wrap(Config{Workspace: ws, Profile: FullAccess, Network: NetworkAllowlist}); err == nil || !strings.Contains(err.Error(), "full-access") {
		t.Errorf("allowlist with full access: %v", err)
	}
	probeHook = func(c *Capabilities) { c.UserNamespaces, c.UserNamespacesError = false, "simulated" }
	for _, degraded := range []bool{false, true} {
		cfg := w.config(ws, "example.com:443")
		cfg.AllowDegraded = degraded
		if _, err := wrap(cfg); !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), "allowlist") {
			t.Errorf("allowlist without user namespaces, AllowDegraded %v: %v", degraded, err)
		}
	}
	probeHook = nil

	rep, err := wrap(w.config(ws, "Example.COM:443", "*.example.org:443", "[::1]:80"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Network != NetworkAllowlist || !slices.Contains(rep.Namespaces, "net") || rep.Proxy != "http://127.0.0.1:3128" ||
		!slices.Equal(rep.Allow, []string{"example.com:443", "*.example.org:443", "[::1]:80"}) {
		t.Errorf("report: %+v", rep)
	}
	if text := rep.Text(); !strings.Contains(text, "network only through the proxy http://127.0.0.1:3128, to: example.com:443, *.example.org:443, [::1]:80") {
		t.Errorf("text:\n%s", text)
	}
	if b, _ := json.Marshal(rep); !strings.Contains(string(b), `"allow":["example.com:443","*.example.org:443","[::1]:80"],"proxy":"http://127.0.0.1:3128"`) {
		t.Errorf("JSON: %s", b)
	}
}

// TestAllowlistHelperFails checks that the proxy goroutine ends when the
// helper fails before the handoff (here: the workspace vanished between
// Wrap and Start, so the mounts fail).
func TestAllowlistHelperFails(t *testing.T) {
	requireSandbox(t)
	w := newNetWorld(t)
	ws := t.TempDir() + "/ws"
	mustWrite(t, ws+"/f", "x", 0o644)
	cmd := exec.Command("/bin/true")
	cmd.Dir = ws
	if _, err := wrapCmd(cmd, w.config(ws, "example.com:443")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Start()
	closeExtra(cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != helperFailed {
		t.Fatalf("helper exit %d (%v), want %d: %s", code, err, helperFailed, stderr.String())
	}
	t.Logf("helper: %s", strings.TrimSpace(stderr.String()))
	w.waitStopped(t)
}
