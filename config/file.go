package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/shellcap/shellcap"
)

// File is one layer of configuration: a config file, the SHELLCAP_*
// environment, or the command-line flags. Every field is optional: a nil
// pointer, slice or map means "not set in this layer", so [Merge] keeps
// what an earlier layer set and [File.Options] falls back to the library's
// default. A non-nil empty slice is set (for policy.denied_commands it
// means "no deny list"). The yaml tags give the keys of the file; the
// SHELLCAP_* variables are the same key paths upper-cased and joined with
// "_".
type File struct {
	// Workspace is Options.Workspace: the directory commands run in.
	Workspace *string `yaml:"workspace"`
	// ReadOnly is Options.ReadOnly: offer no command execution.
	ReadOnly *bool `yaml:"read_only"`
	// Shell is Options.ShellPath: the POSIX shell that runs commands.
	Shell *string `yaml:"shell"`
	// DefaultTimeout is Options.DefaultTimeout ("30s" in the file).
	DefaultTimeout *time.Duration `yaml:"default_timeout"`
	// MaxTimeout is Options.MaxTimeout.
	MaxTimeout *time.Duration `yaml:"max_timeout"`
	// KillGrace is Options.KillGrace.
	KillGrace *time.Duration `yaml:"kill_grace"`
	// MaxOutputBytes is Options.MaxOutputBytes (a byte count or "64MiB").
	MaxOutputBytes *int64 `yaml:"max_output_bytes"`
	// MaxOutputChars is Options.MaxOutputChars.
	MaxOutputChars *int `yaml:"max_output_chars"`
	// HeadAndTail is Options.HeadAndTail.
	HeadAndTail *bool `yaml:"head_and_tail"`
	// StdoutHeadChars and StdoutTailChars are Options.StdoutBudget, the
	// characters kept from the beginning and the end of stdout;
	// StderrHeadChars and StderrTailChars are Options.StderrBudget.
	StdoutHeadChars *int `yaml:"stdout_head_chars"`
	StdoutTailChars *int `yaml:"stdout_tail_chars"`
	StderrHeadChars *int `yaml:"stderr_head_chars"`
	StderrTailChars *int `yaml:"stderr_tail_chars"`
	// KeepANSI is Options.KeepANSI.
	KeepANSI *bool `yaml:"keep_ansi"`
	// DisableOutputFiles is Options.DisableOutputFiles.
	DisableOutputFiles *bool `yaml:"disable_output_files"`
	// OutputRetention is Options.OutputRetention.
	OutputRetention *time.Duration `yaml:"output_retention"`
	// MaxFileBytes is Options.MaxFileBytes (a byte count or "1GiB").
	MaxFileBytes *int64 `yaml:"max_file_bytes"`
	// MemoryLimit is Options.MemoryLimit (a byte count or "2GiB").
	MemoryLimit *int64 `yaml:"memory_limit"`
	// CPUTime is Options.CPUTime.
	CPUTime *time.Duration `yaml:"cpu_time"`
	// MaxProcesses is Options.MaxProcesses.
	MaxProcesses *int `yaml:"max_processes"`
	// Env is Options.Env. [Merge] merges it name by name.
	Env map[string]string `yaml:"env"`
	// PassEnv is Options.PassEnv.
	PassEnv []string `yaml:"pass_env"`
	// DeniedEnvPatterns is Options.DeniedEnvPatterns. The entry
	// [LLMAPIKeys] ("llm_api_keys") stands for shellcap.LLMAPIKeyEnvPatterns.
	DeniedEnvPatterns []string `yaml:"denied_env_patterns"`
	// PersistCwd is Options.PersistCwd.
	PersistCwd *bool `yaml:"persist_cwd"`
	// Policy holds the policy.Rules that can be written down.
	Policy Policy `yaml:"policy"`
	// ApprovalMode is Options.ApprovalMode: "ask", "all" or "none".
	ApprovalMode *shellcap.ApprovalMode `yaml:"approval_mode"`
	// AcknowledgeUnsafe is Options.AcknowledgeUnsafe.
	AcknowledgeUnsafe *bool `yaml:"acknowledge_unsafe"`
	// Tools names the MCP tools offered (see [ToolNames]). Nil offers all
	// of them; an empty list offers none.
	Tools []string `yaml:"tools"`
	// Sandbox names the sandbox profile: "read-only", "workspace-write"
	// or "full-access" (no confinement); "" is the CLI's default,
	// workspace-write where the machine can enforce it. It is carried for
	// the sandbox and the CLI; [File.Options] does not use it.
	Sandbox *string `yaml:"sandbox"`
	// SandboxNetwork is the sandbox's network: "" or "none" (no network),
	// "allowlist" (only SandboxAllow, through a proxy) or "full".
	SandboxNetwork *string `yaml:"sandbox_network"`
	// SandboxAllow lists the host:port destinations of the "allowlist"
	// network (sandbox.Config.Allow).
	SandboxAllow []string `yaml:"sandbox_allow"`
	// SandboxReadEverything is sandbox.Config.ReadEverything: sandboxed
	// commands may read the whole filesystem, not only the system
	// directories and the workspace.
	SandboxReadEverything *bool `yaml:"sandbox_read_everything"`
	// SandboxProcessLimit is sandbox.Config.ProcessLimit: the processes
	// and threads one sandbox may hold; unset or 0 means
	// sandbox.DefaultProcessLimit, negative no limit.
	SandboxProcessLimit *int `yaml:"sandbox_process_limit"`
	// SandboxTmpSize is sandbox.Config.TmpSize, the size of each private
	// tmpfs (a byte count or "512MiB"); unset or 0 means
	// sandbox.DefaultTmpSize.
	SandboxTmpSize *int64 `yaml:"sandbox_tmp_size"`
	// SandboxProxyMaxConns is sandbox.Config.ProxyMaxConns.
	SandboxProxyMaxConns *int `yaml:"sandbox_proxy_max_conns"`
	// SandboxProxyIdleTimeout is sandbox.Config.ProxyIdleTimeout.
	SandboxProxyIdleTimeout *time.Duration `yaml:"sandbox_proxy_idle_timeout"`
	// DieWithProcess is Options.DieWithProcess: commands (and the bash
	// tool's shells) die with shellcap, even when it is killed with
	// SIGKILL. Unset means true for the MCP servers, false otherwise.
	DieWithProcess *bool `yaml:"die_with_process"`
	// Executor picks what runs one-off commands (`shellcap run`, the
	// run_command tool): "host" (the default: the Shell, in its sandbox)
	// or "container" (package container, configured by Container).
	Executor *string `yaml:"executor"`
	// Session holds the options of the persistent bash sessions (the
	// bash tool, `shellcap repl`). Unset fields take the Shell's value.
	Session Session `yaml:"session"`
	// Jobs holds the options of the background job Manager. Unset fields
	// take the Shell's value or the jobs package's default.
	Jobs Jobs `yaml:"jobs"`
	// Container holds the options of the container executor, used when
	// Executor is "container".
	Container Container `yaml:"container"`
	// Server holds the settings of `shellcap serve` and the MCP server.
	Server Server `yaml:"server"`
}

// Session is the part of session.Options a file can hold. Each field is
// the Options field of the same meaning; unset or zero inherits the
// Shell's setting.
type Session struct {
	// StartInRoot is session.Options.Confine: start every command in the
	// workspace root.
	StartInRoot *bool `yaml:"start_in_root"`
	// DefaultTimeout is session.Options.DefaultTimeout.
	DefaultTimeout *time.Duration `yaml:"default_timeout"`
	// MaxTimeout is session.Options.MaxTimeout.
	MaxTimeout *time.Duration `yaml:"max_timeout"`
	// InterruptGrace is session.Options.InterruptGrace.
	InterruptGrace *time.Duration `yaml:"interrupt_grace"`
	// MaxOutputBytes is session.Options.MaxOutputBytes.
	MaxOutputBytes *int64 `yaml:"max_output_bytes"`
	// MaxOutputChars is session.Options.MaxOutputChars.
	MaxOutputChars *int `yaml:"max_output_chars"`
	// KeepANSI is session.Options.KeepANSI.
	KeepANSI *bool `yaml:"keep_ansi"`
	// HeadAndTail is session.Options.HeadAndTail.
	HeadAndTail *bool `yaml:"head_and_tail"`
	// SoftTimeout is session.Options.SoftTimeout: a command still running
	// after it becomes a background job of the session.
	SoftTimeout *time.Duration `yaml:"soft_timeout"`
}

// Jobs is the part of jobs.Options a file can hold (the job sandbox
// follows the sandbox keys). Each field is the Options field of the same
// name.
type Jobs struct {
	// MaxJobs is jobs.Options.MaxJobs.
	MaxJobs *int `yaml:"max_jobs"`
	// Retention is jobs.Options.Retention.
	Retention *time.Duration `yaml:"retention"`
	// KillGrace is jobs.Options.KillGrace.
	KillGrace *time.Duration `yaml:"kill_grace"`
	// MaxLogBytes is jobs.Options.MaxLogBytes.
	MaxLogBytes *int64 `yaml:"max_log_bytes"`
	// MaxOutputChars is jobs.Options.MaxOutputChars.
	MaxOutputChars *int `yaml:"max_output_chars"`
	// KeepANSI is jobs.Options.KeepANSI.
	KeepANSI *bool `yaml:"keep_ansi"`
	// KeyDir is jobs.Options.KeyDir.
	KeyDir *string `yaml:"key_dir"`
	// StopOnClose is jobs.Options.StopOnClose.
	StopOnClose *bool `yaml:"stop_on_close"`
}

// Container is the part of container.Options a file can hold. The
// timeouts and output caps are the Shell's; the environment is the env
// key's.
type Container struct {
	// Image is container.Options.Image.
	Image *string `yaml:"image"`
	// RootFS is container.Options.RootFS (podman only).
	RootFS *string `yaml:"rootfs"`
	// Runtime is container.Options.Engine: "podman", "docker" or the path
	// of one of them.
	Runtime *string `yaml:"runtime"`
	// EngineArgs is container.Options.EngineArgs: global engine options
	// put before the subcommand, such as ["--runtime", "runc"].
	EngineArgs []string `yaml:"engine_args"`
	// Mode is container.Options.Mode: "stateless" or "persistent".
	Mode *string `yaml:"mode"`
	// WritableWorkspace is container.Options.WritableWorkspace.
	WritableWorkspace *bool `yaml:"writable_workspace"`
	// Shell is container.Options.ShellPath, inside the container.
	Shell *string `yaml:"shell"`
	// Memory is container.Options.Memory (a byte count or "512MiB").
	Memory *int64 `yaml:"memory"`
	// Pids is container.Options.Pids.
	Pids *int `yaml:"pids"`
	// TmpfsSize is container.Options.TmpfsSize.
	TmpfsSize *int64 `yaml:"tmpfs_size"`
	// NoFile is container.Options.NoFile.
	NoFile *int `yaml:"nofile"`
	// NProc is container.Options.NProc.
	NProc *int `yaml:"nproc"`
	// EngineTimeout is container.Options.EngineTimeout.
	EngineTimeout *time.Duration `yaml:"engine_timeout"`
}

// Policy is the part of policy.Rules a file can hold (Rules.Custom is a
// function and has no file form). Each field is the Rules field of the
// same name.
type Policy struct {
	// AllowedCommands is Rules.AllowedCommands.
	AllowedCommands []string `yaml:"allowed_commands"`
	// DeniedCommands is Rules.DeniedCommands: nil (unset) means the
	// default deny list, an empty list means none.
	DeniedCommands []string `yaml:"denied_commands"`
	// DeniedOperators is Rules.DeniedOperators.
	DeniedOperators []string `yaml:"denied_operators"`
	// AllowInteractive is Rules.AllowInteractive.
	AllowInteractive *bool `yaml:"allow_interactive"`
	// DenyPatterns is Rules.DenyPatterns.
	DenyPatterns []string `yaml:"deny_patterns"`
	// AllowPatterns is Rules.AllowPatterns: nil (unset) means no allow
	// list, an empty list denies every command.
	AllowPatterns []string `yaml:"allow_patterns"`
	// Approval is Rules.Approval.
	Approval *bool `yaml:"approval"`
}

// Server holds the settings of the MCP server; the server decides what an
// unset field means.
type Server struct {
	// Addr is the listen address of the streamable HTTP transport.
	Addr *string `yaml:"addr"`
	// Token is the bearer token HTTP clients must present. [File.Marshal]
	// shows it as "<redacted>".
	Token *string `yaml:"token"`
	// AllowedOrigins lists the Origin values HTTP requests may carry.
	AllowedOrigins []string `yaml:"allowed_origins"`
	// MaxBodyBytes limits the size of an HTTP request body.
	MaxBodyBytes *int64 `yaml:"max_body_bytes"`
	// SessionIdleTimeout is how long an idle HTTP session is kept.
	SessionIdleTimeout *time.Duration `yaml:"session_idle_timeout"`
	// MaxSessions bounds the HTTP MCP sessions open at once.
	MaxSessions *int `yaml:"max_sessions"`
	// ShareJobs lets every MCP session list every background job.
	ShareJobs *bool `yaml:"share_jobs"`
	// TokenFile is a file (or /dev/fd/N) holding the bearer token.
	TokenFile *string `yaml:"token_file"`
	// ProbeTools lists the tools the environment snapshot reports
	// (envprobe.Options.Tools).
	ProbeTools []string `yaml:"probe_tools"`
	// ProbeTimeout bounds each environment probe (envprobe.Options.Timeout).
	ProbeTimeout *time.Duration `yaml:"probe_timeout"`
	// ForegroundTimeout is mcpserver.Options.ForegroundTimeout: a
	// run_command still running after this long becomes a background
	// job. Unset or zero never promotes.
	ForegroundTimeout *time.Duration `yaml:"foreground_timeout"`
}

// ToolNames lists every MCP tool shellcap can offer, in the order they are
// listed to clients. File.Tools entries must be among them.
var ToolNames = []string{
	"run_command", "start_command", "check_command", "wait_command", "send_input",
	"stop_command", "list_commands", "shell", "bash",
}

// Sandbox profile names accepted by File.Sandbox.
var SandboxProfiles = []string{"", "read-only", "workspace-write", "full-access"}

// SandboxNetworks are the values accepted by File.SandboxNetwork.
var SandboxNetworks = []string{"", "none", "allowlist", "full"}

// Executors are the values accepted by File.Executor.
var Executors = []string{"", "host", "container"}

// ContainerModes are the values accepted by Container.Mode.
var ContainerModes = []string{"", "stateless", "persistent"}

// LLMAPIKeys is the File.DeniedEnvPatterns entry that stands for every
// pattern of shellcap.LLMAPIKeyEnvPatterns.
const LLMAPIKeys = "llm_api_keys"

// Redacted replaces secrets in [File.Marshal]'s output. It is refused as a
// value, so a printed configuration cannot be loaded back with a token
// that is not the real one.
const Redacted = "<redacted>"

// FileNames are the names [Find] looks for, in order.
var FileNames = []string{"shellcap.yaml", "shellcap.yml", "shellcap.json"}

// ErrInvalid is wrapped by every error about a key or a value.
var ErrInvalid = errors.New("invalid configuration")

// Error reports a bad key or value in one configuration layer.
type Error struct {
	// Source is the file name as given, "environment" for FromEnv, or
	// empty for a File built in code.
	Source string
	// Key is the key path ("policy.denied_operators[2]") or the
	// environment variable name; empty for a file that is not YAML.
	Key string
	// Line is the line in the file, or 0.
	Line int
	// Msg says what is wrong.
	Msg string
}

// Error names the file, the key and what is wrong with it.
func (e *Error) Error() string {
	s := "config"
	if e.Source != "" {
		s += " " + e.Source
	}
	if e.Key != "" {
		s += ": " + e.Key
	}
	return s + ": " + e.Msg
}

// Unwrap returns ErrInvalid.
func (e *Error) Unwrap() error { return ErrInvalid }

// Load reads and parses the configuration file at path (YAML, or JSON,
// which is read as YAML).
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(data, path)
}

// Find looks for one of [FileNames] in dir and returns the path of the
// first that exists as a regular file.
func Find(dir string) (string, bool) {
	for _, name := range FileNames {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}
