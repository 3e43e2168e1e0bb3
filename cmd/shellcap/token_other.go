//go:build !unix

package main

import (
	"os"
	"strings"
)

var tokenVars = []string{"SHELLCAP_TOKEN", "SHELLCAP_SERVER_TOKEN"}

// dropTokenFromEnv does nothing here: there is no /proc to read another
// process's environment from.
func dropTokenFromEnv() error { return nil }

func readTokenFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}
