package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/container"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/session"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// keyCase sets one key in a file (yaml) and in the environment (env), and
// the value both must give.
type keyCase struct {
	key  string
	yaml string // the value as written in the file
	env  string // the value of the SHELLCAP_ variable
	want any    // the field's value (pointed-to value for pointer fields)
}

var keyCases = []keyCase{
	{"workspace", "/srv/w", "/srv/w", "/srv/w"},
	{"read_only", "true", "true", true},
	{"shell", "/bin/sh", "/bin/sh", "/bin/sh"},
	{"default_timeout", "45s", "45s", 45 * time.Second},
	{"max_timeout", "15m", "15m", 15 * time.Minute},
	{"kill_grace", "1500ms", "1.5s", 1500 * time.Millisecond},
	{"max_output_bytes", "64MiB", "67108864", int64(64 << 20)},
	{"max_output_chars", "100", "100", 100},
	{"head_and_tail", "true", "1", true},
	{"stdout_head_chars", "2000", "2000", 2000},
	{"stdout_tail_chars", "8000", "8000", 8000},
	{"stderr_head_chars", "2000", "2000", 2000},
	{"stderr_tail_chars", "2000", "2000", 2000},
	{"keep_ansi", "false", "false", false},
	{"disable_output_files", "true", "TRUE", true},
	{"output_retention", "1h30m", "90m", 90 * time.Minute},
	{"max_file_bytes", "1GB", "1GB", int64(1e9)},
	{"memory_limit", `"512 KiB"`, "512k", int64(512 << 10)},
	{"cpu_time", "2m", "2m", 2 * time.Minute},
	{"max_processes", "64", "64", 64},
	{"env", "{CI: 1, NAME: x y}", "", map[string]string{"CI": "1", "NAME": "x y"}},
	{"pass_env", "[GOPATH, GOCACHE]", "GOPATH,GOCACHE", []string{"GOPATH", "GOCACHE"}},
	{"denied_env_patterns", `[llm_api_keys, "X_*"]`, "llm_api_keys, X_*", []string{"llm_api_keys", "X_*"}},
	{"persist_cwd", "true", "true", true},
	{"policy.allowed_commands", "[git, go]", "git,go", []string{"git", "go"}},
	{"policy.denied_commands", "[]", "", []string{}},
	{"policy.denied_operators", `["|", "&&"]`, "|,&&", []string{"|", "&&"}},
	{"policy.allow_interactive", "true", "true", true},
	{"policy.deny_patterns", `['^a{1,3}$']`, `['^a{1,3}$']`, []string{"^a{1,3}$"}},
	{"policy.allow_patterns", "[]", "[]", []string{}},
	{"policy.approval", "true", "true", true},
	{"approval_mode", "all", "all", shellcap.ApproveAll},
	{"acknowledge_unsafe", "true", "true", true},
	{"tools", "[run_command, bash]", "run_command,bash", []string{"run_command", "bash"}},
	{"sandbox", "read-only", "read-only", "read-only"},
	{"sandbox_network", "allowlist", "allowlist", "allowlist"},
	{"sandbox_allow", "[example.com:443]", "example.com:443", []string{"example.com:443"}},
	{"sandbox_read_everything", "true", "true", true},
	{"sandbox_process_limit", "256", "256", 256},
	{"sandbox_tmp_size", "512MiB", "512MiB", int64(512 << 20)},
	{"sandbox_proxy_max_conns", "64", "64", 64},
	{"sandbox_proxy_idle_timeout", "2m", "2m", 2 * time.Minute},
	{"die_with_process", "true", "true", true},
	{"executor", "container", "container", "container"},
	{"session.start_in_root", "true", "true", true},
	{"session.default_timeout", "5s", "5s", 5 * time.Second},
	{"session.max_timeout", "1m", "1m", time.Minute},
	{"session.interrupt_grace", "500ms", "500ms", 500 * time.Millisecond},
	{"session.max_output_bytes", "1MiB", "1MiB", int64(1 << 20)},
	{"session.max_output_chars", "2000", "2000", 2000},
	{"session.keep_ansi", "true", "true", true},
	{"session.head_and_tail", "true", "true", true},
	{"session.soft_timeout", "5s", "5s", 5 * time.Second},
	{"jobs.max_jobs", "4", "4", 4},
	{"jobs.retention", "2h", "2h", 2 * time.Hour},
	{"jobs.kill_grace", "300ms", "300ms", 300 * time.Millisecond},
	{"jobs.max_log_bytes", "1MiB", "1MiB", int64(1 << 20)},
	{"jobs.max_output_chars", "3000", "3000", 3000},
	{"jobs.keep_ansi", "true", "true", true},
	{"jobs.key_dir", "/var/lib/shellcap", "/var/lib/shellcap", "/var/lib/shellcap"},
	{"jobs.stop_on_close", "true", "true", true},
	{"container.image", "docker.io/library/alpine:3", "docker.io/library/alpine:3", "docker.io/library/alpine:3"},
	{"container.rootfs", "/srv/rootfs", "/srv/rootfs", "/srv/rootfs"},
	{"container.runtime", "docker", "docker", "docker"},
	{"container.engine_args", "[--runtime, runc]", "--runtime,runc", []string{"--runtime", "runc"}},
	{"container.mode", "persistent", "persistent", "persistent"},
	{"container.writable_workspace", "true", "true", true},
	{"container.shell", "/bin/bash", "/bin/bash", "/bin/bash"},
	{"container.memory", "1GiB", "1GiB", int64(1 << 30)},
	{"container.pids", "128", "128", 128},
	{"container.tmpfs_size", "32MiB", "32MiB", int64(32 << 20)},
	{"container.nofile", "512", "512", 512},
	{"container.nproc", "128", "128", 128},
	{"container.engine_timeout", "30s", "30s", 30 * time.Second},
	{"server.addr", `":7777"`, ":7777", ":7777"},
	{"server.token", "s3cret", "s3cret", "s3cret"},
	{"server.allowed_origins", `["http://localhost:3000"]`, "http://localhost:3000", []string{"http://localhost:3000"}},
	{"server.max_body_bytes", "1MiB", "1MiB", int64(1 << 20)},
	{"server.session_idle_timeout", "10m", "10m", 10 * time.Minute},
	{"server.max_sessions", "20", "20", 20},
	{"server.share_jobs", "true", "true", true},
	{"server.token_file", "/run/secrets/shellcap", "/run/secrets/shellcap", "/run/secrets/shellcap"},
	{"server.probe_tools", "[git, make]", "git,make", []string{"git", "make"}},
	{"server.probe_timeout", "2s", "2s", 2 * time.Second},
	{"server.foreground_timeout", "20s", "20s", 20 * time.Second},
}

// yamlFor writes one key, nested under its section.
func yamlFor(key, value string) string {
	if section, name, ok := strings.Cut(key, "."); ok {
		return section + ":\n  " + name + ": " + value + "\n"
	}
	return key + ": " + value + "\n"
}

// get returns the value of key in f: the pointed-to value, or nil if unset.
func get(t *testing.T, f *File, key string) any {
	t.Helper()
	fd := fieldByKey(key)
	if fd == nil {
		t.Fatalf("no key %s", key)
	}
	v := fd.value(f)
	if v.IsNil() {
		return nil
	}
	if v.Kind() == reflect.Pointer {
		return v.Elem().Interface()
	}
	return v.Interface()
}

func TestEveryKeyHasACase(t *testing.T) {
	have := map[string]bool{}
	for _, c := range keyCases {
		have[c.key] = true
	}
	for _, fd := range fields {
		if !have[fd.key] {
			t.Errorf("key %s has no case in keyCases", fd.key)
		}
	}
	if len(keyCases) != len(fields) {
		t.Errorf("%d cases for %d keys", len(keyCases), len(fields))
	}
}

func TestKeyRoundTrip(t *testing.T) {
	for _, c := range keyCases {
		t.Run(c.key, func(t *testing.T) {
			f, err := Parse([]byte(yamlFor(c.key, c.yaml)), "shellcap.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if got := get(t, f, c.key); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("parsed %s = %#v, want %#v", c.key, got, c.want)
			}
			for _, other := range fields {
				if other.key != c.key && isSet(other.value(f)) {
					t.Errorf("setting %s also set %s", c.key, other.key)
				}
			}

			// The file's value survives Marshal and Parse (the token is
			// redacted instead).
			out, err := f.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if c.key == "server.token" {
				if !strings.Contains(string(out), "token: "+Redacted) || strings.Contains(string(out), "s3cret") {
					t.Fatalf("token not redacted:\n%s", out)
				}
				return
			}
			back, err := Parse(out, "printed")
			if err != nil {
				t.Fatalf("reparse: %v\n%s", err, out)
			}
			if got := get(t, back, c.key); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("after Marshal and Parse %s = %#v, want %#v\n%s", c.key, got, c.want, out)
			}
		})
	}
}

func TestKeyFromEnv(t *testing.T) {
	for _, c := range keyCases {
		t.Run(c.key, func(t *testing.T) {
			fd := fieldByKey(c.key)
			var environ []string
			if c.key == "env" {
				environ = []string{"SHELLCAP_ENV_CI=1", "SHELLCAP_ENV_NAME=x y"}
			} else {
				environ = []string{fd.env + "=" + c.env}
			}
			f, err := FromEnv(environ)
			if err != nil {
				t.Fatal(err)
			}
			if got := get(t, f, c.key); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("%v gives %#v, want %#v", environ, got, c.want)
			}
		})
	}
}

func TestEnvNames(t *testing.T) {
	for key, env := range map[string]string{
		"workspace":               "SHELLCAP_WORKSPACE",
		"default_timeout":         "SHELLCAP_DEFAULT_TIMEOUT",
		"max_output_chars":        "SHELLCAP_MAX_OUTPUT_CHARS",
		"policy.allowed_commands": "SHELLCAP_POLICY_ALLOWED_COMMANDS",
		"tools":                   "SHELLCAP_TOOLS",
		"server.addr":             "SHELLCAP_SERVER_ADDR",
		"server.token":            "SHELLCAP_SERVER_TOKEN",
	} {
		if got := fieldByKey(key).env; got != env {
			t.Errorf("%s: variable %s, want %s", key, got, env)
		}
	}
}

func TestUnknownKeys(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"bogus: 1\n", "config shellcap.yaml: bogus: unknown key"},
		{"policy:\n  denied_operatorz: []\n", "config shellcap.yaml: policy.denied_operatorz: unknown key"},
		{"server:\n  adr: x\n", "config shellcap.yaml: server.adr: unknown key"},
		{"server:\n  addr: x\n  policy: {}\n", "config shellcap.yaml: server.policy: unknown key"},
		{`{"policy": {"allowed_commands": ["git"], "x": 1}}`, "config shellcap.yaml: policy.x: unknown key"},
		{"Workspace: /w\n", "config shellcap.yaml: Workspace: unknown key"},
		{"policy: 3\n", "config shellcap.yaml: policy: must be a mapping of keys to values"},
		{"server: [a]\n", "config shellcap.yaml: server: must be a mapping of keys to values"},
	} {
		_, err := Parse([]byte(c.in), "shellcap.yaml")
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q) = %v, want %q", c.in, err, c.want)
		}
		var ce *Error
		if !errors.As(err, &ce) || !errors.Is(err, ErrInvalid) || ce.Line == 0 {
			t.Errorf("Parse(%q): %#v is not an *Error with a line wrapping ErrInvalid", c.in, err)
		}
	}
}

func TestBadValues(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"default_timeout: 3x", `default_timeout: "3x": invalid duration`},
		{"default_timeout: 30", `default_timeout: "30": invalid duration`},
		{"max_timeout: [1s]", `max_timeout: must be a single value, not a list`},
		{"kill_grace: {a: 1}", `kill_grace: must be a single value, not a mapping`},
		{"max_output_bytes: 64XB", `max_output_bytes: "64XB": invalid size`},
		{"max_output_bytes: 1.5GiB", `max_output_bytes: "1.5GiB": invalid size`},
		{"max_output_bytes: 99999999999TiB", `max_output_bytes: "99999999999TiB": invalid size`},
		{"memory_limit: -1KiB", `memory_limit: "-1KiB": invalid size`},
		{"max_output_chars: lots", `max_output_chars: "lots": invalid integer`},
		{"max_processes: 1e3", `max_processes: "1e3": invalid integer`},
		{"read_only: yes", `read_only: "yes": invalid boolean`},
		{"persist_cwd: 1", `persist_cwd: "1": invalid boolean`},
		{"approval_mode: sometimes", `approval_mode: "sometimes": invalid approval mode (want ask, all or none)`},
		{"approval_mode: ASK", `approval_mode: "ASK": invalid approval mode`},
		{"tools: [run_command, rm_rf]", `tools[1]: "rm_rf": unknown tool`},
		{"tools: [bash, bash]", `tools[1]: "bash" is listed twice`},
		{"tools: bash", `tools: must be a list`},
		{"tools: [[bash]]", `tools[0]: must be a string`},
		{"tools: [null]", `tools[0]: must be a string`},
		{"sandbox: docker", `sandbox: "docker": unknown sandbox profile`},
		{"sandbox_network: some", `sandbox_network: "some": unknown sandbox network`},
		{"sandbox_allow: [example.com]", `sandbox_allow[0]: "example.com": want host:port`},
		{"env: {1A: x}", `env.1A: invalid variable name`},
		{"env: {A: [1]}", `env.A: must be a string`},
		{"env: [A=1]", `env: must be a mapping of names to values`},
		{"pass_env: [A B]", `pass_env[0]: "A B": invalid variable name`},
		{`denied_env_patterns: ["[x"]`, `denied_env_patterns[0]: "[x": invalid pattern`},
		{"policy: {denied_operators: [=>]}", `policy.denied_operators[0]: "=>": `},
		{`policy: {deny_patterns: ["ok", "("]}`, `policy.deny_patterns[1]: "(": invalid regular expression`},
		{`policy: {allow_patterns: ["(?<x"]}`, `policy.allow_patterns[0]: "(?<x": invalid regular expression`},
		{`policy: {allowed_commands: ["a b"]}`, `policy.allowed_commands[0]: "a b": not a command name`},
		{`policy: {denied_commands: [""]}`, `policy.denied_commands[0]: "": not a command name`},
		{`policy: {approval: maybe}`, `policy.approval: "maybe": invalid boolean`},
		{`server: {token: "<redacted>"}`, `server.token: <redacted> is a placeholder`},
		{`server: {probe_tools: ["git;rm"]}`, `server.probe_tools[0]: "git;rm": invalid program name`},
		{`server: {session_idle_timeout: soon}`, `server.session_idle_timeout: "soon": invalid duration`},
		{`server: {max_body_bytes: big}`, `server.max_body_bytes: "big": invalid size`},
		{"executor: docker", `executor: "docker": unknown executor (want host or container)`},
		{"container: {mode: sometimes}", `container.mode: "sometimes": unknown container mode`},
		{"container: {runtime: lxc}", `container.runtime: "lxc": unknown container runtime`},
		{"session: {default_timeout: soon}", `session.default_timeout: "soon": invalid duration`},
		{"jobs: {max_jobs: many}", `jobs.max_jobs: "many": invalid integer`},
		{"session: [1]", `session: must be a mapping`},
		{"workspace: [a]", `workspace: must be a single value, not a list`},
		{"shell: a\nshell: b", `shell`},
		{"a: [", `config shellcap.yaml: yaml: `},
		{"a: 1\n---\nb: 2", `more than one YAML document`},
		{"- a\n- b", `config shellcap.yaml: the configuration must be a mapping of keys to values`},
		{"? [a]\n: b", `keys must be plain strings`},
	} {
		_, err := Parse([]byte(c.in), "shellcap.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", c.in, err, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), "config shellcap.yaml: ") || !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %v: not a config error", c.in, err)
		}
	}
}

func TestNullAndEmpty(t *testing.T) {
	for _, in := range []string{"", "# nothing\n", "null", "~", "default_timeout: null\npolicy:\nserver: ~\ntools:\n", "{}"} {
		f, err := Parse([]byte(in), "x.yaml")
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if !reflect.DeepEqual(f, &File{}) {
			t.Errorf("Parse(%q) set something: %+v", in, f)
		}
	}
}

func TestAliases(t *testing.T) {
	f, err := Parse([]byte("tools: &t [bash]\npolicy:\n  allowed_commands: *t\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Policy.AllowedCommands, []string{"bash"}) {
		t.Fatalf("alias not followed: %v", f.Policy.AllowedCommands)
	}
}

func TestJSON(t *testing.T) {
	f, err := Parse([]byte(`{"default_timeout": "10s", "max_output_bytes": 1024, "policy": {"denied_commands": []}, "server": {"addr": "127.0.0.1:1"}}`), "shellcap.json")
	if err != nil {
		t.Fatal(err)
	}
	if *f.DefaultTimeout != 10*time.Second || *f.MaxOutputBytes != 1024 || f.Policy.DeniedCommands == nil || *f.Server.Addr != "127.0.0.1:1" {
		t.Fatalf("got %+v", f)
	}
}

func TestLoadAndFind(t *testing.T) {
	dir := t.TempDir()
	if _, ok := Find(dir); ok {
		t.Fatal("Find found a file in an empty directory")
	}
	json := filepath.Join(dir, "shellcap.json")
	if err := os.WriteFile(json, []byte(`{"shell": "/bin/sh"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, ok := Find(dir); !ok || p != json {
		t.Fatalf("Find = %q, %v; want %q", p, ok, json)
	}
	yml := filepath.Join(dir, "shellcap.yml")
	if err := os.WriteFile(yml, []byte("shell: /bin/dash\nbad_key: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, _ := Find(dir); p != yml {
		t.Fatalf("Find = %q; want %q (.yml before .json)", p, yml)
	}
	if err := os.Mkdir(filepath.Join(dir, "shellcap.yaml"), 0o700); err != nil {
		t.Fatal(err)
	}
	if p, _ := Find(dir); p != yml {
		t.Fatalf("Find = %q; a directory named shellcap.yaml is not a config file", p)
	}

	f, err := Load(json)
	if err != nil || *f.Shell != "/bin/sh" {
		t.Fatalf("Load(json) = %+v, %v", f, err)
	}
	_, err = Load(yml)
	if want := "config " + yml + ": bad_key: unknown key"; err == nil || err.Error() != want {
		t.Fatalf("Load(yml) = %v, want %s", err, want)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Load(missing) = %v", err)
	}
}

func TestFromEnv(t *testing.T) {
	f, err := FromEnv([]string{
		"PATH=/bin",                   // not ours
		"SHELLCAP_CONFIG=/etc/x.yaml", // for the CLI
		"SHELLCAP_WORKSPACE=/w",
		"SHELLCAP_WORKSPACE=/ignored", // the first one wins, as in getenv
		"SHELLCAP_POLICY_DENIED_COMMANDS= rm , ,dd ",
		"SHELLCAP_POLICY_DENY_PATTERNS=[\"x{1,2}\", 'y']",
		"SHELLCAP_ENV_FOO=a=b,c",
		"SHELLCAP_SERVER_TOKEN=t",
		"SHELLCAP_READ_ONLY=0",
		"NOT_SHELLCAP_X=1",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &File{
		Workspace: new("/w"),
		ReadOnly:  new(false),
		Env:       map[string]string{"FOO": "a=b,c"},
		Policy:    Policy{DeniedCommands: []string{"rm", "dd"}, DenyPatterns: []string{"x{1,2}", "y"}},
		Server:    Server{Token: new("t")},
	}
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("FromEnv = %+v\nwant %+v", f, want)
	}

	for _, c := range []struct{ env, want string }{
		{"SHELLCAP_BOGUS=1", "config environment: SHELLCAP_BOGUS: unknown variable"},
		{"SHELLCAP_POLICY=1", "config environment: SHELLCAP_POLICY: unknown variable"},
		{"SHELLCAP_ENV=1", "config environment: SHELLCAP_ENV: unknown variable"},
		{"SHELLCAP_DEFAULT_TIMEOUT=3x", `config environment: SHELLCAP_DEFAULT_TIMEOUT: "3x": invalid duration`},
		{"SHELLCAP_DEFAULT_TIMEOUT=", `config environment: SHELLCAP_DEFAULT_TIMEOUT: "": invalid duration`},
		{"SHELLCAP_READ_ONLY=yes", `config environment: SHELLCAP_READ_ONLY: "yes": invalid boolean`},
		{"SHELLCAP_MAX_OUTPUT_BYTES=lots", `config environment: SHELLCAP_MAX_OUTPUT_BYTES: "lots": invalid size`},
		{"SHELLCAP_APPROVAL_MODE=never", `config environment: SHELLCAP_APPROVAL_MODE: "never": invalid approval mode`},
		{"SHELLCAP_TOOLS=run_command,nope", `config environment: SHELLCAP_TOOLS: [1]: "nope": unknown tool`},
		{"SHELLCAP_TOOLS=[a", `config environment: SHELLCAP_TOOLS: invalid list`},
		{"SHELLCAP_ENV_1X=1", `config environment: SHELLCAP_ENV_1X: invalid variable name "1X"`},
		{"SHELLCAP_SANDBOX=jail", `config environment: SHELLCAP_SANDBOX: "jail": unknown sandbox profile`},
		{"SHELLCAP_SANDBOX_ALLOW=a.example:443,b.example", `config environment: SHELLCAP_SANDBOX_ALLOW: [1]: "b.example": want host:port`},
		{"SHELLCAP_SERVER_TOKEN=a\x00SHELLCAP_TOKEN=b", `config environment: SHELLCAP_TOKEN: conflicts with SHELLCAP_SERVER_TOKEN`},
	} {
		_, err := FromEnv(strings.Split(c.env, "\x00"))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("FromEnv(%q) = %v, want %q", c.env, err, c.want)
		}
	}
}

func TestFromEnvTokenAlias(t *testing.T) {
	for _, environ := range [][]string{
		{"SHELLCAP_TOKEN=t"},
		{"SHELLCAP_TOKEN=t", "SHELLCAP_SERVER_TOKEN=t"},
	} {
		f, err := FromEnv(environ)
		if err != nil || f.Server.Token == nil || *f.Server.Token != "t" {
			t.Errorf("FromEnv(%q) = %+v, %v", environ, f, err)
		}
	}
}

func TestFullExampleHasEveryKey(t *testing.T) {
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(data, "full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fields {
		section, name := splitKey(fd.key)
		indent := ""
		if section != "" {
			indent = "  "
		}
		if !strings.Contains(string(data), "\n"+indent+name+":") {
			t.Errorf("testdata/full.yaml does not show %s", fd.key)
		}
		if !isSet(fd.value(f)) && fd.key != "policy.allow_patterns" {
			t.Errorf("testdata/full.yaml leaves %s unset", fd.key)
		}
	}
}

func TestMerge(t *testing.T) {
	file := &File{
		ReadOnly:       new(true),
		DefaultTimeout: new(10 * time.Second),
		MaxOutputChars: new(100),
		Env:            map[string]string{"A": "file", "B": "file"},
		Tools:          []string{"bash"},
		Policy:         Policy{DeniedCommands: []string{"rm"}, Approval: new(true)},
		Server:         Server{Addr: new("127.0.0.1:1"), Token: new("file")},
	}
	env := &File{
		DefaultTimeout: new(20 * time.Second),
		Env:            map[string]string{"B": "env", "C": "env"},
		Server:         Server{Token: new("env")},
	}
	flags := &File{
		ReadOnly:       new(false),                         // an explicit false wins
		Policy:         Policy{DeniedCommands: []string{}}, // set to "no deny list"
		MaxOutputChars: nil,                                // unset: keeps the file's
	}
	got := Merge(file, nil, env, flags, &File{})
	want := &File{
		ReadOnly:       new(false),
		DefaultTimeout: new(20 * time.Second),
		MaxOutputChars: new(100),
		Env:            map[string]string{"A": "file", "B": "env", "C": "env"},
		Tools:          []string{"bash"},
		Policy:         Policy{DeniedCommands: []string{}, Approval: new(true)},
		Server:         Server{Addr: new("127.0.0.1:1"), Token: new("env")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Merge = %+v\nwant %+v", got, want)
	}

	// The result shares nothing with the layers.
	*file.MaxOutputChars = 7
	file.Tools[0] = "shell"
	env.Env["C"] = "changed"
	if *got.MaxOutputChars != 100 || got.Tools[0] != "bash" || got.Env["C"] != "env" {
		t.Fatalf("Merge result aliases its layers: %+v", got)
	}
	if m := Merge(); !reflect.DeepEqual(m, &File{}) {
		t.Fatalf("Merge() = %+v", m)
	}
}

func TestPrecedence(t *testing.T) {
	file, err := Parse([]byte("default_timeout: 10s\nmax_timeout: 1m\nshell: /bin/sh\n"), "shellcap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env, err := FromEnv([]string{"SHELLCAP_DEFAULT_TIMEOUT=20s", "SHELLCAP_MAX_TIMEOUT=2m"})
	if err != nil {
		t.Fatal(err)
	}
	flags := &File{DefaultTimeout: new(30 * time.Second)}
	o, err := Merge(file, env, flags).Options()
	if err != nil {
		t.Fatal(err)
	}
	if o.DefaultTimeout != 30*time.Second || o.MaxTimeout != 2*time.Minute || o.ShellPath != "/bin/sh" {
		t.Fatalf("flags > env > file broken: %+v", o)
	}
}

func TestOptions(t *testing.T) {
	f, err := Load("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Options()
	if err != nil {
		t.Fatal(err)
	}
	want := shellcap.Options{
		Workspace:         "/srv/project",
		ShellPath:         "/bin/bash",
		DefaultTimeout:    45 * time.Second,
		MaxTimeout:        15 * time.Minute,
		KillGrace:         3 * time.Second,
		MaxOutputBytes:    32 << 20,
		MaxOutputChars:    20000,
		HeadAndTail:       true,
		StdoutBudget:      shellcap.Budget{Head: 2000, Tail: 8000},
		StderrBudget:      shellcap.Budget{Head: 2000, Tail: 2000},
		OutputRetention:   12 * time.Hour,
		MaxFileBytes:      1 << 30,
		MemoryLimit:       4 << 30,
		CPUTime:           2 * time.Minute,
		MaxProcesses:      512,
		Env:               map[string]string{"CI": "1", "GOFLAGS": "-mod=mod"},
		PassEnv:           []string{"GOPATH", "GOCACHE"},
		DeniedEnvPatterns: append(append([]string{}, shellcap.LLMAPIKeyEnvPatterns()...), "*_PRIVATE_KEY"),
		PersistCwd:        true,
		ApprovalMode:      shellcap.ApproveAsk,
		DieWithProcess:    true,
		Policy: policy.Rules{
			AllowedCommands: []string{},
			DeniedCommands:  []string{"rm", "dd", "mkfs", "shutdown", "reboot", "sudo"},
			DeniedOperators: []string{"&"},
			DenyPatterns:    []string{"^git push .*--force"},
			Approval:        true,
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Options() =\n%+v\nwant\n%+v", got, want)
	}

	// The library accepts it (with a workspace that exists here).
	o, err := Merge(f, &File{Workspace: new(t.TempDir())}).Options()
	if err != nil {
		t.Fatal(err)
	}
	sh, err := shellcap.New(o)
	if err != nil {
		t.Fatalf("shellcap.New rejected the example: %v", err)
	}
	sh.Close()

	// Nothing set: the zero Options, so every library default applies.
	if o, err := (&File{}).Options(); err != nil || !reflect.DeepEqual(o, shellcap.Options{}) {
		t.Fatalf("empty File gives %+v, %v", o, err)
	}

	// Unset lists stay nil; set empty ones stay empty.
	r := (&File{Policy: Policy{AllowPatterns: []string{}}}).Policy.Rules()
	if r.DeniedCommands != nil || r.AllowPatterns == nil {
		t.Fatalf("nil/empty distinction lost: %#v", r)
	}

	// A File built in code gets the same checks as a parsed one.
	_, err = (&File{Tools: []string{"nope"}}).Options()
	if want := `config: tools[0]: "nope": unknown tool`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Options() of a bad File = %v, want %s", err, want)
	}
}

// TestExecutorOptions checks the session, job and container options of the
// full example, and that an empty File leaves them zero (so they inherit
// the Shell's settings).
func TestExecutorOptions(t *testing.T) {
	f, err := Load("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wantSession := session.Options{DefaultTimeout: 30 * time.Second, MaxTimeout: 10 * time.Minute, InterruptGrace: 2 * time.Second,
		MaxOutputBytes: 64 << 20, MaxOutputChars: 50000}
	if got := f.SessionOptions(); !reflect.DeepEqual(got, wantSession) {
		t.Errorf("SessionOptions() = %+v, want %+v", got, wantSession)
	}
	wantJobs := jobs.Options{MaxJobs: 32, Retention: 24 * time.Hour, KillGrace: 2 * time.Second, MaxLogBytes: 8 << 20,
		MaxOutputChars: 50000, KeyDir: "/var/lib/shellcap/state"}
	if got := f.JobOptions(); !reflect.DeepEqual(got, wantJobs) {
		t.Errorf("JobOptions() = %+v, want %+v", got, wantJobs)
	}
	wantContainer := container.Options{Engine: "podman", EngineArgs: []string{"--cgroup-manager=cgroupfs"}, Image: "docker.io/library/alpine:3", ShellPath: "/bin/sh", Memory: 512 << 20,
		Pids: 256, TmpfsSize: 64 << 20, NoFile: 1024, NProc: 256, EngineTimeout: time.Minute}
	if got := f.ContainerOptions(); !reflect.DeepEqual(got, wantContainer) {
		t.Errorf("ContainerOptions() = %+v, want %+v", got, wantContainer)
	}
	if f.UsesContainer() {
		t.Error("executor: host uses the container")
	}
	persistent := &File{Executor: new("container"), Container: Container{Mode: new("persistent")}}
	if !persistent.UsesContainer() || persistent.ContainerOptions().Mode != container.Persistent {
		t.Errorf("executor container, mode persistent: %+v", persistent.ContainerOptions())
	}
	empty := &File{}
	if !reflect.DeepEqual(empty.SessionOptions(), session.Options{}) || !reflect.DeepEqual(empty.JobOptions(), jobs.Options{}) ||
		!reflect.DeepEqual(empty.ContainerOptions(), container.Options{}) {
		t.Errorf("an empty File sets executor options: %+v %+v %+v", empty.SessionOptions(), empty.JobOptions(), empty.ContainerOptions())
	}
}

func TestOfferedTools(t *testing.T) {
	if got := (&File{}).OfferedTools(); !reflect.DeepEqual(got, ToolNames) {
		t.Fatalf("default tools = %v", got)
	}
	if got := (&File{Tools: []string{}}).OfferedTools(); got == nil || len(got) != 0 {
		t.Fatalf("empty tools = %#v", got)
	}
}

func TestMarshalGolden(t *testing.T) {
	f, err := Load("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	golden := "testdata/full.golden.yaml"
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(want) {
		t.Fatalf("Marshal differs from %s (run with -update):\n%s", golden, out)
	}
	if strings.Contains(string(out), "change-me") {
		t.Fatal("the token was printed")
	}

	// The printed configuration refuses to load with the placeholder token
	// and, without the token, parses back to the same File.
	if _, err := Parse(out, "printed"); err == nil || !strings.Contains(err.Error(), "server.token") {
		t.Fatalf("Parse of the redacted output = %v", err)
	}
	f.Server.Token = nil
	out, err = f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(out, "printed")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, f) {
		t.Fatalf("round trip changed the File:\n%+v\n%+v", back, f)
	}
}

func TestMarshalDefaults(t *testing.T) {
	out, err := (&File{}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"default_timeout: 30s # default\n",
		"max_output_bytes: 64MiB # default\n",
		"approval_mode: ask # default\n",
		"  denied_commands: # default\n    - rm\n",
		"  allow_patterns: null # default\n",
		"  token: null # default\n",
		"  probe_timeout: 5s # default\n",
		"  probe_tools: # default\n    - git\n",
	} {
		if !strings.Contains(string(out), line) {
			t.Errorf("Marshal of an empty File lacks %q:\n%s", line, out)
		}
	}
	// The defaults as printed mean what the unset keys mean.
	back, err := Parse(out, "printed")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Merge(back, &File{Workspace: new(t.TempDir())}).Options()
	if err != nil {
		t.Fatal(err)
	}
	sh, err := shellcap.New(o)
	if err != nil {
		t.Fatal(err)
	}
	sh.Close()

	// With an allow list, the default deny list is not printed (the two
	// cannot be combined).
	out, _ = (&File{Policy: Policy{AllowedCommands: []string{"git"}}}).Marshal()
	if !strings.Contains(string(out), "denied_commands: [] # default") {
		t.Fatalf("deny list printed beside an allow list:\n%s", out)
	}
}

func TestMarshalRedactsEnvSecrets(t *testing.T) {
	out, err := (&File{Env: map[string]string{"OPENAI_API_KEY": "sk-1", "GITHUB_TOKEN": "ghp", "CI": "1"}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if strings.Contains(s, "sk-1") || strings.Contains(s, "ghp") || !strings.Contains(s, "CI: \"1\"") {
		t.Fatalf("env secrets not redacted:\n%s", s)
	}
}

func TestSizes(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "-1": -1, "1024": 1024, "1B": 1, "1K": 1024, "1kib": 1024, "2 MiB": 2 << 20, "64MiB": 64 << 20,
		"1GiB": 1 << 30, "1TiB": 1 << 40, "1KB": 1000, "1kB": 1000, "5MB": 5e6, "1GB": 1e9, "1TB": 1e12, "3G": 3 << 30,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "1.5MiB", "-1MiB", "+1MiB", "1 2MiB", "1PiB", "9223372036854775807KiB", "x"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
	for n, want := range map[int64]string{0: "0", -1: "-1", 1: "1", 1000: "1000", 1024: "1KiB", 1536: "1536", 64 << 20: "64MiB", 3 << 30: "3GiB", 1 << 40: "1TiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 1500 * time.Millisecond: "1.5s", 10 * time.Minute: "10m", 24 * time.Hour: "24h",
		90 * time.Minute: "1h30m", time.Hour + time.Second: "1h0m1s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(formatDuration(d)); err != nil || back != d {
			t.Errorf("formatDuration(%v) does not parse back: %v", d, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	full, _ := os.ReadFile("testdata/full.yaml")
	for _, s := range []string{string(full), "", "tools: [bash]", "env: {A: b}", "policy: {denied_commands: []}", "a: [", "max_output_bytes: 1KiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := Parse([]byte(in), "fuzz")
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		c.Server.Token = nil
		out, err := c.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(out, "printed")
		if err != nil {
			t.Fatalf("printed config does not parse: %v\n%s", err, out)
		}
		if _, err := back.Options(); err != nil {
			t.Fatal(err)
		}
		_ = fmt.Sprint(back)
	})
}

// TestSet: a flag sets a key the way the environment does, lists and the
// env map accumulate over repeated flags, and a bad value is refused with
// Parse's message.
func TestSet(t *testing.T) {
	f := &File{}
	for _, kv := range [][2]string{
		{"session.default_timeout", "2s"}, {"jobs.max_jobs", "3"}, {"container.memory", "1GiB"},
		{"container.writable_workspace", "true"}, {"pass_env", "A,B"}, {"pass_env", "C"}, {"env", "X=1=2"}, {"env", "Y="},
	} {
		if err := f.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%s, %s): %v", kv[0], kv[1], err)
		}
	}
	if *f.Session.DefaultTimeout != 2*time.Second || *f.Jobs.MaxJobs != 3 || *f.Container.Memory != 1<<30 || !*f.Container.WritableWorkspace ||
		!reflect.DeepEqual(f.PassEnv, []string{"A", "B", "C"}) || !reflect.DeepEqual(f.Env, map[string]string{"X": "1=2", "Y": ""}) {
		t.Fatalf("Set gave %+v", f)
	}
	for _, kv := range [][3]string{
		{"executor", "vm", "unknown executor"}, {"tools", "nope", "unknown tool"}, {"env", "NOVALUE", "want NAME=VALUE"},
		{"jobs.retention", "long", "invalid duration"}, {"nope", "1", "unknown key"},
	} {
		if err := f.Set(kv[0], kv[1]); err == nil || !strings.Contains(err.Error(), kv[2]) {
			t.Errorf("Set(%s, %s) = %v, want %q", kv[0], kv[1], err, kv[2])
		}
	}
}
