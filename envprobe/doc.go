// Package envprobe takes the environment snapshot an agent is told about:
// the shell and its version, the operating system, the working directory
// and the versions of common tools, as Microsoft Agent Framework's
// ShellEnvironmentProvider does. An MCP server puts [Snapshot.Text] in its
// instructions so the model knows, before its first command, whether to
// write bash or sh, which tools exist and where it is:
//
//	snap, err := envprobe.Probe(ctx, sh, envprobe.Options{})
//	if err != nil {
//		return err // ctx ended
//	}
//	instructions += "\n\n" + snap.Text()
//	// Shell: bash 5.2.15
//	// OS: Linux 6.18.0 x86_64
//	// Working directory: /work
//	// Tools: git 2.39.5, go 1.26.8, node v20.20.2, python3 3.11.7; not found: docker
//
// The snapshot is stable metadata: take it once and reuse it, so the
// instructions (and the model's prompt cache) do not change between calls.
//
// # Security
//
// The probes are the host's own fixed commands (`git --version`, `uname
// -srm`, the shell's version variables), not the agent's: they do not go
// through the Shell's policy or approval, so no person is asked about
// them and a policy written for the agent does not hide a tool. They run
// as the agent's commands do otherwise: the Shell's shell, prelude of
// resource limits, scrubbed environment (and its PATH) and workspace,
// inside its sandbox when it has one (internal/core's Cmd and Start). A
// probe that times out, fails or cannot start (too few file descriptors,
// a read-only workspace, a closed Shell) is reported in the snapshot as
// not checked, never fatal.
// Tool names are checked before they are put in a command line; anything
// but a plain program name is never run.
package envprobe
