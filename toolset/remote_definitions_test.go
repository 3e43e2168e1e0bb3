package toolset_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/session"
	"github.com/shellcap/shellcap/toolset"
)

// describedRemote is a loopback whose definitions are those of the local
// toolset, as a worker's description gives them.
type describedRemote struct {
	loopback
	defs []toolset.Definition
}

func (d *describedRemote) Definitions() []toolset.Definition { return d.defs }

// overJSON is defs as they arrive from elsewhere: encoded and decoded.
func overJSON(t *testing.T, defs []toolset.Definition) []toolset.Definition {
	t.Helper()
	b, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	var out []toolset.Definition
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTools fails unless the remote toolset offers exactly the local
// one's tools, field for field, strict schemas included.
func sameTools(t *testing.T, local, remote *toolset.Toolset) {
	t.Helper()
	lt, rt := local.Tools(), remote.Tools()
	if len(lt) != len(rt) {
		t.Fatalf("local offers %d tools, remote %d", len(lt), len(rt))
	}
	for i := range lt {
		l, r := lt[i], rt[i]
		if !reflect.DeepEqual(l.Definition(), r.Definition()) {
			t.Errorf("tool %d: remote definition of %s differs from the local one:\n%#v\n%#v", i, l.Name, l.Definition(), r.Definition())
		}
		if !reflect.DeepEqual(l.StrictInputSchema(), r.StrictInputSchema()) {
			t.Errorf("tool %d: remote strict schema of %s differs from the local one", i, l.Name)
		}
	}
}

// TestRemoteDefinitionsFromDescription: a remote toolset given the
// definitions of a local toolset (through JSON, by Options.Definitions or
// a DescribedRemote) offers exactly that toolset's tools: its limits
// (non-default MaxTimeout, DefaultTimeout, session and promotion
// settings), only the tools it backs, none for a read-only workspace.
func TestRemoteDefinitionsFromDescription(t *testing.T) {
	limits := shellcap.Options{DefaultTimeout: 7 * time.Second, MaxTimeout: 90 * time.Second}
	noJobs := func(t *testing.T, sopts shellcap.Options) *toolset.Toolset {
		sopts.Workspace, sopts.Env = t.TempDir(), leaktest.Env(testMark)
		sh, err := shellcap.New(sopts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sh.Close() })
		ts, err := toolset.New(toolset.Options{Shell: sh})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ts.Close() })
		return ts
	}
	for _, tc := range []struct {
		name  string
		local func(t *testing.T) *toolset.Toolset
		want  int
	}{
		{"limits", func(t *testing.T) *toolset.Toolset {
			return newToolset(t, limits, toolset.Options{Session: session.Options{DefaultTimeout: 3 * time.Second, MaxTimeout: 40 * time.Second}})
		}, len(toolset.AllTools)},
		{"promotion", func(t *testing.T) *toolset.Toolset {
			return newToolset(t, limits, toolset.Options{ForegroundTimeout: time.Second})
		}, len(toolset.AllTools)},
		{"no_jobs", func(t *testing.T) *toolset.Toolset { return noJobs(t, limits) }, 2},
		{"read_only", func(t *testing.T) *toolset.Toolset { return noJobs(t, shellcap.Options{ReadOnly: true}) }, 0},
		{"subset", func(t *testing.T) *toolset.Toolset {
			return newToolset(t, limits, toolset.Options{Tools: []string{toolset.ShellTool, toolset.RunCommand}})
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			local := tc.local(t)
			if n := len(local.Tools()); n != tc.want {
				t.Fatalf("the local toolset offers %d tools, want %d", n, tc.want)
			}
			defs := overJSON(t, local.Definitions())
			if defs == nil {
				t.Fatal("the definitions decode as nil")
			}
			explicit, err := toolset.New(toolset.Options{Remote: &loopback{ts: local}, Definitions: defs})
			if err != nil {
				t.Fatal(err)
			}
			defer explicit.Close()
			sameTools(t, local, explicit)
			described, err := toolset.New(toolset.Options{Remote: &describedRemote{loopback: loopback{ts: local}, defs: overJSON(t, local.Definitions())}})
			if err != nil {
				t.Fatal(err)
			}
			defer described.Close()
			sameTools(t, local, described)
		})
	}
	// A DescribedRemote that knows nothing gives the usual definitions.
	local := newToolset(t, shellcap.Options{}, toolset.Options{})
	usual, err := toolset.New(toolset.Options{Remote: &describedRemote{loopback: loopback{ts: local}}})
	if err != nil {
		t.Fatal(err)
	}
	defer usual.Close()
	sameTools(t, local, usual)
}

// TestRemoteDefinitionsRefused: definitions that cannot describe a remote
// toolset are refused when it is built.
func TestRemoteDefinitionsRefused(t *testing.T) {
	local := newToolset(t, shellcap.Options{}, toolset.Options{})
	defs := local.Definitions()
	run := defs[0]
	bad := run
	bad.Name = "rm_rf"
	noSchema := run
	noSchema.InputSchema = nil
	for _, tc := range []struct {
		name    string
		opts    toolset.Options
		unknown bool
	}{
		{"without_remote", toolset.Options{Shell: local.Shell(), Definitions: defs}, false},
		{"with_shell", toolset.Options{Remote: &loopback{ts: local}, Shell: local.Shell(), Definitions: defs}, false},
		{"unknown_tool", toolset.Options{Remote: &loopback{ts: local}, Definitions: []toolset.Definition{bad}}, true},
		{"twice", toolset.Options{Remote: &loopback{ts: local}, Definitions: []toolset.Definition{run, run}}, false},
		{"no_schema", toolset.Options{Remote: &loopback{ts: local}, Definitions: []toolset.Definition{noSchema}}, false},
		{"tool_not_defined", toolset.Options{Remote: &loopback{ts: local}, Definitions: []toolset.Definition{run}, Tools: []string{toolset.BashTool}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, err := toolset.New(tc.opts)
			if err == nil {
				ts.Close()
				t.Fatal("accepted")
			}
			if errors.Is(err, toolset.ErrUnknownTool) != tc.unknown {
				t.Errorf("errors.Is(%v, ErrUnknownTool) = %v, want %v", err, !tc.unknown, tc.unknown)
			}
		})
	}
}
