// Package shellcap runs shell commands for AI agents and returns exactly
// what a model should read. The path most programs need is four names:
// [New] takes [Options] (whose zero value is the safe default) and returns a
// [Shell]; [Shell.Run] takes a [Request] and returns a [Result];
// [Result.Text] is what the model reads, and encoding/json renders the same
// result structured. A Result whose [Result.Err] is set was refused and did
// not run.
//
//	sh, err := shellcap.New(shellcap.Options{Workspace: "./repo"})
//	if err != nil {
//		return err
//	}
//	defer sh.Close()
//	res, err := sh.Run(ctx, shellcap.Request{Command: "go test ./...", Timeout: 2 * time.Minute})
//	if err != nil {
//		return err // the host's problem: workspace gone, cannot fork, ...
//	}
//	fmt.Print(res.Text())                  // what the model reads
//	json.NewEncoder(os.Stdout).Encode(res) // the same result, structured
//
// Run runs one command through bash -c in its own process group (in a new
// session too whenever this process has a controlling terminal, so that no
// command can reach that terminal), with stdin from /dev/null, a scrubbed environment, resource limits that
// bind only the command, a timeout that stops the whole process group in
// two phases, and bounded capture of stdout and stderr. The zero Options
// runs commands unconfined, with the rights of the user running the program
// (it must work on every platform): set Options.Sandbox to
// sandbox.Confiner for an isolation boundary. The shellcap command and its
// MCP servers do that by default.
//
// # What the model reads
//
// [Result.Text] labels the streams, "[stdout]\n..." then "[stderr]\n...",
// or says "(no output)"; it adds "[exit code: N]" after a non-zero exit,
// "[Command timed out after 0.5s]" after a timeout, then notes such as
// where the complete output was kept. When the text is longer than
// Options.MaxOutputChars its beginning is dropped and it starts with
// "[... output truncated, showing last N chars]", so the trailing lines
// always survive. The format matches pydantic-ai-harness's Shell tool, so
// prompts written for it carry over.
//
// # Refusals
//
// A command that is refused does not run: a NUL byte, an empty command, a
// timeout out of range, a working directory outside the workspace, the
// policy ([Options.Policy]), the approver ([Options.Approve]) or the
// sandbox. Run then returns a Result, not an error: [Result.Err] matches
// the reason with errors.Is ([ErrNULByte], [ErrDenied], [ErrSandbox], ...),
// [Result.Text] is its message for the model, and the JSON has
// "exit_code": null. The agent run goes on and the model reads why. Run's
// error is for the host program alone.
//
// # Environment
//
// Commands see only [HostEnvAllowlist] from the host (plus Options.PassEnv),
// the [NonInteractiveEnv] defaults that stop pagers, editors and prompts from
// waiting for a human, and Options.Env; every name matching
// Options.DeniedEnvPatterns is removed last. [LLMAPIKeyEnvPatterns] lists the
// usual credential names.
//
// # Security
//
// The environment scrub, the limits and the process-group handling keep
// ordinary mistakes contained; they are not an isolation boundary. A
// command runs with the host user's rights and can read what that user can
// read. Run untrusted agents with a sandbox.
//
// # For sandbox and executor authors
//
// [Confiner], [LaunchingConfiner], [Launcher] and [Enforcement] are what a
// sandbox implements and reports (package sandbox provides one). Sessions,
// jobs and the container executor run their commands through the same
// pipeline as Run (input checks, policy, timeouts, environment, start),
// which this module's packages reach through an internal seam.
package shellcap
