package mcpserver

import (
	"fmt"

	"github.com/shellcap/shellcap/internal/core"
)

// Tool names. They and their argument names are a public contract.
const (
	RunCommand   = "run_command"
	StartCommand = "start_command"
	CheckCommand = "check_command"
	WaitCommand  = "wait_command"
	SendInput    = "send_input"
	StopCommand  = "stop_command"
	ListCommands = "list_commands"
	ShellTool    = "shell"
	BashTool     = "bash"
)

// AllTools lists every tool name in the order they are offered.
var AllTools = []string{RunCommand, StartCommand, CheckCommand, WaitCommand, SendInput, StopCommand, ListCommands, ShellTool, BashTool}

func ptr[T any](v T) *T { return &v }

// resultSchema describes the structured result of a command tool.
var resultSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"command":               map[string]any{"type": "string"},
		"stdout":                map[string]any{"type": "string", "description": "stdout, with the middle of over-long output replaced by an omission line"},
		"stderr":                map[string]any{"type": "string"},
		"exit_code":             map[string]any{"type": []string{"integer", "null"}, "description": "128+N when signal N ended the shell; null when the command did not run (see error)"},
		"signal":                map[string]any{"type": "string"},
		"duration_ms":           map[string]any{"type": "integer"},
		"timeout_ms":            map[string]any{"type": "integer"},
		"timed_out":             map[string]any{"type": "boolean"},
		"canceled":              map[string]any{"type": "boolean"},
		"output_limit_exceeded": map[string]any{"type": "boolean"},
		"truncated":             map[string]any{"type": "boolean"},
		"stdout_bytes":          map[string]any{"type": "integer"},
		"stderr_bytes":          map[string]any{"type": "integer"},
		"stdout_omitted_bytes":  map[string]any{"type": "integer"},
		"stderr_omitted_bytes":  map[string]any{"type": "integer"},
		"stdout_file":           map[string]any{"type": "string", "description": "file holding the complete stdout when it was cut"},
		"stderr_file":           map[string]any{"type": "string"},
		"cwd":                   map[string]any{"type": "string"},
		"left_running":          map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
		"notes":                 map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"error":                 map[string]any{"type": "string", "description": "why the command was not run"},
	},
	"required": []string{"command", "stdout", "stderr", "exit_code", "timed_out", "truncated", "cwd"},
}

const runCommandDescription = `Execute a shell command and return its output.

The command runs with bash -c in the workspace, in its own process group, with stdin at end-of-file (commands that read input see EOF at once), a scrubbed environment and a timeout. The result labels the output "[stdout]" and "[stderr]", adds "[exit code: N]" when the command failed and "[Command timed out after Ns]" when it ran too long; then any notes in brackets.

Limits: long output keeps its end (errors and exit codes are there) and the complete output is saved to a file the result names: search it with grep or read parts with sed -n instead of running the command again. On timeout the command and everything it started are stopped; pass a larger timeout_seconds, or run long-lived servers and watchers with start_command. Interactive programs (editors, pagers, prompts) cannot be used. Some commands may be refused by policy; the result says why and what to do instead.`

// runCommandSchema states the timeout range of the Shell.
func (s *Server) runCommandSchema() map[string]any {
	st := core.Of(s.opts.Shell).Settings
	def, max := st.DefaultTimeout, st.MaxTimeout
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"command": map[string]any{"type": "string", "description": "The shell command line to run with bash -c."},
			"timeout_seconds": map[string]any{"type": "number", "minimum": minTimeout.Seconds(), "maximum": max.Seconds(),
				"description": fmt.Sprintf("Seconds before the command is stopped. Default %s, at most %s.", durationText(def), durationText(max))},
		},
		"required":             []string{"command"},
		"additionalProperties": false,
	}
}

// runCommandOutputSchema is resultSchema, or, when a long command may be
// promoted to a background job, the union of a result and a promotion.
func (s *Server) runCommandOutputSchema() map[string]any {
	if s.opts.Jobs == nil || s.opts.ForegroundTimeout <= 0 {
		return resultSchema
	}
	props := map[string]any{}
	for k, v := range resultSchema["properties"].(map[string]any) {
		props[k] = v
	}
	props["promoted"] = map[string]any{"type": "boolean", "description": "still running after the foreground timeout: it continues as background job id"}
	props["id"] = map[string]any{"type": "string", "description": "the background job of a promoted command"}
	return map[string]any{"type": "object", "properties": props, "required": []string{"command"}}
}
