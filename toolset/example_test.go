package toolset_test

import (
	"context"
	"fmt"
	"os"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
)

// An adapter's whole job: offer each tool, route each call to the
// conversation it belongs to, and map approvals to the framework's
// human-in-the-loop mechanism (here, interrupt and resume).
func Example() {
	ws, _ := os.MkdirTemp("", "toolset-example")
	defer os.RemoveAll(ws)
	sh, err := shellcap.New(shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}, Approve: toolset.Approve})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sh.Close()
	ts, err := toolset.New(toolset.Options{Shell: sh})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ts.Close()
	for _, t := range ts.Tools() {
		fmt.Println(t.Name, t.Annotations.ReadOnly)
	}

	ctx := context.Background()
	conv := ts.Conversation("thread-1")
	defer conv.Close()
	res, _ := conv.Call(ctx, toolset.BashTool, []byte(`{"command":"cd /tmp && echo $PWD"}`), toolset.Hooks{})
	fmt.Print(res.ModelText())

	// A command the policy asks about ends the call with the question ...
	args := []byte(`{"command":"touch notes.txt"}`)
	res, _ = conv.Call(ctx, toolset.RunCommand, args, toolset.Hooks{Interrupt: true})
	fmt.Println("asks about:", res.Pending.Command)
	// ... and the framework resumes it with the user's answer.
	answer := &toolset.Answer{Command: res.Pending.Command, Approved: true}
	res, _ = conv.Call(ctx, toolset.RunCommand, args, toolset.Hooks{Interrupt: true, Answer: answer})
	_, err = os.Stat(ws + "/notes.txt")
	fmt.Println("ran:", !res.IsError && err == nil)

	// Bad arguments get one precise text.
	res, _ = conv.Call(ctx, toolset.RunCommand, []byte(`{"cmd":"ls"}`), toolset.Hooks{})
	fmt.Println(res.Text, res.IsError)
	// Output:
	// run_command false
	// bash false
	// [stdout]
	// /tmp
	// asks about: touch notes.txt
	// ran: true
	// Invalid arguments for run_command: unknown argument "cmd". true
}
