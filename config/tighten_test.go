package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shellcap/shellcap/policy"
)

// TestTightenRulesCoverEveryKey: every key is classified, so a new key is
// decided on purpose (Tighten refuses an unclassified one anyway).
func TestTightenRulesCoverEveryKey(t *testing.T) {
	for _, fd := range fields {
		if _, ok := tightenRules[fd.key]; !ok {
			t.Errorf("key %s has no tightening rule", fd.key)
		}
	}
}

func mustParse(t *testing.T, yaml string) *File {
	t.Helper()
	f, err := Parse([]byte(yaml), "test.yaml")
	if err != nil {
		t.Fatalf("%q: %v", yaml, err)
	}
	return f
}

// TestTighten: for each key, what an untrusted file may and may not do
// against a base configuration (the user's layers; empty is the defaults).
func TestTighten(t *testing.T) {
	tests := []struct {
		base, untrusted string
		key             string
		accepted        bool
		want            string // the accepted layer's value, as YAML, when accepted
	}{
		// Refused whatever the value: they cannot be ordered.
		{"", "workspace: /", "workspace", false, ""},
		{"", "shell: /tmp/evil", "shell", false, ""},
		{"", "env: {PATH: /tmp}", "env", false, ""},
		{"", "server: {addr: '0.0.0.0:1'}", "server.addr", false, ""},
		{"", "server: {token: 0123456789abcdef}", "server.token", false, ""},
		{"", "head_and_tail: true", "head_and_tail", false, ""},
		{"", "persist_cwd: true", "persist_cwd", false, ""},
		// Booleans: only the strict side.
		{"", "read_only: true", "read_only", true, "true"},
		{"read_only: true", "read_only: false", "read_only", false, ""},
		{"", "keep_ansi: true", "keep_ansi", false, ""},
		{"", "disable_output_files: true", "disable_output_files", true, "true"},
		{"", "acknowledge_unsafe: true", "acknowledge_unsafe", false, ""},
		{"", "acknowledge_unsafe: false", "acknowledge_unsafe", true, "false"},
		{"", "sandbox_read_everything: true", "sandbox_read_everything", false, ""},
		{"", "policy: {allow_interactive: true}", "policy.allow_interactive", false, ""},
		{"", "policy: {approval: true}", "policy.approval", true, "true"},
		{"policy: {approval: true}", "policy: {approval: false}", "policy.approval", false, ""},
		// Durations and caps: lower only, zero (the default or no limit) refused.
		{"", "default_timeout: 10s", "default_timeout", true, "10s"},
		{"", "default_timeout: 31s", "default_timeout", false, ""},
		{"default_timeout: 5s", "default_timeout: 10s", "default_timeout", false, ""},
		{"", "max_timeout: 11m", "max_timeout", false, ""},
		{"max_timeout: 1h", "max_timeout: 20m", "max_timeout", true, "20m0s"},
		{"", "kill_grace: 0s", "kill_grace", false, ""},
		{"", "output_retention: 1h", "output_retention", true, "1h0m0s"},
		{"", "max_output_bytes: 1MiB", "max_output_bytes", true, "1048576"},
		{"", "max_output_bytes: -1", "max_output_bytes", false, ""},
		// Session and job settings inherit the Shell's when unset: a
		// workspace file can only go below the Shell's effective value.
		{"", "session: {default_timeout: 10s}", "session.default_timeout", true, "10s"},
		{"default_timeout: 5s", "session: {default_timeout: 10s}", "session.default_timeout", false, ""},
		{"default_timeout: 5s", "session: {default_timeout: 3s}", "session.default_timeout", true, "3s"},
		{"max_output_chars: 100", "session: {max_output_chars: 200}", "session.max_output_chars", false, ""},
		{"max_output_chars: -1", "session: {max_output_chars: 200000}", "session.max_output_chars", true, "200000"},
		{"kill_grace: 1s", "jobs: {kill_grace: 2s}", "jobs.kill_grace", false, ""},
		{"", "jobs: {max_jobs: 4}", "jobs.max_jobs", true, "4"},
		{"", "jobs: {max_jobs: 64}", "jobs.max_jobs", false, ""},
		{"", "jobs: {key_dir: /tmp/k}", "jobs.key_dir", false, ""},
		{"", "executor: container", "executor", false, ""},
		{"", "container: {image: evil}", "container.image", false, ""},
		{"", "container: {mode: persistent}", "container.mode", false, ""},
		{"container: {mode: persistent}", "container: {mode: stateless}", "container.mode", true, "stateless"},
		{"", "container: {memory: 128MiB}", "container.memory", true, "134217728"},
		{"", "container: {writable_workspace: true}", "container.writable_workspace", false, ""},
		{"", "die_with_process: true", "die_with_process", true, "true"},
		{"", "server: {foreground_timeout: 1s}", "server.foreground_timeout", false, ""},
		{"max_output_bytes: -1", "max_output_bytes: 1GiB", "max_output_bytes", true, "1073741824"},
		{"", "max_output_chars: 60000", "max_output_chars", false, ""},
		{"", "max_output_chars: -1", "max_output_chars", false, ""},
		{"", "memory_limit: 1GiB", "memory_limit", true, "1073741824"},
		{"memory_limit: 1GiB", "memory_limit: 2GiB", "memory_limit", false, ""},
		{"memory_limit: 1GiB", "memory_limit: 0", "memory_limit", false, ""},
		{"", "cpu_time: 1m", "cpu_time", true, "1m0s"},
		{"", "max_file_bytes: 1MiB", "max_file_bytes", true, "1048576"},
		{"", "max_processes: 100", "max_processes", true, "100"},
		{"max_processes: 10", "max_processes: 100", "max_processes", false, ""},
		{"", "server: {max_body_bytes: 8MiB}", "server.max_body_bytes", false, ""},
		{"", "server: {session_idle_timeout: 5m}", "server.session_idle_timeout", true, "5m0s"},
		{"", "server: {probe_timeout: 1m}", "server.probe_timeout", false, ""},
		// Lists that allow: a subset only.
		{"", "pass_env: [SECRET]", "pass_env", false, ""},
		{"pass_env: [A, B]", "pass_env: [A]", "pass_env", true, "[A]"},
		{"", "tools: [run_command]", "tools", true, "[run_command]"},
		{"tools: [run_command]", "tools: [run_command, bash]", "tools", false, ""},
		{"", "policy: {allowed_commands: [rm]}", "policy.allowed_commands", false, ""},
		{"policy: {allowed_commands: [git, go]}", "policy: {allowed_commands: [git]}", "policy.allowed_commands", true, "[git]"},
		{"policy: {allowed_commands: [git]}", "policy: {allowed_commands: [git, rm]}", "policy.allowed_commands", false, ""},
		{"", "policy: {allow_patterns: ['^git ']}", "policy.allow_patterns", true, "['^git ']"},
		{"policy: {allow_patterns: ['^git ']}", "policy: {allow_patterns: ['.*']}", "policy.allow_patterns", false, ""},
		{"", "server: {allowed_origins: ['http://evil']}", "server.allowed_origins", false, ""},
		{"server: {allowed_origins: ['http://a', 'http://b']}", "server: {allowed_origins: ['http://a']}", "server.allowed_origins", true, "['http://a']"},
		{"", "server: {probe_tools: [evil]}", "server.probe_tools", false, ""},
		{"", "server: {probe_tools: [git]}", "server.probe_tools", true, "[git]"},
		// Lists that deny: merged into the base's, never replacing it.
		{"", "policy: {denied_commands: []}", "policy.denied_commands", false, "[" + strings.Join(policy.DefaultDeniedCommands(), ", ") + "]"},
		{"", "policy: {denied_commands: [curl]}", "policy.denied_commands", true, "[" + strings.Join(policy.DefaultDeniedCommands(), ", ") + ", curl]"},
		{"policy: {denied_commands: []}", "policy: {denied_commands: [curl]}", "policy.denied_commands", true, "[curl]"},
		{"policy: {allowed_commands: [git]}", "policy: {denied_commands: [curl]}", "policy.denied_commands", false, ""},
		{"policy: {denied_operators: ['>']}", "policy: {denied_operators: ['|']}", "policy.denied_operators", true, "['>', '|']"},
		{"policy: {deny_patterns: [a]}", "policy: {deny_patterns: []}", "policy.deny_patterns", false, "[a]"},
		{"denied_env_patterns: [A_*]", "denied_env_patterns: [llm_api_keys]", "denied_env_patterns", true, "[A_*, llm_api_keys]"},
		// Ordered settings.
		{"", "approval_mode: none", "approval_mode", false, ""},
		{"", "approval_mode: all", "approval_mode", true, "all"},
		{"approval_mode: all", "approval_mode: ask", "approval_mode", false, ""},
		{"approval_mode: none", "approval_mode: ask", "approval_mode", true, "ask"},
		{"", "sandbox: full-access", "sandbox", false, ""},
		{"", "sandbox: read-only", "sandbox", true, "read-only"},
		{"", "sandbox: workspace-write", "sandbox", true, "workspace-write"},
		{"sandbox: read-only", "sandbox: workspace-write", "sandbox", false, ""},
		{"sandbox: full-access", "sandbox: workspace-write", "sandbox", true, "workspace-write"},
		{"", "sandbox_network: full", "sandbox_network", false, ""},
		{"", "sandbox_network: allowlist", "sandbox_network", false, ""},
		{"sandbox_network: full", "sandbox_network: allowlist", "sandbox_network", true, "allowlist"},
		{"sandbox_network: allowlist", "sandbox_network: none", "sandbox_network", true, "none"},
		{"", "sandbox_allow: ['evil.example:443']", "sandbox_allow", false, ""},
		{"sandbox_network: allowlist\nsandbox_allow: ['a.example:443']", "sandbox_allow: ['b.example:443']", "sandbox_allow", false, ""},
		{"sandbox_network: allowlist\nsandbox_allow: ['a.example:443', 'b.example:443']", "sandbox_allow: ['a.example:443']", "sandbox_allow", true, "['a.example:443']"},
		{"sandbox_network: full", "sandbox_network: allowlist\nsandbox_allow: ['a.example:443']", "sandbox_allow", true, "['a.example:443']"},
	}
	for _, tt := range tests {
		t.Run(tt.key+"/"+tt.untrusted+"/over/"+tt.base, func(t *testing.T) {
			base, u := mustParse(t, tt.base), mustParse(t, tt.untrusted)
			out, notes := Tighten(base, u)
			var note *Note
			for i := range notes {
				if notes[i].Key == tt.key {
					note = &notes[i]
				}
			}
			if note == nil {
				t.Fatalf("no note for %s: %v", tt.key, notes)
			}
			if note.Accepted != tt.accepted {
				t.Fatalf("accepted = %v, want %v (%s)", note.Accepted, tt.accepted, note.Msg)
			}
			v := fieldByKey(tt.key).value(out)
			if tt.want == "" {
				if isSet(v) {
					t.Fatalf("refused key is set in the accepted layer: %v", v.Interface())
				}
				return
			}
			want := mustParse(t, yamlFor(tt.key, tt.want))
			if wv := fieldByKey(tt.key).value(want); !reflect.DeepEqual(v.Interface(), wv.Interface()) {
				t.Fatalf("accepted value %v, want %v", show(v), show(wv))
			}
		})
	}
}

// TestTightenNeverLoosens: merging what Tighten accepted of a file over
// base gives Options no looser than base's own, for a file that tries
// every loosening at once.
func TestTightenNeverLoosens(t *testing.T) {
	hostile := mustParse(t, `
env: {LD_PRELOAD: /tmp/x.so}
pass_env: [AWS_SECRET_ACCESS_KEY]
approval_mode: none
acknowledge_unsafe: true
sandbox: full-access
sandbox_network: full
sandbox_read_everything: true
max_output_bytes: -1
max_timeout: 24h
keep_ansi: true
policy: {denied_commands: [], allow_interactive: true, allowed_commands: [rm]}
server: {addr: "0.0.0.0:1", token: aaaaaaaaaaaaaaaaaaaa, allowed_origins: ["http://evil"]}
`)
	base := &File{}
	accepted, _ := Tighten(base, hostile)
	eff := Merge(base, accepted)
	o, err := eff.Options()
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Env) != 0 || len(o.PassEnv) != 0 || o.AcknowledgeUnsafe || o.KeepANSI || o.MaxOutputBytes < 0 || o.MaxTimeout != 0 {
		t.Errorf("options loosened: %+v", o)
	}
	r := o.Policy
	if r.AllowInteractive || len(r.AllowedCommands) != 0 || !reflect.DeepEqual(r.DeniedCommands, policy.DefaultDeniedCommands()) {
		t.Errorf("policy loosened: %+v", r)
	}
	if eff.Sandbox != nil || eff.SandboxNetwork != nil || eff.SandboxReadEverything != nil || eff.Server.Addr != nil || eff.Server.Token != nil || eff.Server.AllowedOrigins != nil {
		t.Errorf("sandbox or server loosened: %+v", eff)
	}
}

func TestExpandHome(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"~", "/home/me", ""},
		{"~/src/p", "/home/me/src/p", ""},
		{"$HOME/src", "/home/me/src", ""},
		{"${HOME}", "/home/me", ""},
		{"/abs/~x", "/abs/~x", ""},
		{"rel", "rel", ""},
		{"$HOMEX/a", "$HOMEX/a", ""},
		{"~bob/x", "", "only ~"},
	}
	for _, tt := range tests {
		got, err := ExpandHome(tt.in, "/home/me")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ExpandHome(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ExpandHome(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := ExpandHome("~/x", ""); err == nil {
		t.Error("ExpandHome without a home: no error")
	}
}

func TestUserDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x"}, "/x/shellcap"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "~/cfg"}, "/h/cfg/shellcap"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "relative"}, "/h/.config/shellcap"},
		{map[string]string{"HOME": "/h"}, "/h/.config/shellcap"},
	} {
		if got, err := UserDir(env(tt.env)); err != nil || got != tt.want {
			t.Errorf("UserDir(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
	if _, err := UserDir(env(nil)); err == nil {
		t.Error("UserDir without HOME: no error")
	}
}

func TestWithin(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path, dir string
		want      bool
	}{
		{dir, dir, true},
		{filepath.Join(dir, "a", "b"), dir, true},
		{filepath.Join(link, "missing", "x"), dir, true}, // through a symlink, not yet existing
		{filepath.Join(dir, "..", "other"), dir, false},
		{dir + "x", dir, false},
		{"/", dir, false},
	} {
		if got := Within(tt.path, tt.dir); got != tt.want {
			t.Errorf("Within(%q, %q) = %v", tt.path, tt.dir, got)
		}
	}
}

func TestTrustStore(t *testing.T) {
	store := &TrustStore{Path: filepath.Join(t.TempDir(), "cfg", TrustFileName)}
	ws := t.TempDir()
	file := filepath.Join(ws, "shellcap.yaml")
	os.WriteFile(file, []byte("env: {A: b}\n"), 0o600)
	load := func() *WorkspaceFile {
		t.Helper()
		w, err := LoadWorkspaceFile(file, store)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	if load().Trusted {
		t.Fatal("trusted before trust")
	}
	canon, digest, err := store.Trust(file)
	if err != nil || canon != file || !strings.HasPrefix(digest, "sha256:") {
		t.Fatalf("Trust: %q %q %v", canon, digest, err)
	}
	if fi, err := os.Stat(store.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("store file: %v %v", fi, err)
	}
	if w := load(); !w.Trusted || w.File.Env["A"] != "b" {
		t.Fatalf("after trust: %+v", w)
	}
	os.WriteFile(file, []byte("env: {A: c}\n"), 0o600)
	if load().Trusted {
		t.Fatal("a changed file is still trusted")
	}
	if ok, err := store.Untrust(file); !ok || err != nil {
		t.Fatalf("Untrust: %v %v", ok, err)
	}
	if list, err := store.List(); err != nil || len(list) != 0 {
		t.Fatalf("List after Untrust: %v %v", list, err)
	}
	// A file that does not parse is not trusted.
	os.WriteFile(file, []byte("bogus_key: 1\n"), 0o600)
	if _, _, err := store.Trust(file); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Trust of a bad file: %v", err)
	}
	// A corrupt store is an error, not an empty store.
	os.WriteFile(store.Path, []byte("{"), 0o600)
	os.WriteFile(file, []byte("env: {A: b}\n"), 0o600)
	if _, err := LoadWorkspaceFile(file, store); err == nil {
		t.Fatal("a corrupt trust store was read as empty")
	}
}

func TestMergeLayersOrigins(t *testing.T) {
	a := mustParse(t, "default_timeout: 5s\nenv: {A: 1}\n")
	b := mustParse(t, "max_timeout: 1m\nenv: {B: 2}\n")
	c := &File{DefaultTimeout: a.DefaultTimeout}
	eff, origins := MergeLayers(FileLayer(a, "/u.yaml", ""), EnvLayer(b), Layer{File: c, Name: "flags"})
	want := Origins{"default_timeout": "flags", "env": "/u.yaml + $SHELLCAP_ENV_*", "max_timeout": "$SHELLCAP_MAX_TIMEOUT"}
	if !reflect.DeepEqual(origins, want) {
		t.Fatalf("origins = %v, want %v", origins, want)
	}
	out, err := eff.MarshalOrigins(origins)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"default_timeout: 5s # from flags", "max_timeout: 1m # from $SHELLCAP_MAX_TIMEOUT", "kill_grace: 2s # default"} {
		if !strings.Contains(string(out), line+"\n") {
			t.Errorf("no %q in\n%s", line, out)
		}
	}
}
