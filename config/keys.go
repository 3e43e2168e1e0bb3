package config

import (
	"fmt"
	"reflect"
	"strings"
)

// Scope says which shellcap subcommands offer a key's flag.
type Scope int

const (
	// Commands: every subcommand that runs commands (run, repl, the job
	// commands, mcp, serve). It is the zero value.
	Commands Scope = iota
	// Servers: the two MCP servers, mcp and serve.
	Servers
	// Serve: only serve (the HTTP transport's settings).
	Serve
)

// String names the subcommands of the scope.
func (s Scope) String() string {
	switch s {
	case Commands:
		return "all"
	case Servers:
		return "mcp, serve"
	case Serve:
		return "serve"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// Key documents one configuration key for the front ends: its command-line
// flag, its SHELLCAP_* variable and the library option it sets. [Keys]
// lists them; the CLI registers its flags from it and the README's table
// is generated from it.
type Key struct {
	// Key is the key path, such as "session.default_timeout".
	Key string
	// Env is the SHELLCAP_* variable (see [FromEnv]).
	Env string
	// Flag is the long flag name without dashes, such as
	// "session-default-timeout".
	Flag string
	// Scope says which subcommands have the flag.
	Scope Scope
	// Field is the library option the key sets, such as
	// "session.Options.DefaultTimeout", or what reads it when no library
	// option does (the CLI's sandbox, the HTTP server).
	Field string
	// Kind is the kind of value: "duration", "size", "int", "bool",
	// "string", "list" or "map".
	Kind string
	// Default says what an unset key means.
	Default string
	// Usage is the one-line description shown by --help and in the
	// README.
	Usage string
}

// keyDoc is what [Keys] cannot derive from File's fields.
type keyDoc struct {
	flag  string
	scope Scope
	field string
	def   string // when Marshal shows no default (null)
	usage string
}

// keyDocs documents every key; TestEveryKeyIsDocumented keeps it
// complete, and init refuses to run without it.
var keyDocs = map[string]keyDoc{
	"workspace":            {flag: "workspace", field: "shellcap.Options.Workspace", def: "the current directory", usage: "workspace directory; ~ is expanded"},
	"read_only":            {flag: "read-only", field: "shellcap.Options.ReadOnly", usage: "treat the workspace as read-only: no command execution"},
	"shell":                {flag: "shell", field: "shellcap.Options.ShellPath", def: "bash, else /bin/sh", usage: "shell that runs commands with -c"},
	"default_timeout":      {flag: "default-timeout", field: "shellcap.Options.DefaultTimeout", usage: "timeout when a request sets none"},
	"max_timeout":          {flag: "max-timeout", field: "shellcap.Options.MaxTimeout", usage: "largest timeout a request may ask for"},
	"kill_grace":           {flag: "kill-grace", field: "shellcap.Options.KillGrace", usage: "time between SIGTERM and SIGKILL when a command is stopped"},
	"max_output_bytes":     {flag: "max-output-bytes", field: "shellcap.Options.MaxOutputBytes", usage: "stop a command after it printed this much (e.g. 10M; negative: no cap)"},
	"max_output_chars":     {flag: "max-output-chars", field: "shellcap.Options.MaxOutputChars", usage: "cap on the text the model reads, in characters (negative: none)"},
	"head_and_tail":        {flag: "head-and-tail", field: "shellcap.Options.HeadAndTail", usage: "keep both ends of over-long output instead of only the end"},
	"stdout_head_chars":    {flag: "stdout-head-chars", field: "shellcap.Options.StdoutBudget (Head)", def: "0 (the max_output_chars rule)", usage: "characters of stdout's beginning the model reads (with stdout_tail_chars; e.g. 2000)"},
	"stdout_tail_chars":    {flag: "stdout-tail-chars", field: "shellcap.Options.StdoutBudget (Tail)", def: "0 (the max_output_chars rule)", usage: "characters of stdout's end the model reads (e.g. 8000)"},
	"stderr_head_chars":    {flag: "stderr-head-chars", field: "shellcap.Options.StderrBudget (Head)", def: "0 (the max_output_chars rule)", usage: "characters of stderr's beginning the model reads (e.g. 2000)"},
	"stderr_tail_chars":    {flag: "stderr-tail-chars", field: "shellcap.Options.StderrBudget (Tail)", def: "0 (the max_output_chars rule)", usage: "characters of stderr's end the model reads (e.g. 2000)"},
	"keep_ansi":            {flag: "keep-ansi", field: "shellcap.Options.KeepANSI", usage: "keep ANSI escape sequences in the output"},
	"disable_output_files": {flag: "no-output-files", field: "shellcap.Options.DisableOutputFiles", usage: "do not keep the complete output of truncated commands under .shellcap/output"},
	"output_retention":     {flag: "output-retention", field: "shellcap.Options.OutputRetention", usage: "how long the complete output of truncated commands is kept"},
	"max_file_bytes":       {flag: "max-file-bytes", field: "shellcap.Options.MaxFileBytes", usage: "largest file a command may write (e.g. 10M; 0: no limit)"},
	"memory_limit":         {flag: "memory-limit", field: "shellcap.Options.MemoryLimit", usage: "address-space limit per process (e.g. 2G; 0: no limit)"},
	"cpu_time":             {flag: "cpu-time", field: "shellcap.Options.CPUTime", usage: "CPU time limit per process (e.g. 30s; 0: no limit)"},
	"max_processes":        {flag: "max-processes", field: "shellcap.Options.MaxProcesses", usage: "process limit for the command's user (not enforced for root; 0: no limit)"},
	"env":                  {flag: "env", field: "shellcap.Options.Env", usage: "add NAME=VALUE to the command environment (repeatable)"},
	"pass_env":             {flag: "pass-env", field: "shellcap.Options.PassEnv", usage: "host variables to pass through beyond PATH HOME LANG LC_ALL LC_CTYPE TERM TMPDIR"},
	"denied_env_patterns":  {flag: "deny-env", field: "shellcap.Options.DeniedEnvPatterns", usage: "remove variables matching these globs ('llm_api_keys' for the usual credential names)"},
	"persist_cwd":          {flag: "persist-cwd", field: "shellcap.Options.PersistCwd", usage: "make cd stick across calls"},
	"die_with_process":     {flag: "die-with-process", field: "shellcap.Options.DieWithProcess", def: "true for mcp and serve, else false", usage: "commands die with shellcap, even when it is killed with SIGKILL"},

	"policy.allowed_commands":  {flag: "allow", field: "policy.Rules.AllowedCommands", usage: "allow only these commands (replaces the default deny list)"},
	"policy.denied_commands":   {flag: "deny", field: "policy.Rules.DeniedCommands", usage: "deny these commands instead of the default list (--no-deny-list: none)"},
	"policy.denied_operators":  {flag: "deny-operator", field: "policy.Rules.DeniedOperators", usage: "deny shell operators such as '>', '|', '&&', '$(...)'"},
	"policy.allow_interactive": {flag: "allow-interactive", field: "policy.Rules.AllowInteractive", usage: "allow interactive programs (vim, less, ssh, ...)"},
	"policy.deny_patterns":     {flag: "deny-pattern", field: "policy.Rules.DenyPatterns", usage: "deny commands matching these regular expressions"},
	"policy.allow_patterns":    {flag: "allow-pattern", field: "policy.Rules.AllowPatterns", def: "no allow list", usage: "allow only commands matching these regular expressions"},
	"policy.approval":          {flag: "approval-rules", field: "policy.Rules.Approval", usage: "use the approval rule set: read-only commands run, destructive ones are denied, the rest need approval"},
	"approval_mode":            {flag: "approval-mode", field: "shellcap.Options.ApprovalMode", usage: "which commands need the user's approval: ask (those the policy marks), all, or none (needs acknowledge_unsafe)"},
	"acknowledge_unsafe":       {flag: "acknowledge-unsafe", field: "shellcap.Options.AcknowledgeUnsafe", usage: "accept approval mode none, which runs commands the policy wants approved"},

	"tools":                      {flag: "tools", scope: Servers, field: "mcpserver.Options.Tools", usage: "MCP tools to offer"},
	"sandbox":                    {flag: "sandbox", field: "shellcap.Options.Sandbox (sandbox.Config.Profile)", usage: "the Linux sandbox's profile: workspace-write (degraded with a warning where the machine cannot enforce it), read-only, or full-access to turn it off"},
	"sandbox_network":            {flag: "sandbox-network", field: "sandbox.Config.Network", usage: "the sandbox's network: none, allowlist (only --sandbox-allow, through a proxy) or full (--allow-host sets allowlist)"},
	"sandbox_allow":              {flag: "sandbox-allow", field: "sandbox.Config.Allow", usage: "host:port a sandboxed command may reach with the allowlist network (repeatable; *.example.com:443 for subdomains; --allow-host HOST adds HOST:443)"},
	"sandbox_read_everything":    {flag: "sandbox-read-everything", field: "sandbox.Config.ReadEverything", usage: "let sandboxed commands read the whole filesystem (~/.ssh included), not only system directories and the workspace"},
	"sandbox_process_limit":      {flag: "sandbox-process-limit", field: "sandbox.Config.ProcessLimit", def: "512", usage: "processes and threads one sandbox may hold (negative: none)"},
	"sandbox_tmp_size":           {flag: "sandbox-tmp-size", field: "sandbox.Config.TmpSize", def: "1GiB", usage: "size of each private tmpfs of the sandbox: /tmp, /dev/shm, /run"},
	"sandbox_proxy_max_conns":    {flag: "sandbox-proxy-max-conns", field: "sandbox.Config.ProxyMaxConns", def: "128", usage: "connections the allowlist proxy holds open for one sandbox"},
	"sandbox_proxy_idle_timeout": {flag: "sandbox-proxy-idle-timeout", field: "sandbox.Config.ProxyIdleTimeout", def: "5m", usage: "close a proxy connection silent this long"},

	"executor": {flag: "executor", field: "the CLI (shellcap.Shell or container.Executor)", def: "host", usage: "what runs one-off commands (run, run_command): host, or container (--image or --rootfs)"},

	"session.start_in_root":    {flag: "session-start-in-root", field: "session.Options.StartInRoot", usage: "start every command of a bash session in the workspace root"},
	"session.default_timeout":  {flag: "session-default-timeout", field: "session.Options.DefaultTimeout", def: "default_timeout", usage: "timeout of a bash session command that sets none"},
	"session.max_timeout":      {flag: "session-max-timeout", field: "session.Options.MaxTimeout", def: "max_timeout", usage: "largest timeout a bash session command may ask for"},
	"session.interrupt_grace":  {flag: "session-interrupt-grace", field: "session.Options.InterruptGrace", def: "kill_grace", usage: "time an interrupted bash session command has to give the prompt back before it is killed"},
	"session.max_output_bytes": {flag: "session-max-output-bytes", field: "session.Options.MaxOutputBytes", def: "max_output_bytes", usage: "interrupt a bash session command after it printed this much"},
	"session.max_output_chars": {flag: "session-max-output-chars", field: "session.Options.MaxOutputChars", def: "max_output_chars", usage: "cap on the text the model reads from a bash session command"},
	"session.keep_ansi":        {flag: "session-keep-ansi", field: "session.Options.KeepANSI", def: "keep_ansi", usage: "keep ANSI escape sequences in bash session output"},
	"session.soft_timeout":     {flag: "session-soft-timeout", field: "session.Options.SoftTimeout", def: "0 (off)", usage: "a bash session command still running after this long becomes background job N (jobs, output N, wait N, kill N)"},
	"session.head_and_tail":    {flag: "session-head-and-tail", field: "session.Options.HeadAndTail", def: "head_and_tail", usage: "keep both ends of over-long bash session output instead of only the end"},

	"jobs.max_jobs":         {flag: "max-jobs", field: "jobs.Options.MaxJobs", def: "32", usage: "background jobs that may run at once in the workspace"},
	"jobs.retention":        {flag: "job-retention", field: "jobs.Options.Retention", def: "24h", usage: "how long a finished job's logs and status are kept"},
	"jobs.kill_grace":       {flag: "job-kill-grace", field: "jobs.Options.KillGrace", def: "kill_grace", usage: "time between SIGTERM and SIGKILL when a job is stopped"},
	"jobs.max_log_bytes":    {flag: "job-max-log-bytes", field: "jobs.Options.MaxLogBytes", def: "8MiB", usage: "bound on each log file of a job (at least 64KiB); the oldest bytes go first"},
	"jobs.max_output_chars": {flag: "job-max-output-chars", field: "jobs.Options.MaxOutputChars", def: "max_output_chars", usage: "cap on the text the model reads from one job result"},
	"jobs.keep_ansi":        {flag: "job-keep-ansi", field: "jobs.Options.KeepANSI", def: "keep_ansi", usage: "keep ANSI escape sequences in job output"},
	"jobs.stop_on_close":    {flag: "job-stop-on-close", scope: Servers, field: "jobs.Options.StopOnClose", def: "false", usage: "stop the background jobs a server started when it shuts down, instead of leaving them running"},
	"jobs.key_dir":          {flag: "job-key-dir", field: "jobs.Options.KeyDir", def: "$XDG_STATE_HOME/shellcap, else ~/.local/state/shellcap", usage: "directory, outside the workspace, of the key that signs job status files"},

	"container.image":              {flag: "image", field: "container.Options.Image", usage: "image the container executor runs (or --rootfs)"},
	"container.rootfs":             {flag: "rootfs", field: "container.Options.RootFS", usage: "unpacked root filesystem the container executor runs (podman only; or --image)"},
	"container.runtime":            {flag: "runtime", field: "container.Options.Engine", def: "podman from PATH, else docker", usage: "container engine: podman, docker, or the absolute path of one"},
	"container.engine_args":        {flag: "container-engine-args", field: "container.Options.EngineArgs", usage: "global options of the container engine, before its subcommand (e.g. --runtime,runc)"},
	"container.mode":               {flag: "container-mode", field: "container.Options.Mode", def: "stateless", usage: "stateless (a fresh container per command) or persistent (one container for the server's life)"},
	"container.writable_workspace": {flag: "container-writable-workspace", field: "container.Options.WritableWorkspace", usage: "mount the workspace read-write in the container (default read-only)"},
	"container.shell":              {flag: "container-shell", field: "container.Options.ShellPath", def: "/bin/sh", usage: "shell that runs commands inside the container"},
	"container.memory":             {flag: "container-memory", field: "container.Options.Memory", def: "512MiB", usage: "memory limit of the container"},
	"container.pids":               {flag: "container-pids", field: "container.Options.Pids", def: "256", usage: "process limit of the container"},
	"container.tmpfs_size":         {flag: "container-tmpfs-size", field: "container.Options.TmpfsSize", def: "64MiB", usage: "size of the container's /tmp"},
	"container.nofile":             {flag: "container-nofile", field: "container.Options.NoFile", def: "1024", usage: "RLIMIT_NOFILE in the container"},
	"container.nproc":              {flag: "container-nproc", field: "container.Options.NProc", def: "256", usage: "RLIMIT_NPROC in the container"},
	"container.engine_timeout":     {flag: "container-engine-timeout", field: "container.Options.EngineTimeout", def: "60s", usage: "bound on each engine housekeeping call (start, kill, rm)"},

	"server.addr":                 {flag: "addr", scope: Serve, field: "mcpserver.HTTPOptions.Addr", def: "127.0.0.1:7777", usage: "listen address"},
	"server.token":                {flag: "token", scope: Serve, field: "mcpserver.HTTPOptions.Token", def: "none (loopback only)", usage: "bearer token clients must send (required beyond loopback; visible in /proc, prefer --token-file)"},
	"server.allowed_origins":      {flag: "allow-origin", scope: Serve, field: "mcpserver.HTTPOptions.AllowedOrigins", def: "loopback origins", usage: "browser origins allowed besides loopback"},
	"server.max_body_bytes":       {flag: "max-body-bytes", scope: Serve, field: "mcpserver.HTTPOptions.MaxBodyBytes", def: "4MiB", usage: "largest HTTP request body (at least 64KiB)"},
	"server.session_idle_timeout": {flag: "idle-timeout", scope: Serve, field: "mcpserver.HTTPOptions.SessionIdleTimeout", def: "30m", usage: "close MCP sessions idle this long"},
	"server.max_sessions":         {flag: "max-sessions", scope: Serve, field: "mcpserver.HTTPOptions.MaxSessions", def: "100", usage: "most MCP sessions open at once"},
	"server.share_jobs":           {flag: "share-jobs", scope: Servers, field: "mcpserver.Options.ShareJobs", def: "false", usage: "let every MCP session list every background job"},
	"server.token_file":           {flag: "token-file", scope: Serve, field: "mcpserver.HTTPOptions.Token", def: "none", usage: "file or /dev/fd/N holding the bearer token"},
	"server.probe_tools":          {flag: "probe-tools", scope: Servers, field: "envprobe.Options.Tools", usage: "programs the environment snapshot reports"},
	"server.probe_timeout":        {flag: "probe-timeout", scope: Servers, field: "envprobe.Options.Timeout", usage: "bound on each environment probe"},
	"server.foreground_timeout":   {flag: "foreground-timeout", scope: Servers, field: "mcpserver.Options.ForegroundTimeout", def: "0 (never)", usage: "run_command promotes a command still running after this long to a background job"},
}

var keys []Key

// buildKeys documents every field; it runs after collect.
func buildKeys() {
	for i := range fields {
		fd := &fields[i]
		d, ok := keyDocs[fd.key]
		if !ok {
			panic("config: key " + fd.key + " has no entry in keyDocs")
		}
		keys = append(keys, Key{
			Key: fd.key, Env: fd.env, Flag: d.flag, Scope: d.scope, Field: d.field,
			Kind: kindOf(fd.typ), Default: defaultText(fd, d), Usage: d.usage,
		})
	}
}

// Keys lists every configuration key in the order of File's fields.
func Keys() []Key { return append([]Key(nil), keys...) }

// KeyOf returns the key documented for a key path.
func KeyOf(key string) (Key, bool) {
	for _, k := range keys {
		if k.Key == key {
			return k, true
		}
	}
	return Key{}, false
}

func kindOf(t reflect.Type) string {
	switch t {
	case stringsType:
		return "list"
	case mapType:
		return "map"
	}
	t = t.Elem()
	switch {
	case t == durationType:
		return "duration"
	case t == approvalType:
		return "string"
	case t.Kind() == reflect.Int64:
		return "size"
	case t.Kind() == reflect.Int:
		return "int"
	case t.Kind() == reflect.Bool:
		return "bool"
	}
	return "string"
}

// defaultText renders what an unset key means: the value [File.Marshal]
// shows, unless the key's documentation says it in words (a value decided
// elsewhere, or inherited from another key).
func defaultText(fd *field, d keyDoc) string {
	if d.def != "" {
		if fieldByKey(d.def) != nil {
			return "the Shell's " + d.def
		}
		return d.def
	}
	n, err := (&File{}).node(fd)
	if err != nil || n.Tag == "!!null" {
		return ""
	}
	if len(n.Content) > 0 { // a list: join its entries
		var parts []string
		for _, c := range n.Content {
			parts = append(parts, c.Value)
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, ", ")
	}
	switch n.Value {
	case "[]", "{}", "":
		return "none"
	}
	return n.Value
}
