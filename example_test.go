package shellcap_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/shellcap/shellcap"
)

func ExampleShell_Run() {
	ws, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(ws)
	sh, err := shellcap.New(shellcap.Options{Workspace: ws})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sh.Close()
	res, err := sh.Run(context.Background(), shellcap.Request{
		Command: "echo building; echo 'main.go:3: undefined: x' >&2; exit 1",
		Timeout: time.Minute,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	// Output:
	// [stdout]
	// building
	//
	// [stderr]
	// main.go:3: undefined: x
	//
	// [exit code: 1]
}

func ExampleShell_Run_timeout() {
	ws, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(ws)
	sh, _ := shellcap.New(shellcap.Options{Workspace: ws, KillGrace: 100 * time.Millisecond})
	defer sh.Close()
	res, _ := sh.Run(context.Background(), shellcap.Request{Command: "echo waiting; sleep 60", Timeout: 500 * time.Millisecond})
	fmt.Println(res.Text())
	// Output:
	// [stdout]
	// waiting
	//
	// [Command timed out after 0.5s]
}

func ExampleShell_Run_refused() {
	ws, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(ws)
	sh, _ := shellcap.New(shellcap.Options{Workspace: ws})
	defer sh.Close()
	res, err := sh.Run(context.Background(), shellcap.Request{Command: "echo \x00"})
	fmt.Println(err)
	fmt.Println(res.Text())
	// Output:
	// <nil>
	// The command contains a NUL byte, which cannot be passed to a process.
}
