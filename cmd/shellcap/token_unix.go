//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/reexec"
)

// tokenVars are the environment variables that may carry the bearer token.
var tokenVars = []string{"SHELLCAP_TOKEN", "SHELLCAP_SERVER_TOKEN"}

// dropTokenFromEnv re-executes `shellcap serve` without the token in its
// environment when it was started with one: /proc/PID/environ shows a
// process's initial environment to every process of the same user, and
// unsetting a variable does not change it. The token travels to the new
// image in a pipe named by --token-file=/dev/fd/N, which is read and
// closed at start. It returns only when there is nothing to do or the
// exec failed.
func dropTokenFromEnv() error {
	var token string
	for _, v := range tokenVars {
		if t := os.Getenv(v); t != "" {
			if token != "" && t != token {
				return fmt.Errorf("SHELLCAP_TOKEN and SHELLCAP_SERVER_TOKEN differ")
			}
			token = t
		}
	}
	if token == "" {
		return nil
	}
	for _, a := range os.Args[1:] {
		if a == "--token-file" || strings.HasPrefix(a, "--token-file=") {
			return errors.New("give the token in SHELLCAP_TOKEN or --token-file, not both")
		}
	}
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil { // not close-on-exec: the new image reads it
		return err
	}
	if len(token) >= 64<<10 {
		return errors.New("the bearer token is too long")
	}
	if _, err := unix.Write(p[1], []byte(token)); err != nil {
		return err
	}
	unix.Close(p[1])
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(tokenVars, name)
	})
	self, err := reexec.Self()
	if err != nil {
		return err
	}
	args := append(slices.Clone(os.Args), "--token-file=/dev/fd/"+strconv.Itoa(p[0]))
	err = syscall.Exec(self, args, env)
	unix.Close(p[0])
	return fmt.Errorf("re-executing without the token in the environment: %w", err)
}

// readTokenFile reads the bearer token from path (a file or /dev/fd/N,
// which is closed after reading so no command inherits it). Surrounding
// whitespace is dropped.
func readTokenFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if n, ok := strings.CutPrefix(path, "/dev/fd/"); ok {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			unix.Close(fd)
		}
	}
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	token := strings.TrimSpace(string(data))
	if token == "" {
		return "", fmt.Errorf("token file %s is empty", path)
	}
	return token, nil
}
