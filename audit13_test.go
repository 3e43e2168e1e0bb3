package shellcap_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"encoding/json"
	"github.com/shellcap/shellcap/internal/core"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
)

// TestRefusedResultJSONByValue: a refused Result has "exit_code": null and
// its "error" however it is marshalled: through a pointer, as a value, or
// as a value inside another structure (a slice, a map, a struct field), so
// no host reads a refusal as exit code 0.
func TestRefusedResultJSONByValue(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	res := run(t, sh, shellcap.Request{Command: "   "})
	if res.Err == nil {
		t.Fatalf("a whitespace-only command ran: %+v", res)
	}
	for name, v := range map[string]any{
		"pointer": res,
		"value":   *res,
		"slice":   []shellcap.Result{*res},
		"map":     map[string]shellcap.Result{"r": *res},
		"field":   struct{ R shellcap.Result }{*res},
	} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := string(data)
		if !strings.Contains(s, `"exit_code":null`) || !strings.Contains(s, `"error":"The command is empty."`) {
			t.Errorf("%s: %s", name, s)
		}
	}
}

// TestSettingsMirrorEveryOption: every field of the seam's core.Settings
// named like a field of Options carries the Shell's value for it, so an
// executor that reads Settings sees what the Shell was given (the stream
// budgets were once never copied, so jobs could not honour them).
func TestSettingsMirrorEveryOption(t *testing.T) {
	opts := shellcap.Options{
		DefaultTimeout: 7 * time.Second, MaxTimeout: 70 * time.Second, KillGrace: 700 * time.Millisecond,
		MaxOutputBytes: 7 << 20, MaxOutputChars: 777, HeadAndTail: true,
		StdoutBudget: shellcap.Budget{Head: 11, Tail: 12}, StderrBudget: shellcap.Budget{Head: 13, Tail: 14},
		KeepANSI: true, MaxFileBytes: 7 << 20, MemoryLimit: 7 << 30, CPUTime: 77 * time.Second,
		MaxProcesses: 777, PersistCwd: true, DeniedEnvPatterns: []string{"AUDIT_*"},
		Env: map[string]string{"SETTINGS_AUDIT": "1"},
	}
	sh := newShell(t, opts)
	settings := reflect.ValueOf(core.Of(sh).Settings)
	given := reflect.ValueOf(opts)
	checked := 0
	for i := range settings.NumField() {
		name := settings.Type().Field(i).Name
		want := given.FieldByName(name)
		if !want.IsValid() {
			continue
		}
		checked++
		got := settings.Field(i)
		if want.Kind() == reflect.Map {
			// The Shell adds its non-interactive defaults to Options.Env.
			for _, k := range want.MapKeys() {
				if got.MapIndex(k).Interface() != want.MapIndex(k).Interface() {
					t.Errorf("Settings.%s lacks %v=%v", name, k, want.MapIndex(k))
				}
			}
			continue
		}
		if want.Kind() == reflect.Slice {
			if !reflect.DeepEqual(got.Interface(), want.Interface()) {
				t.Errorf("Settings.%s = %v, Options.%s = %v", name, got, name, want)
			}
			continue
		}
		if got.Kind() == reflect.Struct {
			// core.Budget and shellcap.Budget: same fields.
			for j := range got.NumField() {
				if got.Field(j).Interface() != want.Field(j).Interface() {
					t.Errorf("Settings.%s = %v, Options.%s = %v", name, got, name, want)
				}
			}
			continue
		}
		if !want.IsZero() && got.Interface() != want.Interface() {
			t.Errorf("Settings.%s = %v, Options.%s = %v", name, got, name, want)
		}
		if want.IsZero() && name != "ReadOnly" && name != "DieWithProcess" && name != "Workspace" {
			t.Errorf("the test sets no Options.%s: add it", name)
		}
	}
	if checked < 15 {
		t.Fatalf("only %d fields compared", checked)
	}
}

// TestVanishedWorkingDirectory: a persisted working directory that was
// deleted (with its parent) refuses that call with the retry message
// naming it, runs nothing, and the next call runs in the workspace root.
func TestVanishedWorkingDirectory(t *testing.T) {
	sh := newShell(t, shellcap.Options{PersistCwd: true})
	run(t, sh, shellcap.Request{Command: "mkdir -p d/e && cd d/e"})
	gone := filepath.Join(sh.Workspace(), "d", "e")
	if err := os.RemoveAll(filepath.Join(sh.Workspace(), "d")); err != nil {
		t.Fatal(err)
	}
	res := run(t, sh, shellcap.Request{Command: "touch here"})
	want := "The working directory " + gone + " no longer exists, so the command was not run. The next command starts in the workspace root " + sh.Workspace() + ": run it again"
	if !errors.Is(res.Err, shellcap.ErrWorkdirGone) || !strings.HasPrefix(res.Text(), want) {
		t.Fatalf("Err %v, text:\n%s", res.Err, res.Text())
	}
	if data, _ := json.Marshal(res); !strings.Contains(string(data), `"exit_code":null`) {
		t.Errorf("JSON: %s", data)
	}
	if _, err := os.Stat(filepath.Join(sh.Workspace(), "here")); err == nil {
		t.Fatal("the refused command ran in the root")
	}
	res = run(t, sh, shellcap.Request{Command: "pwd -P; touch here"})
	if res.Err != nil || strings.TrimSpace(res.Stdout) != sh.Workspace() {
		t.Fatalf("the next call: pwd = %q (%v)", res.Stdout, res.Err)
	}
}
