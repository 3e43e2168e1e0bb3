// Package container runs an agent's commands in podman or docker
// containers with hardened defaults, and reports each outcome as a
// [shellcap.Result] that reads like the core's.
//
// The zero [Options] follow Microsoft Agent Framework's docker shell tool:
// `--network none`, `--user 65534:65534`, `--read-only`, `--cap-drop ALL`,
// `--security-opt no-new-privileges`, a 64 MiB tmpfs on /tmp, `--memory
// 512m`, `--pids-limit 256`, plus `--ulimit nofile=1024:1024` and
// `--ulimit nproc=256:256`. The Shell's workspace (or Options.Workspace)
// is mounted read-only at /workspace unless Options.WritableWorkspace is
// set.
//
// Two modes:
//
//   - [Stateless] (the default): each command is one `run --rm` under a
//     unique name; nothing survives it.
//   - [Persistent]: one long-lived container, started on the first Run;
//     each command is an `exec` in it, so files in /tmp persist until
//     [Executor.Close] removes the container.
//
// Quick start: the container runs the commands a [shellcap.Shell] admits
// (its policy and approval), with the Shell's settings.
//
//	sh, err := shellcap.New(shellcap.Options{Workspace: "/path/to/repo"})
//	if err != nil {
//		return err
//	}
//	defer sh.Close()
//	e, err := container.New(sh, container.Options{
//		Image: "docker.io/library/busybox",
//		Mode:  container.Persistent,
//	})
//	if err != nil {
//		return err
//	}
//	defer e.Close()
//	res, err := e.Run(ctx, shellcap.Request{Command: "ls -la", Timeout: 30 * time.Second})
//	if err != nil {
//		return err // the host's problem: engine missing, executor closed
//	}
//	fmt.Println(res.Text()) // what the model reads
//
// [Executor.Run] has the signature of [shellcap.Shell.Run], so a front end
// can hold either behind one interface.
//
// Podman can also run an unpacked root filesystem (Options.RootFS) instead
// of an image; engine-wide settings such as the OCI runtime go in
// Options.EngineArgs.
//
// # What a container command takes from the Shell
//
// A zero field of [Options] means the Shell's value. In full:
//
//	Shell option               in a container command
//	Workspace                  mounted at /workspace when Options.Workspace is empty
//	                           (Options.NoWorkspace mounts nothing)
//	ReadOnly                   the Shell's workspace is never mounted read-write
//	                           (Options.WritableWorkspace is refused)
//	Policy, Approve,           every command, before anything starts (input checks,
//	  ApprovalMode               empty command, policy, approval): a refusal is a
//	                             Result with Err set and no container
//	DefaultTimeout, MaxTimeout when Options' are zero; checked by the Shell, so the
//	                             model reads the same message
//	MaxOutputBytes,            when Options' are zero
//	  MaxOutputChars,
//	  HeadAndTail, KeepANSI
//	StdoutBudget, StderrBudget each stream cut to its budget, as Shell.Run
//	Env                        yes, with the non-interactive defaults (PAGER=cat, ...);
//	                             Options.Env, then Request.Env, go on top
//	DeniedEnvPatterns          applied to every variable, Options.Env and Request.Env too
//	PassEnv, host variables    no: PATH, HOME and the rest describe the host, not the image
//	MaxFileBytes, CPUTime      --ulimit fsize and cpu (bytes; seconds, rounded up)
//	MemoryLimit                `ulimit -v` before the command (engines have no --ulimit for it)
//	MaxProcesses               Options.NProc when it is zero
//	PersistCwd                 refused by New: every command starts in the workspace
//	                             (or Request.Dir)
//	KillGrace                  between SIGTERM and SIGKILL when a command is stopped
//	                             (a shell that is the container's PID 1 gets SIGTERM
//	                             only if it traps it)
//	DieWithProcess             no: containers belong to the engine; a host killed with
//	                             SIGKILL leaves them to be removed by their label
//	Sandbox                    no: the container is the boundary; the engine client runs
//	                             on the host unconfined
//	ShellPath                  no: Options.ShellPath names the shell inside the image
//	DisableOutputFiles,        no: a container command keeps no output files
//	  OutputRetention
//	Logger                     failed engine calls (kill, rm, start), at debug level
//
// The Shell's environment reaches the container without its host
// variables (PATH, HOME, PassEnv describe the host, not the image): the
// non-interactive defaults and the Shell's Options.Env, then container
// Options.Env, then Request.Env, minus the Shell's DeniedEnvPatterns, for
// a read-only Shell too.
//
// # Timeouts and cleanup
//
// A command's timeout counts from the start of the engine client, so it
// includes creating the container. When it expires, or the context ends,
// or the output passes the output cap, the command is stopped inside the
// container, not just its client, in two phases: SIGTERM, then SIGKILL
// once the Shell's KillGrace is over. In stateless mode every process in
// the container is signalled, then the container is killed and removed;
// in persistent mode every process carrying the command's SHELLCAP_RUN
// marker variable, and its process group, is signalled while the
// container and other commands carry on. The kill is repeated until the
// client exits, so a timeout that fires while the container is still
// being created (when there is nothing to send SIGTERM to) kills it too. Every container carries the label
// io.shellcap.executor=<id> of its executor.
//
// # Security
//
// The container is the boundary: the defaults above give no network, no
// capabilities, no privilege gain, an unprivileged user and a read-only
// image, with memory, process and file-descriptor limits. What a model can
// change is only the command text; what the host programmer can loosen is
// explicit in [Options] (WritableWorkspace, Memory, Pids, TmpfsSize, ...).
//
// Options.ExtraArgs cannot loosen it: [CheckExtraArgs] accepts only a short
// allowlist of resource and label flags and refuses everything else, naming
// the flag, in every spelling (`--network=host`, `-v/a:/b`, `-v=/a:/b`,
// `-itv /a:/b`, ...). Options.EngineArgs are trusted host configuration.
//
// The Shell's state directory in the workspace (.shellcap: job logs, job
// stdin FIFOs, kept output) is covered by an empty read-only tmpfs in
// every container; with WritableWorkspace, New makes it on the host first,
// so no command can plant a link in its place.
//
// Variables (the Shell's, Options.Env, Request.Env) reach the container
// through an env file created 0600 in a private 0700 directory and removed
// after the command, never through argv, so they do not appear in `ps`. In
// stateless mode the engine still records them in the container's
// configuration (`inspect`) while it exists; in persistent mode they are
// given per exec.
//
// Known limits: a process that both leaves its process group (setsid) and
// clears its environment escapes the persistent-mode kill and runs until
// Close; the workspace mount is owned by the host user, so the container
// user (65534) can only read, or write, what the host permissions allow;
// the container shares the host kernel, so a kernel exploit escapes it
// (use a VM-backed runtime such as gVisor or Kata through EngineArgs for a
// stronger boundary). The Shell's command policy and approval decide every
// command before any container starts.
package container
