package main

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/container"
	"github.com/shellcap/shellcap/internal/cliconf"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/mcpserver"
	"github.com/shellcap/shellcap/session"
)

// commandsThatRun are the subcommands that run commands, and the scope of
// the keys whose flags they must have.
var commandsThatRun = map[string]config.Scope{
	"run": config.Commands, "repl": config.Commands, "start": config.Commands, "check": config.Commands,
	"wait": config.Commands, "stop": config.Commands, "input": config.Commands, "jobs": config.Commands,
	"mcp": config.Servers, "serve": config.Serve,
}

func subcommand(t *testing.T, name string) *cobra.Command {
	t.Helper()
	for _, c := range newRootCmd().Commands() {
		if c.Name() == name {
			return c
		}
	}
	t.Fatalf("no subcommand %s", name)
	return nil
}

// TestEveryKeyHasAFlag checks that every subcommand that runs commands has
// the flag of every key of its scope, with the key's description, and that
// every flag of the option set is a key's or a documented helper.
func TestEveryKeyHasAFlag(t *testing.T) {
	for name, scope := range commandsThatRun {
		cmd := subcommand(t, name)
		for _, k := range config.Keys() {
			fl := cmd.Flags().Lookup(k.Flag)
			switch {
			case cliconf.InScope(k, scope) && fl == nil:
				t.Errorf("%s has no --%s for %s", name, k.Flag, k.Key)
			case cliconf.InScope(k, scope) && !strings.Contains(fl.Usage, k.Env):
				t.Errorf("%s --%s: usage %q does not name %s", name, k.Flag, fl.Usage, k.Env)
			}
		}
	}
	var of cliconf.Flags
	fs := pflag.NewFlagSet("options", pflag.ContinueOnError)
	of.Register(fs, config.Serve)
	flags := map[string]bool{}
	for _, k := range config.Keys() {
		flags[k.Flag] = true
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if !flags[f.Name] && cliconf.HelperFlags[f.Name] == "" {
			t.Errorf("flag --%s of the option set sets no configuration key", f.Name)
		}
	})
}

// TestEveryLibraryOptionHasAKey checks that every field of the options the
// CLI builds is set by a configuration key or excluded with a reason.
func TestEveryLibraryOptionHasAKey(t *testing.T) {
	set := map[string]bool{}
	for _, k := range config.Keys() {
		set[strings.Fields(k.Field)[0]] = true
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[shellcap.Options](), reflect.TypeFor[session.Options](), reflect.TypeFor[jobs.Options](),
		reflect.TypeFor[container.Options](), reflect.TypeFor[mcpserver.Options](),
	} {
		for i := range typ.NumField() {
			name := typ.String() + "." + typ.Field(i).Name
			if typ == reflect.TypeFor[shellcap.Options]() && typ.Field(i).Name == "Policy" {
				continue // the policy.* keys, field by field
			}
			switch reason, excluded := notConfigurable[name]; {
			case set[name] && excluded:
				t.Errorf("%s is set by a key and also excluded (%s)", name, reason)
			case !set[name] && !excluded:
				t.Errorf("%s has no configuration key and is not excluded in notConfigurable", name)
			}
		}
	}
	for name := range notConfigurable {
		_, field, _ := strings.Cut(name, ".Options.")
		found := false
		for _, t := range []reflect.Type{
			reflect.TypeFor[shellcap.Options](), reflect.TypeFor[session.Options](), reflect.TypeFor[jobs.Options](),
			reflect.TypeFor[container.Options](), reflect.TypeFor[mcpserver.Options](),
		} {
			if _, ok := t.FieldByName(field); ok && t.String() == strings.TrimSuffix(name, "."+field) {
				found = true
			}
		}
		if !found {
			t.Errorf("notConfigurable lists %s, which is no option", name)
		}
	}
}

// TestREADMEConfigTable fails when the README's table of keys is not what
// `shellcap config table` prints; -update rewrites it.
func TestREADMEConfigTable(t *testing.T) {
	const path = "../../README.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, tableBegin), strings.Index(s, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q ... %q markers", tableBegin, tableEnd)
	}
	got, want := s[i+len(tableBegin):j], "\n"+configTable()
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(s[:i+len(tableBegin)]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the README's configuration table is stale: run go test ./cmd/shellcap -run TestREADMEConfigTable -update")
}
