//go:build linux

package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/shellcap/shellcap/toolset"
)

// TestFrontDoorLiveOutput: through the front door, a command's output
// reaches the MCP client as progress notifications while it runs. The
// command prints a line, then waits for a file the test creates only
// once it has seen that line in a notification, five times, then prints
// "done": the command cannot finish unless each line arrived while it
// ran. The result's text is the local toolset's for the same command.
// Both the SDK's latest protocol and a stateful (older) session.
func TestFrontDoorLiveOutput(t *testing.T) {
	e := newEnv(t)
	ref := e.host("fd-live-"+sanitize(t.Name()), nil)
	endpoint, _ := e.frontDoor(ref)
	const rounds = 5
	for _, protocol := range []string{"", legacyProtocol} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			dir := filepath.Join(ref.Path, "live-"+sanitize(t.Name()))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			command := fmt.Sprintf(`cd %s && for i in $(seq %d); do date +%%s%%N > t$i; echo line$i; while [ ! -e go$i ]; do sleep 0.02; done; done; echo done`, dir, rounds)

			var mu sync.Mutex
			var got strings.Builder
			seen := 0
			var late []time.Duration
			cs := e.mcpClient(endpoint, "", protocol, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					now := time.Now()
					mu.Lock()
					defer mu.Unlock()
					got.WriteString(req.Params.Message)
					for seen < rounds && strings.Contains(got.String(), fmt.Sprintf("line%d\n", seen+1)) {
						seen++
						if b, err := os.ReadFile(filepath.Join(dir, "t"+strconv.Itoa(seen))); err == nil {
							if ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
								late = append(late, now.Sub(time.Unix(0, ns)))
							}
						}
						if err := os.WriteFile(filepath.Join(dir, "go"+strconv.Itoa(seen)), nil, 0o644); err != nil {
							t.Error(err)
						}
					}
				},
			})
			params := &mcp.CallToolParams{Name: toolset.RunCommand, Arguments: map[string]any{"command": command, "timeout_seconds": 60}}
			params.SetProgressToken("tok-live")
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			mu.Lock()
			progress, n, lateness := got.String(), seen, append([]time.Duration(nil), late...)
			mu.Unlock()
			if n != rounds {
				t.Fatalf("the client saw %d of %d lines as progress (%q); the result: %q", n, rounds, progress, text)
			}
			if !strings.HasPrefix("line1\nline2\nline3\nline4\nline5\ndone\n", progress) || !strings.Contains(progress, "line5\n") {
				t.Errorf("the progress notifications read %q", progress)
			}

			// The same command on a local toolset, its files already there.
			twin := t.TempDir()
			for i := 1; i <= rounds; i++ {
				if err := os.WriteFile(filepath.Join(twin, "go"+strconv.Itoa(i)), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			local := localToolset(t, ref.Host, twin)
			raw, _ := json.Marshal(map[string]any{"command": strings.Replace(command, dir, twin, 1), "timeout_seconds": 60})
			want, err := local.Call(context.Background(), nil, toolset.RunCommand, raw, toolset.Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			if text != want.ModelText() || res.IsError != want.IsError {
				t.Errorf("the result through the front door:\n%q\nlocally:\n%q", text, want.ModelText())
			}
			sort.Slice(lateness, func(i, j int) bool { return lateness[i] < lateness[j] })
			t.Logf("a line reached the client %v after the command printed it (sorted, %d lines)", lateness, len(lateness))
		})
	}

	// The output travels in heartbeats, not in history: a call printing
	// 40 chunks over a second adds as many events to the session's history
	// as one printing nothing.
	cs := e.mcpClient(endpoint, "", "", &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {}})
	added := func(command string) int {
		before := historyLength(t, e, ref)
		params := &mcp.CallToolParams{Name: toolset.RunCommand, Arguments: map[string]any{"command": command}}
		params.SetProgressToken("tok-history")
		if _, err := cs.CallTool(context.Background(), params); err != nil {
			t.Fatal(err)
		}
		return historyLength(t, e, ref) - before
	}
	// The run's first call without a timeout describes the workspace
	// (once per run, see TestSessionLearnsLimits): it comes first.
	added("true")
	quiet := added("true")
	chatty := added("for i in $(seq 40); do echo chunk $i; sleep 0.025; done")
	if chatty != quiet {
		t.Errorf("a call printing 40 chunks added %d history events, one printing nothing %d", chatty, quiet)
	}
}

// historyLength is the number of events in the history of the current run
// of ref's session workflow.
func historyLength(t *testing.T, e *env, ref WorkspaceRef) int {
	t.Helper()
	it := e.c.GetWorkflowHistory(context.Background(), SessionWorkflowID(ref), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	n := 0
	for it.HasNext() {
		if _, err := it.Next(); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// TestFrontDoorCancelStopsCommand: an MCP client cancels its call of a
// long command; as with a local shellcap serve, the command's process
// group is stopped (within the kill grace, 1 s here, and a heartbeat),
// and the conversation's next call runs.
func TestFrontDoorCancelStopsCommand(t *testing.T) {
	e := newEnv(t)
	ref := e.host("fd-cancel-"+sanitize(t.Name()), nil)
	endpoint, _ := e.frontDoor(ref)
	cs := e.mcpClient(endpoint, "", legacyProtocol, nil)
	pidFile := filepath.Join(ref.Path, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: toolset.RunCommand, Arguments: map[string]any{"command": "echo $$ > pid.tmp && mv pid.tmp pid; sleep 120", "timeout_seconds": 300}})
		done <- err
	}()
	pgid := 0
	for deadline := time.Now().Add(time.Minute); pgid == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil {
			pgid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	for deadline := time.Now().Add(20 * time.Second); syscall.Kill(-pgid, 0) == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			t.Fatalf("20 s after the MCP call was cancelled, its process group %d still runs", pgid)
		}
	}
	text, isErr, _ := callText(t, cs, toolset.RunCommand, map[string]any{"command": "echo next"})
	if isErr || !strings.Contains(text, "next") {
		t.Errorf("the conversation's next call: %q (error %v)", text, isErr)
	}
}
