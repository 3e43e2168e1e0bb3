package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
)

// TestKeyErrorNamesEveryKey: for every key that sets a library option,
// an error the library returns for that option (a *shellcap.OptionError,
// or a message of the "pkg: option Name: reason" form jobs and mcpserver
// use) becomes one naming the key and where its value came from, and
// still matches the library's error.
func TestKeyErrorNamesEveryKey(t *testing.T) {
	n := 0
	for _, k := range Keys() {
		lib, name, ok := libraryField(k.Field)
		if !ok {
			continue
		}
		n++
		origins := Origins{k.Key: "shellcap.yaml"}
		for _, err := range []error{
			&shellcap.OptionError{Option: name, Reason: "must not be negative (got -1)"},
			fmt.Errorf("%s: option %s: must not be negative (got -1)", strings.ToLower(strings.SplitN(lib, ".", 2)[0]), name),
		} {
			got := KeyError(lib, err, origins)
			want := "config shellcap.yaml: " + k.Key + ": must not be negative (got -1)"
			if got.Error() != want {
				t.Errorf("%s (%s): %q, want %q", k.Key, k.Field, got, want)
			}
			if !errors.Is(got, ErrInvalid) || !errors.Is(got, err) {
				t.Errorf("%s: %v does not match ErrInvalid and the library's error", k.Key, got)
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d keys name a library option", n)
	}

	// Other options the reason names become keys too; an unset key has no
	// source; an error naming no option is left alone.
	err := KeyError("shellcap.Options", &shellcap.OptionError{Option: "DefaultTimeout", Reason: "20m0s is above MaxTimeout 10m0s"}, nil)
	if want := "config: default_timeout: 20m0s is above max_timeout 10m0s"; err.Error() != want {
		t.Errorf("%q, want %q", err, want)
	}
	// An option made of several keys (the sandbox) is reported under the
	// key of the inner field its error names.
	err = KeyError("shellcap.Options", &shellcap.OptionError{Option: "Sandbox", Reason: "sandbox: ProxyMaxConns (-5) and ProxyIdleTimeout (0s) may not be negative"},
		Origins{"sandbox_proxy_max_conns": "flag --sandbox-proxy-max-conns"})
	if want := "config flag --sandbox-proxy-max-conns: sandbox_proxy_max_conns: sandbox_proxy_max_conns (-5) and sandbox_proxy_idle_timeout (0s) may not be negative"; err.Error() != want {
		t.Errorf("%q, want %q", err, want)
	}
	plain := errors.New("listen tcp: address in use")
	if got := KeyError("mcpserver.HTTPOptions", plain, nil); got != plain {
		t.Errorf("an error naming no option became %v", got)
	}
	if KeyError("shellcap.Options", nil, nil) != nil {
		t.Error("nil became an error")
	}
}

// libraryField splits "shellcap.Options.MaxTimeout" into the options type
// and the field; a Field in words ("the CLI ...") is no library option.
func libraryField(field string) (lib, name string, ok bool) {
	field, _, _ = strings.Cut(field, " (")
	i := strings.LastIndexByte(field, '.')
	if i < 0 || strings.Contains(field, " ") || strings.Count(field, ".") != 2 {
		return "", "", false
	}
	return field[:i], field[i+1:], true
}

// TestNegativeDurationsAreRefused: no duration key takes a negative value,
// whatever the library would make of it.
func TestNegativeDurationsAreRefused(t *testing.T) {
	for _, k := range Keys() {
		if k.Kind != "duration" {
			continue
		}
		path := strings.Split(k.Key, ".")
		yaml := path[len(path)-1] + ": -1s\n"
		if len(path) == 2 {
			yaml = path[0] + ":\n  " + yaml
		}
		_, err := Parse([]byte(yaml), "shellcap.yaml")
		if err == nil || !strings.Contains(err.Error(), k.Key+": must not be negative") {
			t.Errorf("%s: -1s gave %v", k.Key, err)
		}
	}
}
