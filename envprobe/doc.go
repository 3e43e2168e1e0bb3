// Package envprobe takes the environment snapshot an agent is told about:
// the shell and its version, the operating system, the working directory
// and the versions of common tools, as Microsoft Agent Framework's
// ShellEnvironmentProvider does. An MCP server puts [Snapshot.Text] in its
// instructions so the model knows, before its first command, whether to
// write bash or sh, which tools exist and where it is:
//
//	snap, err := envprobe.Probe(ctx, sh, envprobe.Options{})
//	if err != nil {
//		return err // the Shell cannot run commands at all
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
// Every probe is an ordinary command run through [shellcap.Shell.Run]: the
// Shell's policy, approval mode, environment scrub and limits apply, and a
// probe sees the PATH the agent's commands see. A probe the policy refuses
// or that times out is reported in the snapshot, not run some other way.
// Tool names are checked before they are put in a command line; anything
// but a plain program name is never run.
package envprobe
