package reexec

import (
	"bytes"
	"os"
	"testing"
)

func init() {
	Register("reexec-test-echo", func() int {
		os.Stdout.WriteString("helper ran")
		return 7
	})
}

func TestCommandRunsEntryPoint(t *testing.T) {
	cmd, err := Command("reexec-test-echo")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	err = cmd.Run()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Fatalf("exit: %v (%v)", cmd.ProcessState, err)
	}
	if out.String() != "helper ran" {
		t.Fatalf("output %q", out.String())
	}
}

func TestCommandUnknown(t *testing.T) {
	if _, err := Command("no-such-entry"); err == nil {
		t.Fatal("want error for an unknown entry point")
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("want panic")
		}
	}()
	Register("reexec-test-echo", func() int { return 0 })
}
