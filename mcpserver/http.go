package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configures the streamable HTTP transport. The zero value
// listens on 127.0.0.1:7777 without a token.
type HTTPOptions struct {
	// Addr is the listen address. Empty means 127.0.0.1:7777.
	Addr string
	// Token is the bearer token clients must send. Required whenever Addr
	// is not a loopback address; empty on loopback means no token.
	Token string
	// AllowedOrigins lists browser origins (scheme://host[:port]) allowed
	// besides loopback ones. Requests from any other Origin are refused.
	AllowedOrigins []string
	// MaxBodyBytes bounds a request body. Zero means 4 MiB.
	MaxBodyBytes int64
	// SessionIdleTimeout closes MCP sessions idle this long. Zero means
	// 30 minutes. Jobs and sessions outlive it: they are keyed by the IDs
	// the tools return.
	SessionIdleTimeout time.Duration
}

// ErrTokenRequired reports a non-loopback address without a token.
var ErrTokenRequired = errors.New("mcpserver: a bearer token is required to listen beyond loopback")

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
	if o.Token == "" && !loopbackAddr(o.Addr) {
		return fmt.Errorf("%w (address %s)", ErrTokenRequired, o.Addr)
	}
	for _, origin := range o.AllowedOrigins {
		if u, err := url.Parse(origin); err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" {
			return fmt.Errorf("mcpserver: invalid allowed origin %q (want scheme://host[:port])", origin)
		}
	}
	return nil
}

// HTTPHandler returns the streamable HTTP handler (stateful sessions) with
// the token, origin and body-size checks in front of it.
func (s *Server) HTTPHandler(opts HTTPOptions) (http.Handler, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger:                       s.opts.Logger,
		SessionTimeout:               opts.SessionIdleTimeout,
		MaxRequestBodyBytes:          opts.MaxBodyBytes,
		PropagateRequestCancellation: true,
	})
	return guard(h, opts), nil
}

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
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
		return nil
	}
}

// guard checks the bearer token, the Origin and the body size.
func guard(next http.Handler, o HTTPOptions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.Token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
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
