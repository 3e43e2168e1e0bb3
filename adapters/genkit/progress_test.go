package shellgenkit_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shellcap/shellcap"
	shellgenkit "github.com/shellcap/shellcap/adapters/genkit"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

// TestOutputReachesTheHostWhileTheCommandRuns: through genkit.Generate, a
// run_command's first line reaches the context's OutputFunc before the
// command ends. The command waits for a file that only the OutputFunc
// creates, on seeing that line, so it prints "streamed" only if the output
// arrived while it ran; the model still reads the toolset's whole text.
func TestOutputReachesTheHostWhileTheCommandRuns(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, shellcap.Options{Workspace: ws})
	order := make(chan string, 64)
	var once sync.Once
	h.wrap = func(ctx context.Context) context.Context {
		return shellgenkit.WithOutput(ctx, func(ctx context.Context, s shellcap.Stream, data []byte) {
			if s == shellcap.Stdout && strings.Contains(string(data), "first") {
				once.Do(func() {
					order <- "chunk"
					os.WriteFile(filepath.Join(ws, "go-on"), nil, 0o644)
				})
			}
		})
	}
	conv := h.ts.Conversation("progress")
	defer conv.Close()
	cmd := "echo first; for i in $(seq 400); do [ -e go-on ] && break; sleep 0.05; done; [ -e go-on ] && echo streamed || echo not-streamed"
	h.turn(conv, nil, "run it", nil, callTool(toolset.RunCommand, map[string]any{"command": cmd}), say("done"))
	order <- "returned"
	close(order)
	var seq []string
	for s := range order {
		seq = append(seq, s)
	}
	if strings.Join(seq, ",") != "chunk,returned" {
		t.Errorf("order %v, want the chunk before Generate returned", seq)
	}
	if got := h.got(1); len(got) != 1 || got[0].Text != "[stdout]\nfirst\nstreamed\n" {
		t.Errorf("model received %+v", got)
	}
}

// TestShellEventsReachTheHost: the shell tool's job events reach the
// context's EventFunc, and a context without hooks drops them.
func TestShellEventsReachTheHost(t *testing.T) {
	h := newHarness(t, shellcap.Options{})
	var mu sync.Mutex
	var kinds []jobs.ShellEventKind
	h.wrap = func(ctx context.Context) context.Context {
		return shellgenkit.WithEvent(ctx, func(_ context.Context, ev jobs.ShellEvent) {
			mu.Lock()
			kinds = append(kinds, ev.Kind)
			mu.Unlock()
		})
	}
	conv := h.ts.Conversation("events")
	defer conv.Close()
	h.turn(conv, nil, "run it", nil, callTool(toolset.ShellTool, map[string]any{"command": "echo via-shell"}), say("done"))
	if got := h.got(1); len(got) != 1 || !strings.Contains(got[0].Text, "via-shell") {
		t.Errorf("model received %+v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(kinds) == 0 {
		t.Error("the EventFunc received no job event")
	}
}
