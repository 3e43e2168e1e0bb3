package sandbox

import (
	"strings"
	"testing"
)

// onlyNamespacesStop are the escapes that, on a machine without user
// namespaces, nothing but the missing mount and pid namespaces would stop:
// the downgrade report says the protected paths are not enforced, and the
// host /proc and file metadata stay reachable. TestDegradedEscapes skips
// the first kind and logs what the second kind does.
var onlyNamespacesStop = map[string]string{
	"write .git/hooks/pre-commit":                  "protected path",
	"overwrite existing hook":                      "protected path",
	"append .git/config":                           "protected path",
	"git config core.hooksPath":                    "protected path",
	"replace .git/hooks with symlink":              "protected path",
	"rename .git/hooks away":                       "protected path",
	"rename .git and recreate":                     "protected path",
	"nested repo hook":                             "protected path",
	"rename nested .git":                           "protected path",
	"rename parent of nested repo":                 "protected path",
	"create hooks dir in repo without one":         "protected path",
	"write core.hooksPath hook":                    "protected path",
	"write .mcp.json":                              "protected path",
	"replace .mcp.json by rename":                  "protected path",
	"write .vscode/settings.json":                  "protected path",
	"workspace .bashrc":                            "protected path",
	"write an agent or hook-manager configuration": "protected path",
	"replace an agent configuration directory":     "protected path",
	// Landlock governs no file metadata: without read-only mounts the
	// command may chmod, chown, utime and setxattr the files its user owns
	// outside the workspace.
	"chmod outside":         "metadata",
	"touch -d outside":      "metadata",
	"chown outside to self": "metadata",
	"setxattr outside":      "metadata",
	// Without a pid namespace and a fresh /proc the host's processes are
	// listed, their cmdline is world-readable, and a process of the same
	// user lets its own user list its descriptors (no ptrace check).
	"host process visible in /proc": "host /proc",
	"read host /proc/PID/cmdline":   "host /proc",
	"list host /proc/PID/fd":        "host /proc",
}

// degradedEscapes are the escapes TestDegradedEscapes runs: all of them but
// the protected-path ones.
func degradedEscapes() []string {
	var names []string
	for _, e := range (&fixture{}).escapes() {
		if onlyNamespacesStop[e.name] != "protected path" {
			names = append(names, e.name)
		}
	}
	return names
}

// TestDegradedEscapes runs the escape attempts that reach outside the
// workspace on a simulated machine without user namespaces (AllowDegraded):
// there the host's processes are visible, and Landlock (signal scope, its
// ptrace check, filesystem rules) and seccomp alone must stop signals,
// ptrace, /proc/PID/environ and writes against the user's own processes and
// files. Run unprivileged, those are the targets that matter.
func TestDegradedEscapes(t *testing.T) {
	requireSandbox(t)
	probeHook = func(c *Capabilities) { c.UserNamespaces, c.UserNamespacesError = false, "simulated" }
	defer func() { probeHook = nil }()
	for _, name := range degradedEscapes() {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			e := f.escapeNamed(name)
			cfg := f.config(WorkspaceWrite)
			cfg.AllowDegraded = true
			o := runIn(t, cfg, e.script, "SCTEST_CHILD=1")
			out := o.stdout + o.stderr
			if gap := onlyNamespacesStop[name]; gap != "" {
				t.Logf("without namespaces (%s, a reported downgrade): exit %d %s", gap, o.code, strings.TrimSpace(out))
				return
			}
			t.Logf("exit %d: %s", o.code, strings.TrimSpace(out))
			if o.code == 0 {
				t.Errorf("escape succeeded without namespaces: %q\n%s", e.script, out)
			}
			if e.want != "" && !strings.Contains(strings.ToLower(out), e.want) {
				t.Errorf("want %q in output, got %q", e.want, out)
			}
			if strings.Contains(out, secretText) {
				t.Errorf("secret leaked: %q", out)
			}
			f.untouched(t)
		})
	}
}
