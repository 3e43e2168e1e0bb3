package mcpserver

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configures the streamable HTTP transport. The zero value
// listens on 127.0.0.1:7777 without a token.
type HTTPOptions struct {
	// Addr is the listen address, host:port (the host may be empty or a
	// name). Empty means 127.0.0.1:7777.
	Addr string
	// Token is the bearer token clients must send. Required whenever Addr
	// is not a loopback address; empty on loopback means no token.
	Token string
	// AllowedOrigins lists browser origins (scheme://host[:port]) allowed
	// besides loopback ones. Requests from any other Origin are refused.
	AllowedOrigins []string
	// MaxBodyBytes bounds a request body. Zero means 4 MiB; otherwise it
	// must be at least MinBodyBytes, enough for a request with a long
	// command.
	MaxBodyBytes int64
	// SessionIdleTimeout closes MCP sessions idle this long, and with them
	// their bash shells. Zero means 30 minutes. Jobs outlive it: they are
	// keyed by the IDs the tools return.
	SessionIdleTimeout time.Duration
	// MaxSessions bounds the MCP sessions open at once; a client opening
	// one more gets HTTP 503 with a JSON-RPC error saying so. Zero means
	// DefaultMaxSessions.
	MaxSessions int
}

// shutdownBound bounds the wait for cancelled calls at shutdown.
const shutdownBound = 30 * time.Second

// DefaultMaxSessions is HTTPOptions.MaxSessions when zero.
const DefaultMaxSessions = 100

// MinBodyBytes is the smallest HTTPOptions.MaxBodyBytes accepted.
const MinBodyBytes = 64 << 10

// MinTokenBytes is the shortest bearer token accepted.
const MinTokenBytes = 16

var (
	// ErrTokenRequired reports a non-loopback address without a token.
	ErrTokenRequired = errors.New("mcpserver: a bearer token is required to listen beyond loopback")
	// ErrTokenTooShort reports a bearer token shorter than MinTokenBytes.
	ErrTokenTooShort = fmt.Errorf("mcpserver: the bearer token must be at least %d bytes", MinTokenBytes)
)

func (o *HTTPOptions) fill() error {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:7777"
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.SessionIdleTimeout == 0 {
		o.SessionIdleTimeout = 30 * time.Minute
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	// The messages say "option NAME:" so that a front end can name its
	// own key for NAME (config.KeyError).
	if o.MaxSessions < 0 {
		return fmt.Errorf("mcpserver: option MaxSessions: must not be negative (got %d)", o.MaxSessions)
	}
	if o.SessionIdleTimeout < 0 {
		return fmt.Errorf("mcpserver: option SessionIdleTimeout: must not be negative (got %v)", o.SessionIdleTimeout)
	}
	if o.MaxBodyBytes < MinBodyBytes {
		return fmt.Errorf("mcpserver: option MaxBodyBytes: must be at least %d bytes (64KiB) to hold a request (got %d)", MinBodyBytes, o.MaxBodyBytes)
	}
	if _, port, err := net.SplitHostPort(o.Addr); err != nil || !validPort(port) {
		return fmt.Errorf("mcpserver: option Addr: %q is not a listen address: want host:port, such as 127.0.0.1:7777 or :7777", o.Addr)
	}
	if o.Token == "" && !loopbackAddr(o.Addr) {
		return fmt.Errorf("%w (address %s)", ErrTokenRequired, o.Addr)
	}
	if o.Token != "" && len(o.Token) < MinTokenBytes {
		return fmt.Errorf("%w (got %d)", ErrTokenTooShort, len(o.Token))
	}
	for _, origin := range o.AllowedOrigins {
		if u, err := url.Parse(origin); err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" {
			return fmt.Errorf("mcpserver: option AllowedOrigins: invalid origin %q (want scheme://host[:port])", origin)
		}
	}
	return nil
}

// validPort reports whether port is a port number or a service name
// net.Listen may look up ("http").
func validPort(port string) bool {
	if _, err := strconv.ParseUint(port, 10, 16); err == nil {
		return true
	}
	if port == "" || !('a' <= port[0] && port[0] <= 'z' || 'A' <= port[0] && port[0] <= 'Z') {
		return false
	}
	for _, c := range port {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// HTTPHandler returns the streamable HTTP handler with the token, origin
// and body-size checks in front of it. Clients of protocol 2026-07-28
// and later are served statelessly (each request stands alone; the bash
// tool's session_id argument keeps a shell); older clients get stateful
// sessions, each with its own scope (see Options.ShareJobs), at most
// MaxSessions at once.
func (s *Server) HTTPHandler(opts HTTPOptions) (http.Handler, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	s.ts.SetShellIdleTimeout(opts.SessionIdleTimeout)
	stateful := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger:                       s.opts.Logger,
		SessionTimeout:               opts.SessionIdleTimeout,
		MaxRequestBodyBytes:          opts.MaxBodyBytes,
		PropagateRequestCancellation: true,
	})
	stateless := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.stateless }, &mcp.StreamableHTTPOptions{
		Logger:                       s.opts.Logger,
		Stateless:                    true,
		MaxRequestBodyBytes:          opts.MaxBodyBytes,
		PropagateRequestCancellation: true,
	})
	limit := &sessionCap{srv: s.mcp, max: opts.MaxSessions, idle: opts.SessionIdleTimeout}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet { // a GET is a long-lived event stream
			s.posts.begin()
			defer s.posts.end()
		}
		if r.Header.Get("Mcp-Protocol-Version") >= modernProtocol {
			stateless.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			// Every such request opens a session.
			if !limit.reserve() {
				limit.refuse(w)
				return
			}
			defer limit.release()
		}
		stateful.ServeHTTP(w, r)
	})
	return guard(h, opts), nil
}

// sessionCap bounds the stateful sessions open at once.
type sessionCap struct {
	srv  *mcp.Server
	max  int
	idle time.Duration

	mu      sync.Mutex
	opening int // requests creating a session right now
}

func (c *sessionCap) reserve() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.opening
	for range c.srv.Sessions() {
		n++
	}
	if n >= c.max {
		return false
	}
	c.opening++
	return true
}

func (c *sessionCap) release() {
	c.mu.Lock()
	c.opening--
	c.mu.Unlock()
}

func (c *sessionCap) refuse(w http.ResponseWriter) {
	msg := fmt.Sprintf("Too many MCP sessions: this server holds at most %d at once. Close a session (HTTP DELETE), or retry once an idle one has expired (after %s).", c.max, durationText(c.idle))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "60")
	w.WriteHeader(http.StatusServiceUnavailable)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": codeTooManySessions, "message": msg},
	})
}

// codeTooManySessions is the JSON-RPC error code (implementation-defined
// server error range) of a refused session.
const codeTooManySessions = -32000

// ListenAndServe serves HTTP until ctx ends, then shuts down gracefully.
func (s *Server) ListenAndServe(ctx context.Context, opts HTTPOptions) error {
	h, err := s.HTTPHandler(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln, h)
}

// Serve serves h on ln until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.opts.Logger.Info("mcpserver: listening", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		// Stop the commands of calls in flight first: an HTTP shutdown
		// alone would wait for them.
		calls, cancel := context.WithTimeout(context.Background(), shutdownBound)
		defer cancel()
		_ = s.CancelCalls(calls)
		// Let the cancelled calls' answers go out, then end the sessions,
		// so their open event streams do not hold the HTTP shutdown.
		_ = s.posts.wait(calls)
		for ss := range s.mcp.Sessions() {
			_ = ss.Close()
		}
		shutdown, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel2()
		_ = srv.Shutdown(shutdown)
		return nil
	}
}

// guard checks the bearer token, the Origin and the body size.
func guard(next http.Handler, o HTTPOptions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.Token != "" {
			got, ok := bearerToken(r.Header.Get("Authorization"))
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(o.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="shellcap"`)
				http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
				return
			}
		}
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, o.AllowedOrigins) {
			http.Error(w, "origin not allowed", http.StatusForbidden)
			return
		}
		if !hostAllowed(r.Host, o.Addr) {
			http.Error(w, "host not allowed", http.StatusForbidden)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, o.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// bearerToken reads the credentials of the Bearer scheme, whose name is
// case-insensitive (RFC 9110 section 11.1).
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimLeft(token, " ")
	return token, token != ""
}

func originAllowed(origin string, allowed []string) bool {
	if slices.Contains(allowed, origin) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && loopbackHost(u.Hostname())
}

// hostAllowed defeats DNS rebinding: a server on loopback answers only to
// loopback host names.
func hostAllowed(host, addr string) bool {
	if !loopbackAddr(addr) {
		return true
	}
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	return loopbackHost(h)
}

func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return loopbackHost(host)
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
