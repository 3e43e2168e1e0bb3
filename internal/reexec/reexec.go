// Package reexec lets a binary act as its own helper process. A package
// registers an entry point under a name from its init function; when the
// binary is started with the fixed Marker as its first argument and that
// name as its second, Register runs the entry point at once and exits with
// its status, before main (or a test's TestMain) runs. Any binary that links
// the registering package, go test binaries included, can therefore serve
// as the helper.
//
// Entry points get nothing through argv but their name: whatever they need
// (policies, secrets) travels through an inherited file descriptor.
package reexec

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
)

// Marker is the first argument that selects a registered entry point.
const Marker = "__shellcap_reexec__"

var (
	mu      sync.Mutex
	entries = map[string]bool{}
)

// Register records the entry point main under name and, when this process
// was started to run exactly that entry point, runs it and exits with the
// status it returns. Call it from a package init function. It panics when
// name is empty or already registered.
func Register(name string, main func() int) {
	if name == "" || main == nil {
		panic("reexec: empty name or nil entry point")
	}
	mu.Lock()
	if entries[name] {
		mu.Unlock()
		panic("reexec: entry point registered twice: " + name)
	}
	entries[name] = true
	mu.Unlock()
	if Selected() == name {
		os.Exit(main())
	}
}

// Selected returns the entry point name this process was started for, or ""
// when it was started normally.
func Selected() string {
	if len(os.Args) >= 3 && os.Args[1] == Marker {
		return os.Args[2]
	}
	return ""
}

// Registered reports whether an entry point named name is registered.
func Registered(name string) bool {
	mu.Lock()
	defer mu.Unlock()
	return entries[name]
}

// Self returns the path that re-executes the running binary: /proc/self/exe
// on Linux, which stays valid even when the file was replaced or removed,
// else os.Executable.
func Self() (string, error) {
	if runtime.GOOS == "linux" {
		return "/proc/self/exe", nil
	}
	return os.Executable()
}

// Command prepares, without starting it, a process that runs the registered
// entry point name of this binary. Its environment is empty and it inherits
// no descriptor but the standard three unless the caller adds some.
func Command(name string) (*exec.Cmd, error) {
	if !Registered(name) {
		return nil, fmt.Errorf("reexec: no entry point %q", name)
	}
	self, err := Self()
	if err != nil {
		return nil, fmt.Errorf("reexec: %w", err)
	}
	return &exec.Cmd{
		Path: self,
		Args: []string{"shellcap-" + name, Marker, name},
		Env:  []string{},
	}, nil
}
