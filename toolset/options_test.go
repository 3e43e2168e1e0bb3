package toolset_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/toolset"
)

// TestOptions: Options.Tools chooses the tools, an unknown or unbackable
// one is ErrUnknownTool, as is a call of a tool not offered; without Jobs
// only run_command and bash are offered.
func TestOptions(t *testing.T) {
	sh, err := shellcap.New(shellcap.Options{Workspace: t.TempDir(), Env: leaktest.Env(testMark)})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	if _, err := toolset.New(toolset.Options{Shell: sh, Tools: []string{"format_disk"}}); !errors.Is(err, toolset.ErrUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
	if _, err := toolset.New(toolset.Options{Shell: sh, Tools: []string{toolset.StartCommand}}); !errors.Is(err, toolset.ErrUnknownTool) {
		t.Errorf("start_command without Jobs: %v", err)
	}
	if _, err := toolset.New(toolset.Options{}); err == nil {
		t.Error("no Shell: no error")
	}
	ts, err := toolset.New(toolset.Options{Shell: sh})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	var names []string
	for _, tool := range ts.Tools() {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{toolset.RunCommand, toolset.BashTool}) {
		t.Errorf("tools without Jobs: %v", names)
	}
	if _, err := ts.Call(context.Background(), nil, toolset.StopCommand, nil, toolset.Hooks{}); !errors.Is(err, toolset.ErrUnknownTool) {
		t.Errorf("calling a tool not offered: %v", err)
	}
	if ts.Tool(toolset.StopCommand) != nil || ts.Tool(toolset.RunCommand) == nil {
		t.Error("Tool(name) disagrees with Tools()")
	}
	res, err := ts.Call(context.Background(), nil, toolset.RunCommand, nil, toolset.Hooks{})
	if err != nil || !res.IsError || res.Text != `Invalid arguments for run_command: missing required argument "command".` {
		t.Errorf("no arguments: %v %+v", err, res)
	}
}
