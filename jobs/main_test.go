//go:build linux

package jobs_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/sandbox"
)

// testMark is put into the environment of every job (and so of every
// supervisor) the tests start, so TestMain can find any they leaked.
var testMark = leaktest.Mark("SCTEST_JOBS_MARK")

// helperEnv selects a helper role when the test binary is re-executed.
const helperEnv = "SCTEST_JOBS_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "host":
		os.Exit(hostHelper())
	case "guard":
		os.Exit(guardHelper())
	}
	os.Exit(leaktest.Main(m, testMark, 10*time.Second))
}

// hostHelper plays a host process: it starts a job in the workspace named
// by SCTEST_JOBS_WS (sandboxed when SCTEST_JOBS_SANDBOX is set, with the
// ID SCTEST_JOBS_ID when that is set), prints
// its ID and waits to be killed.
func hostHelper() int {
	sh, err := shellcap.New(shellcap.Options{Workspace: os.Getenv("SCTEST_JOBS_WS"), Env: markEnv(os.Getenv("SCTEST_JOBS_MARKV"))})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	var opts jobs.Options
	switch os.Getenv("SCTEST_JOBS_SANDBOX") {
	case "default":
		opts.Confiner = sandbox.Confiner(sandbox.Config{})
	case "allowlist":
		opts.Confiner = sandbox.Confiner(sandbox.Config{Network: sandbox.NetworkAllowlist, Allow: []string{"example.com:443"}})
	}
	m, err := jobs.New(sh, opts)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	command := "echo host-started; sleep 300"
	if c := os.Getenv("SCTEST_JOBS_CMD"); c != "" {
		command = c
	}
	res, err := m.Start(context.Background(), jobs.StartRequest{Command: command, ID: os.Getenv("SCTEST_JOBS_ID")})
	if err != nil || res.ID == "" {
		fmt.Println("error:", err, res)
		return 1
	}
	fmt.Println("ID", res.ID)
	time.Sleep(10 * time.Minute)
	return 0
}

func markEnv(value string) map[string]string {
	name, _, _ := strings.Cut(testMark, "=")
	return map[string]string{name: value}
}

// markedProcesses lists live processes carrying mark.
func markedProcesses(mark string, wait time.Duration) []int { return leaktest.Processes(mark, wait) }
