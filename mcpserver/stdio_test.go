package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// stdioPeer is a raw JSON-RPC peer of a real stdio server process.
type stdioPeer struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
	cmd *exec.Cmd
}

func startStdioServer(t *testing.T) *stdioPeer {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "SCTEST_STDIO_SERVER=1", "SCTEST_WORKSPACE="+t.TempDir(), "SCTEST_PARENT_MARK="+testMark)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &stdioPeer{t: t, in: in, out: bufio.NewReaderSize(out, 1<<20), cmd: cmd}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Error("the stdio server did not exit at end of input")
		}
	})
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// recv reads the next message, failing after a deadline.
func (p *stdioPeer) recv() map[string]any {
	p.t.Helper()
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		l, err := p.out.ReadString('\n')
		ch <- result{l, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			p.t.Fatalf("read: %v (server gone?)", r.err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(r.line), &m); err != nil {
			p.t.Fatalf("server wrote non-JSON %q: %v", r.line, err)
		}
		return m
	case <-time.After(20 * time.Second):
		p.t.Fatal("no answer from the stdio server")
	}
	return nil
}

func (p *stdioPeer) initialize() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := p.recv(); m["result"] == nil {
		p.t.Fatalf("initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// TestStdioSurvivesBadInput sends each malformed message to a real server
// process, checks the JSON-RPC error the specification names, then checks
// the server still answers a good request.
func TestStdioSurvivesBadInput(t *testing.T) {
	p := startStdioServer(t)
	p.initialize()
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	deepParams := `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"a":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`
	cases := []struct {
		name, line string
		code       float64
		id         any // nil: null
	}{
		{"word", "hello", -32700, nil},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, nil},
		{"array", "[1,2,3]", -32600, nil},
		{"empty batch", "[]", -32600, nil},
		{"number", "42", -32600, nil},
		{"string", `"ping"`, -32600, nil},
		{"empty object", "{}", -32600, nil},
		{"no jsonrpc", `{"id":2,"method":"ping"}`, -32600, float64(2)},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":"a","method":"ping"}`, -32600, "a"},
		{"object id", `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600, nil},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, nil},
		{"number method", `{"jsonrpc":"2.0","id":3,"method":5}`, -32600, float64(3)},
		{"scalar params", `{"jsonrpc":"2.0","id":4,"method":"ping","params":1}`, -32600, float64(4)},
		{"NaN", `{"jsonrpc":"2.0","id":NaN,"method":"ping"}`, -32700, nil},
		{"NaN param", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":NaN}}`, -32700, nil},
		{"deep nesting", deep, -32700, nil},
		{"deep params", deepParams, -32700, nil},
		{"20 MB line", `{"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":"` + strings.Repeat("a", 20<<20) + `"}}`, -32600, nil},
	}
	for _, c := range cases {
		p.send(c.line)
		m := p.recv()
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != c.code || m["id"] != c.id || m["jsonrpc"] != "2.0" {
			t.Errorf("%s: got %v, want error %v with id %v", c.name, trim(m), c.code, c.id)
		}
		if msg, _ := e["message"].(string); msg == "" {
			t.Errorf("%s: error without a message", c.name)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"echo still here"}}}`)
	m := p.recv()
	res, _ := m["result"].(map[string]any)
	if m["id"] != float64(99) || res == nil || !strings.Contains(toJSON(res), "still here") {
		t.Fatalf("after bad input: %v", trim(m))
	}
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func trim(m map[string]any) string {
	s := toJSON(m)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// TestStdioCancelledCallGetsNoResponse: after notifications/cancelled the
// server stops the command and sends nothing for that call.
func TestStdioCancelledCallGetsNoResponse(t *testing.T) {
	p := startStdioServer(t)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":50,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"sleep 30"}}}`)
	for deadline := time.Now().Add(10 * time.Second); len(marked(0)) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":50,"reason":"user"}}`)
	if left := marked(10 * time.Second); len(left) > 0 {
		t.Fatalf("the cancelled command still runs: %v", left)
	}
	time.Sleep(300 * time.Millisecond) // the call has returned; its response would be out
	p.send(`{"jsonrpc":"2.0","id":51,"method":"ping"}`)
	if m := p.recv(); m["id"] != float64(51) {
		t.Fatalf("got %v before the ping's answer: the cancelled call was answered", trim(m))
	}
	// The ID may be used again, and that call is answered.
	p.send(`{"jsonrpc":"2.0","id":50,"method":"ping"}`)
	if m := p.recv(); m["id"] != float64(50) || m["result"] == nil {
		t.Fatalf("reused ID: %v", trim(m))
	}
}
