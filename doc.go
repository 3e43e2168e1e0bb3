// Package shellcap runs shell commands for AI agents and returns exactly
// what a model should read. The zero [Options] runs commands unconfined,
// with the rights of the user running the program (it must work on every
// platform): set Options.Sandbox to sandbox.Confiner for an isolation
// boundary. The shellcap command and its MCP servers do that by default.
//
// A [Shell] owns a workspace directory. [Shell.Run] runs one command through
// bash -c in a new session and process group, with stdin from /dev/null, a
// scrubbed environment, resource limits that bind only the command, a
// timeout that stops the whole process group in two phases, and bounded
// capture of stdout and stderr:
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
// Problems the model can fix, such as a NUL byte in the command or a
// working directory it deleted, are results with [Result.Err] set, not
// errors: the agent run goes on and the model reads why.
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
package shellcap
