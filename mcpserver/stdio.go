package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessageBytes bounds one message (one line) on stdio.
const DefaultMaxMessageBytes = 8 << 20

// StdioOptions configures ServeStdioWith. The zero value is the default.
type StdioOptions struct {
	// MaxMessageBytes bounds one line. Zero means DefaultMaxMessageBytes.
	// A longer line is answered with an invalid-request error and skipped.
	MaxMessageBytes int
}

// ServeStdio serves one client on r and w (a process's stdin and stdout)
// until the client disconnects or ctx ends. It does not close r or w.
// Malformed input never ends it: each bad line gets the JSON-RPC error
// the specification names (-32700 parse error, -32600 invalid request,
// with a null id where the id is unknown) and the next line is read.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.ServeStdioWith(ctx, r, w, StdioOptions{})
}

// ServeStdioWith is ServeStdio with options.
func (s *Server) ServeStdioWith(ctx context.Context, r io.Reader, w io.Writer, opts StdioOptions) error {
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	t := newLineTransport(r, w, opts.MaxMessageBytes)
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.stdio[ss] = true // one client per process: it sees every job
	s.mu.Unlock()
	close(t.conn.ready)
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		calls, cancel := context.WithTimeout(context.Background(), shutdownBound)
		_ = s.CancelCalls(calls)
		t.conn.waitAnswered(calls) // let the cancelled calls' answers out
		cancel()
		_ = ss.Close()
		<-done
		err = nil
	}
	if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// lineTransport is newline-delimited JSON-RPC over a reader and a writer
// that survives bad input: it validates each line itself and answers
// what the SDK would give up on.
type lineTransport struct{ conn *lineConn }

func newLineTransport(r io.Reader, w io.Writer, max int) *lineTransport {
	c := &lineConn{
		w: w, max: max,
		lines: make(chan []byte), readErr: make(chan error, 1),
		closed: make(chan struct{}), ready: make(chan struct{}),
		pending: map[jsonrpc.ID]bool{}, cancelled: map[jsonrpc.ID]bool{},
	}
	go c.readLoop(bufio.NewReaderSize(r, 64<<10))
	return &lineTransport{conn: c}
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

type lineConn struct {
	w   io.Writer
	max int

	wmu     sync.Mutex
	lines   chan []byte
	readErr chan error
	closed  chan struct{}
	ready   chan struct{} // closed once the server has recorded the session
	once    sync.Once

	// The client's calls not yet answered, and those of them it
	// cancelled: a cancelled call gets no response.
	callMu    sync.Mutex
	pending   map[jsonrpc.ID]bool
	cancelled map[jsonrpc.ID]bool
}

// readLoop splits input into lines, skipping over-long ones (their
// content is discarded as it is read, so memory stays bounded), and hands
// each to Read.
func (c *lineConn) readLoop(r *bufio.Reader) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > c.max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' || (err != nil && (len(line) > 0 || tooLong)) {
			msg := line
			if tooLong {
				msg = nil
				c.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: message longer than %d bytes; it was discarded", c.max))
			}
			line, tooLong = nil, false
			if msg != nil {
				select {
				case c.lines <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.readErr <- err
			return
		}
	}
}

// Read returns the next valid message; invalid lines are answered here.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-c.ready:
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for {
		var line []byte
		select {
		case line = <-c.lines:
		case err := <-c.readErr:
			c.readErr <- err // later reads see it too
			return nil, err
		case <-c.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		msg, id, code, why := parseLine(line)
		if msg != nil {
			c.track(msg)
			return msg, nil
		}
		if code != 0 {
			c.reply(id, code, why)
		}
	}
}

// parseLine validates one line as a JSON-RPC 2.0 message. On failure it
// returns the error to answer (code 0: nothing to answer, a blank line) and
// the request's id when it could be read (nil means null).
func parseLine(line []byte) (msg jsonrpc.Message, id json.RawMessage, code int64, why string) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil, 0, ""
	}
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		return nil, nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: %v", err)
	}
	if line[0] != '{' {
		what := "a JSON object"
		if line[0] == '[' {
			what = "a single JSON object (batches are not supported)"
		}
		return nil, nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message must be " + what
	}
	var m struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: %v", err)
	}
	if m.ID != nil && !validID(m.ID) {
		return nil, nil, jsonrpc.CodeInvalidRequest, "Invalid Request: id must be a string, a number or null"
	}
	id = m.ID
	switch {
	case m.JSONRPC == nil || *m.JSONRPC != "2.0":
		return nil, id, jsonrpc.CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`
	case m.Method == nil && m.Result == nil && m.Error == nil:
		return nil, id, jsonrpc.CodeInvalidRequest, `Invalid Request: no "method" (nor "result" or "error")`
	case m.Method != nil && (len(m.Method) == 0 || m.Method[0] != '"'):
		return nil, id, jsonrpc.CodeInvalidRequest, `Invalid Request: "method" must be a string`
	case m.Params != nil && m.Params[0] != '{' && m.Params[0] != '[' && string(m.Params) != "null":
		return nil, id, jsonrpc.CodeInvalidRequest, `Invalid Request: "params" must be an object or an array`
	case m.Method == nil && (m.ID == nil || string(m.ID) == "null"):
		return nil, nil, 0, "" // a response to nothing: ignored, as a notification would be
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: %v", err)
	}
	return msg, nil, 0, ""
}

func validID(raw json.RawMessage) bool {
	switch raw[0] {
	case '"', 'n':
		return true
	case '{', '[', 't', 'f':
		return false
	}
	var f float64
	return json.Unmarshal(raw, &f) == nil
}

// reply writes an error response.
func (c *lineConn) reply(id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	_ = c.writeLine(data)
}

// waitAnswered returns once every call read has been answered (or
// dropped as cancelled), or when ctx ends.
func (c *lineConn) waitAnswered(ctx context.Context) {
	for {
		c.callMu.Lock()
		n := len(c.pending)
		c.callMu.Unlock()
		if n == 0 || ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-c.closed:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// track records the client's calls and its cancellations of them.
func (c *lineConn) track(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	c.callMu.Lock()
	defer c.callMu.Unlock()
	if req.IsCall() {
		c.pending[req.ID] = true
		return
	}
	if req.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return
	}
	if id, err := jsonrpc.MakeID(p.RequestID); err == nil && c.pending[id] {
		c.cancelled[id] = true
	}
}

// Write sends msg, except the response to a call the client cancelled:
// the specification says the receiver should not answer it.
func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.callMu.Lock()
		delete(c.pending, resp.ID)
		drop := c.cancelled[resp.ID]
		delete(c.cancelled, resp.ID)
		c.callMu.Unlock()
		if drop {
			return nil
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

func (c *lineConn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	_, err := c.w.Write(append(data, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
