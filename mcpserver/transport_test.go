package mcpserver_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/mcpserver"
)

func TestStdioTransport(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "SCTEST_STDIO_SERVER=1", "SCTEST_WORKSPACE="+t.TempDir())
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res := call(t, cs, mcpserver.RunCommand, map[string]any{"command": "echo over stdio"})
	if text(res) != "[stdout]\nover stdio\n" {
		t.Fatalf("text %q", text(res))
	}
}

func newHTTPServer(t *testing.T, opts mcpserver.HTTPOptions) (*httptest.Server, error) {
	t.Helper()
	sh, err := shellcap.New(shellcap.Options{Workspace: t.TempDir(), Env: markEnv()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	srv, err := mcpserver.New(mcpserver.Options{Shell: sh})
	if err != nil {
		t.Fatal(err)
	}
	h, err := srv.HTTPHandler(opts)
	if err != nil {
		return nil, err
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts, nil
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func TestHTTPTransport(t *testing.T) {
	ts, err := newHTTPServer(t, mcpserver.HTTPOptions{Addr: "127.0.0.1:0", Token: "s3cret-0123456789abcdef"})
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	httpClient := &http.Client{Transport: bearer{"s3cret-0123456789abcdef", http.DefaultTransport}}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: httpClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res := call(t, cs, mcpserver.RunCommand, map[string]any{"command": "echo over http"})
	if text(res) != "[stdout]\nover http\n" {
		t.Fatalf("text %q", text(res))
	}
}

func TestHTTPGuards(t *testing.T) {
	if _, err := newHTTPServer(t, mcpserver.HTTPOptions{Addr: "0.0.0.0:7777"}); !errors.Is(err, mcpserver.ErrTokenRequired) {
		t.Fatalf("listening beyond loopback without a token: %v", err)
	}
	for _, short := range []string{"x", "fifteen-bytes!!"} {
		if _, err := newHTTPServer(t, mcpserver.HTTPOptions{Addr: "127.0.0.1:0", Token: short}); !errors.Is(err, mcpserver.ErrTokenTooShort) {
			t.Fatalf("token %q: %v", short, err)
		}
	}
	ts, err := newHTTPServer(t, mcpserver.HTTPOptions{Addr: "127.0.0.1:0", Token: "s3cret-0123456789abcdef", MaxBodyBytes: mcpserver.MinBodyBytes})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	tests := []struct {
		name   string
		header map[string]string
		host   string
		body   string
		want   int
	}{
		{"no token", nil, "", body, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, "", body, http.StatusUnauthorized},
		{"foreign origin", map[string]string{"Authorization": "Bearer s3cret-0123456789abcdef", "Origin": "https://evil.example"}, "", body, http.StatusForbidden},
		{"rebinding host", map[string]string{"Authorization": "Bearer s3cret-0123456789abcdef"}, "evil.example", body, http.StatusForbidden},
		{"body too large", map[string]string{"Authorization": "Bearer s3cret-0123456789abcdef"}, "", body + strings.Repeat(" ", mcpserver.MinBodyBytes), http.StatusRequestEntityTooLarge},
		{"good", map[string]string{"Authorization": "Bearer s3cret-0123456789abcdef", "Origin": "http://localhost:3000"}, "", body, http.StatusOK},
		{"lower-case scheme", map[string]string{"Authorization": "bearer s3cret-0123456789abcdef"}, "", body, http.StatusOK},
		{"upper-case scheme", map[string]string{"Authorization": "BEARER s3cret-0123456789abcdef"}, "", body, http.StatusOK},
		{"other scheme", map[string]string{"Authorization": "Basic s3cret-0123456789abcdef"}, "", body, http.StatusUnauthorized},
		{"token as prefix", map[string]string{"Authorization": "Bearer s3cret-0123456789abcdefX"}, "", body, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
			if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
				// End the session this raw request opened.
				del, _ := http.NewRequest("DELETE", ts.URL, nil)
				del.Header.Set("Authorization", "Bearer s3cret-0123456789abcdef")
				del.Header.Set("Mcp-Session-Id", id)
				if resp, err := http.DefaultClient.Do(del); err == nil {
					resp.Body.Close()
				}
			}
		})
	}
}

// TestHTTPIdleSessionsAreReaped: an MCP session idle past the timeout is
// closed; its ID is refused afterwards.
func TestHTTPIdleSessionsAreReaped(t *testing.T) {
	ts, err := newHTTPServer(t, mcpserver.HTTPOptions{Addr: "127.0.0.1:0", SessionIdleTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	post := func(id, body string) *http.Response {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d session %q", resp.StatusCode, id)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if got := post(id, ping).StatusCode; got != http.StatusOK {
		t.Fatalf("ping on a fresh session: %d", got)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if post(id, ping).StatusCode == http.StatusNotFound {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the idle session was never reaped")
		}
		// Pings would keep it alive: give it the idle time.
		time.Sleep(400 * time.Millisecond)
	}
}

// TestHTTPOptionErrors: options the HTTP server cannot use are refused
// with messages naming the option ("option NAME:", which front ends map
// to their own keys): an address that is no host:port, a body bound too
// small to hold a request, negative bounds.
func TestHTTPOptionErrors(t *testing.T) {
	for _, c := range []struct {
		opts mcpserver.HTTPOptions
		want string
	}{
		{mcpserver.HTTPOptions{Addr: "12"}, `option Addr: "12" is not a listen address`},
		{mcpserver.HTTPOptions{Addr: "127.0.0.1:99999"}, `option Addr: "127.0.0.1:99999" is not a listen address`},
		{mcpserver.HTTPOptions{MaxBodyBytes: 10}, "option MaxBodyBytes: must be at least 65536 bytes"},
		{mcpserver.HTTPOptions{MaxBodyBytes: -1}, "option MaxBodyBytes: must be at least 65536 bytes"},
		{mcpserver.HTTPOptions{MaxSessions: -1}, "option MaxSessions: must not be negative"},
		{mcpserver.HTTPOptions{SessionIdleTimeout: -time.Second}, "option SessionIdleTimeout: must not be negative"},
	} {
		if _, err := newHTTPServer(t, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opts, err, c.want)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		ts, err := newHTTPServer(t, mcpserver.HTTPOptions{Addr: addr})
		if err != nil {
			t.Errorf("%s: %v", addr, err)
		} else {
			ts.Close()
		}
	}
}
