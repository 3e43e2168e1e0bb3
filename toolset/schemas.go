package toolset

import (
	"fmt"
	"time"

	"github.com/shellcap/shellcap/jobs"
)

// This file holds every tool's definition: its texts and its hand-written
// input and output schemas. They are the public contract every host
// (MCP, each adapter) offers unchanged.

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

const bashDescription = `Run a command in a persistent bash session: variables, functions, cd and export carry over from one call to the next, as in a terminal.

Commands read end-of-file from stdin, so interactive programs cannot be used. A command that runs past the timeout is interrupted; the session and its state survive. If the shell exits (exit, a failed set -e), it is restarted with its working directory, variables, functions and aliases restored (after exec or a kill: the directory and exported variables), and the result says what was kept. Pass restart: true to start a fresh session. Output is labelled [stdout]/[stderr] with [exit code: N] on failure. Run long-lived servers with start_command instead.

Each conversation (an MCP session, a framework's session) has its own shell. A client without one (stateless HTTP) gets a new shell and its session_id in the result; pass that session_id to keep using it.`

// define builds the tool named name.
func (ts *Toolset) define(name string) *Tool {
	destructive := Annotations{Destructive: true, OpenWorld: true}
	readOnly := Annotations{ReadOnly: true}
	t := &Tool{Name: name, ts: ts}
	switch name {
	case RunCommand:
		t.Title, t.Description = "Run a shell command", runCommandDescription
		t.InputSchema, t.OutputSchema = ts.runCommandSchema(), ts.runCommandOutputSchema()
		t.Annotations, t.handler = destructive, ts.runCommand
	case BashTool:
		t.Title, t.Description = "Persistent bash session", bashDescription
		t.InputSchema, t.OutputSchema = ts.bashSchema(), bashOutputSchema
		t.Annotations, t.handler = destructive, ts.bashTool
	case StartCommand:
		t.Title = "Start a background command"
		t.Description = `Start a long-running command in the background (e.g. a server or watcher) and return its ID at once.

The command keeps running after this call (and if the server restarts). Use check_command to see its output, wait_command to wait for it to finish, send_input to write to its stdin (start it with stdin: true), and stop_command to stop it and collect its final output. Its output is kept in bounded logs; a finished job is forgotten after a day.`
		t.InputSchema = object(map[string]any{
			"command": str("The shell command line to run with bash -c."),
			"stdin":   boolean("Keep the command's stdin open as a pipe for send_input. Default false: stdin is at end-of-file."),
		}, "command")
		t.Annotations, t.handler = destructive, ts.startCommand
	case CheckCommand:
		t.Title = "Check a background command"
		t.Description = `Check the status and recent output of a background command, without waiting. The result ends with [status: running] or [status: finished] and, once known, [exit code: N]. With new_only, only the output since the last check is returned.`
		t.InputSchema = object(map[string]any{
			"command_id": str("The ID start_command returned."),
			"new_only":   boolean("Return only output produced since the last check_command or wait_command of this job."),
		}, "command_id")
		t.Annotations, t.handler = readOnly, ts.checkCommand
	case WaitCommand:
		t.Title = "Wait for a background command"
		t.Description = `Wait until a background command finishes or timeout_seconds pass, then report like check_command. Waiting longer does not stop the command; if it is still running afterwards, wait again, check later or stop it.`
		t.InputSchema = object(map[string]any{
			"command_id":      str("The ID start_command returned."),
			"timeout_seconds": map[string]any{"type": "number", "minimum": MinTimeout.Seconds(), "maximum": jobs.MaxWait.Seconds(), "description": "How long to wait at most, in seconds."},
		}, "command_id", "timeout_seconds")
		t.Annotations, t.handler = readOnly, ts.waitCommand
	case SendInput:
		t.Title = "Send input to a background command"
		t.Description = `Write text to the stdin of a background command started with stdin: true. Include a trailing newline where the program expects a line. With eof, stdin is closed after the text, which many programs need before they finish.`
		t.InputSchema = object(map[string]any{
			"command_id": str("The ID start_command returned."),
			"text":       str("The text to write."),
			"eof":        boolean("Close stdin after writing."),
		}, "command_id", "text")
		t.Annotations, t.handler = destructive, ts.sendInput
	case StopCommand:
		t.Title = "Stop a background command"
		t.Description = `Stop a background command and return its final output. Its whole process group gets SIGTERM, then SIGKILL after a grace period; a command stopped by SIGTERM reports [exit code: 143]. The job is forgotten afterwards.`
		t.InputSchema = object(map[string]any{
			"command_id": str("The ID start_command returned."),
		}, "command_id")
		t.Annotations, t.handler = Annotations{Destructive: true, Idempotent: true}, ts.stopCommand
	case ListCommands:
		t.Title = "List background commands"
		t.Description = `List the background commands this session started (over stdio: every one), each with its ID, status, age and command line.`
		t.InputSchema = object(map[string]any{})
		t.Annotations, t.handler = readOnly, ts.listCommands
	case ShellTool:
		shellDef, shellMax := ts.shellTimeouts()
		t.Title = "Run a command that keeps running"
		t.Description = fmt.Sprintf(`Run a command that keeps running after this call and after the agent run.

In foreground mode (the default) the call waits up to timeout seconds (default %s, at most %s) and returns the last 16,000 bytes of the combined output, then the handles: the PID and the exact kill command that stops the whole process tree, the log file and the status file (JSON with the exit code once it exits). If the command is still running when the call returns, read the log and status files later or stop it with the kill command. Background mode returns the handles at once.`, durationText(shellDef), durationText(shellMax))
		t.InputSchema = object(map[string]any{
			"command": str("The shell command line to run with bash -c."),
			"mode":    map[string]any{"type": "string", "enum": []string{"foreground", "background"}, "default": "foreground", "description": "foreground waits for output; background returns at once."},
			"timeout": map[string]any{"type": "number", "minimum": MinTimeout.Seconds(), "maximum": shellMax.Seconds(), "description": "Seconds a foreground call waits."},
		}, "command")
		t.Annotations, t.handler = destructive, ts.shellTool
	default:
		panic("toolset: no definition for tool " + name)
	}
	if ts.opts.Remote != nil {
		t.handler = ts.remoteHandler(name)
	}
	return t
}

// runCommandSchema states the timeout range of the Shell.
func (ts *Toolset) runCommandSchema() map[string]any {
	st := ts.settings()
	def, max := st.DefaultTimeout, st.MaxTimeout
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"command": map[string]any{"type": "string", "description": "The shell command line to run with bash -c."},
			"timeout_seconds": map[string]any{"type": "number", "minimum": MinTimeout.Seconds(), "maximum": max.Seconds(),
				"description": fmt.Sprintf("Seconds before the command is stopped. Default %s, at most %s.", durationText(def), durationText(max))},
		},
		"required":             []string{"command"},
		"additionalProperties": false,
	}
}

// runCommandOutputSchema is resultSchema, or, when a long command may be
// promoted to a background job, the union of a result and a promotion.
func (ts *Toolset) runCommandOutputSchema() map[string]any {
	if ts.opts.Jobs == nil || ts.opts.ForegroundTimeout <= 0 {
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

// bashSchema states the timeout range of the bash sessions: their own
// options', else the Shell's.
func (ts *Toolset) bashSchema() map[string]any {
	st := ts.settings()
	def, max := st.DefaultTimeout, ts.bashMaxTimeout()
	if ts.opts.Session.DefaultTimeout > 0 {
		def = ts.opts.Session.DefaultTimeout
	}
	def = min(def, max)
	return object(map[string]any{
		"command":    str("The command to run. Required unless restart is true."),
		"restart":    boolean("Restart the bash session, discarding its state."),
		"session_id": str("The session_id of an earlier result, to use that shell. Omit it to use this conversation's shell."),
		"timeout_seconds": map[string]any{"type": "number", "minimum": MinTimeout.Seconds(), "maximum": max.Seconds(),
			"description": fmt.Sprintf("Seconds before the command is interrupted (the session survives). Default %s, at most %s.", durationText(def), durationText(max))},
	})
}

// bashMaxTimeout is the largest timeout of a bash session command: the
// sessions' own, else the Shell's.
func (ts *Toolset) bashMaxTimeout() time.Duration {
	if ts.opts.Session.MaxTimeout > 0 {
		return ts.opts.Session.MaxTimeout
	}
	return ts.settings().MaxTimeout
}

// bashOutputSchema is the structured result of the bash tool: a command
// result plus the shell's handle.
var bashOutputSchema = func() map[string]any {
	props := map[string]any{}
	for k, v := range resultSchema["properties"].(map[string]any) {
		props[k] = v
	}
	props["restarted"] = map[string]any{"type": "boolean", "description": "the shell ended during the call and a new one was started"}
	props["session_id"] = map[string]any{"type": "string", "description": "the shell's handle, for the session_id argument"}
	props["job"] = map[string]any{"type": "integer", "description": "the background job number the command became when it outlived the session's soft timeout (manage it with jobs, output N, wait N, kill N)"}
	return map[string]any{"type": "object", "properties": props}
}()

func durationText(d time.Duration) string { return fmt.Sprintf("%gs", d.Seconds()) }

func object(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
func boolean(desc string) map[string]any {
	return map[string]any{"type": "boolean", "description": desc}
}
