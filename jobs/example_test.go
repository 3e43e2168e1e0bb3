//go:build linux

package jobs_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

func Example() {
	dir, _ := os.MkdirTemp("", "jobs-example-")
	defer os.RemoveAll(dir)
	sh, err := shellcap.New(shellcap.Options{Workspace: dir})
	if err != nil {
		panic(err)
	}
	defer sh.Close()
	m, err := jobs.New(sh, jobs.Options{})
	if err != nil {
		panic(err)
	}
	defer m.Close()
	ctx := context.Background()

	started, _ := m.Start(ctx, jobs.StartRequest{Command: "echo hello; exit 3"})
	fmt.Println(started.Text()[:len("Started background command: 'echo hello; exit 3'")])
	done, _ := m.Wait(ctx, started.ID, time.Minute)
	fmt.Println(done.Text())
	stopped, _ := m.Stop(ctx, jobs.StopRequest{ID: started.ID}) // removes its files
	fmt.Println(stopped.Text())
	// Output:
	// Started background command: 'echo hello; exit 3'
	// [stdout]
	// hello
	//
	// [status: finished]
	// [exit code: 3]
	// [stdout]
	// hello
	//
	// [stopped]
	// [exit code: 3]
}
