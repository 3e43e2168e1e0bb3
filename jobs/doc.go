// Package jobs runs background jobs for an agent: commands that keep
// running after the tool call that started them, and after the process
// that started them. An agent starts a dev server, a watcher or a long
// test run, gets an unguessable ID, and later checks its output, waits
// for it, writes to its stdin or stops it.
//
// Each job runs under a small supervisor: the host binary itself,
// re-executed (this package's init recognises the supervisor's argument,
// so any binary that links the package can be a supervisor, test binaries
// included). The supervisor runs in its own session, starts the command
// exactly as the Shell prepares its commands (its own session and process
// group, the Shell's environment and limits; confined as described under
// Sandbox), copies its output into bounded logs and records its state in a
// status file. Everything lives
// under <workspace>/.shellcap/jobs/<id>/ (directories 0700; the state
// directory's .gitignore holds "*"), so a host that restarts finds its
// jobs again with a new [Manager]. With [Options.StopOnClose],
// [Manager.Close] instead stops the jobs that Manager started, within
// about KillGrace.
//
// # Quick start
//
//	sh, err := shellcap.New(shellcap.Options{Workspace: dir})
//	...
//	m, err := jobs.New(sh, jobs.Options{})
//	...
//	defer m.Close() // jobs keep running
//	started, err := m.Start(ctx, jobs.StartRequest{Command: "npm run dev"})
//	fmt.Println(started.Text()) // Started background command: 'npm run dev'\nID: 3f…
//	check, err := m.Check(ctx, jobs.CheckRequest{ID: started.ID, NewOnly: true}) // only output since the last look
//	fmt.Println(check.Text()) // [stdout]\n…\n[status: running]
//	stopped, err := m.Stop(ctx, jobs.StopRequest{ID: started.ID})
//	fmt.Println(stopped.Text()) // …\n[stopped]\n[exit code: 143]
//
// Every result has a Text method with exactly what the model should read
// (compatible with pydantic-ai-harness's start_command, check_command and
// stop_command) and marshals to JSON. Mistakes the model can fix (an
// unknown ID, input to a job without a stdin pipe, too many jobs, a command
// the Shell refuses) come back as results, not errors: the result's Err is
// set (errors.Is with this package's ErrUnknownID, ErrTooManyJobs,
// ErrNoStdin, ... or shellcap's ErrDenied, ErrNeedsApproval, ErrNULByte,
// ErrTimeoutRange, ...), its Text is the message for the model, its JSON
// has the message as "error" and no exit code. The error return is for
// the host (a closed Manager or Shell, a supervisor that cannot start).
//
// # Idempotent starts
//
// A caller that may repeat a start (a retried durable activity, a
// replayed tool call) chooses the job's ID, StartRequest.ID or
// ShellRequest.ID, typically [DeriveID] of what names the call durably
// (a workflow run ID and an activity ID). A start of an ID that already
// names a job of the same command starts nothing and re-attaches: the
// result has Reattached set and reports that job, running or finished
// (with its exit code), also one started by a process that has since
// died, or stopped and removed (its recorded final result). Starts of one
// ID serialise on a lock file in the key directory, so concurrent starts,
// from goroutines or from Managers in other processes, launch one
// process; a launch that never reported (its host killed mid-launch) is
// waited for up to the launch timeout before it is cleared and started
// afresh.
//
// # Settings from the Shell
//
// A job runs through the Shell's own pipeline (internal/core): the same
// input checks, policy and approval, the same timeout validation and
// message, the same environment, working directory, resource limits and
// Confiner as the Shell's commands. A zero field of [Options] means the
// Shell's value:
//
//	Shell setting     job (Start/Check/Wait/Stop)   shell tool (Manager.ShellTool)          promotion (Manager.Run)
//	KillGrace         Options.KillGrace, 0: Shell's the same                            the same
//	MaxOutputChars    Options.MaxOutputChars, 0: Shell's (every Text)                   Result.TextLimit
//	KeepANSI          Options.KeepANSI or Shell's   the same                            the same
//	HeadAndTail       no (Text keeps the end)       no (the log's end)                  Result.HeadAndTail: head and end of each log
//	StdoutBudget,     no (Text keeps the end)       no (the log's end)                  each stream cut to its budget, as Shell.Run
//	  StderrBudget
//	DefaultTimeout    no timeout                    Timeout 0: Shell's, at most 270 s   Request.Timeout 0: no limit
//	MaxTimeout        -                             bounds Timeout (and 270 s)          bounds Request.Timeout
//	MaxFileBytes      yes, and it bounds each log too (the smaller of it and Options.MaxLogBytes)
//	Env, limits, Dir  yes (the Shell prepares the command)
//	Policy, Approve   yes (the Shell admits the command)
//	Sandbox           Options.Confiner, nil: the Shell's Options.Sandbox
//
// A Stop gives the job the stopping Manager's KillGrace (`shellcap stop
// --kill-grace` applies to a job `shellcap start` started); a job's own
// timeout, the starting Manager's.
//
// Wait's timeout is not bounded by MaxTimeout: waiting runs nothing (zero
// means DefaultWait, at most MaxWait). A background job has no time limit
// unless Run's Request.Timeout gives it one. PersistCwd does not apply.
//
// [Manager.ShellTool] is pydantic-ai-harness's persistent `shell` tool: a job
// with one combined log, waited on in the foreground for up to 270 s, with
// the handles (PID, the kill command for the whole tree, log and status
// paths) last in the result, where no output cap cuts them. While it
// waits it sends the output as events, from the first byte, up to 16,000
// bytes per call, in chunks cut on UTF-8 boundaries. [Manager.Run] is gptme's promotion: a command that
// outlives its foreground timeout becomes a background job; it takes the
// request's Stdin and passes output to OnOutput while it waits.
//
// # Sandbox
//
// Jobs run confined by [Options.Confiner] or, when it is nil, by the
// Shell's Options.Sandbox, so they never run less confined than the
// Shell's commands; any shellcap.Confiner works. The Manager prepares the
// job's command as the Shell does and has the Confiner rewrite it on the
// host (argv, environment, directory, process attributes, inherited
// descriptors such as a sandbox's policy pipe); the supervisor receives
// the result as data and starts exactly that, staying outside the
// confinement to write the logs and the status file. The status file,
// Check, Wait, Stop, List and Start results carry the Confiner's
// shellcap.Enforcement; Start's text adds "[sandbox: PROFILE, network
// NETWORK]". This package does not import package sandbox.
//
// With package sandbox's Confiner, the job's shell is PID 1 of its own pid
// namespace under a small POSIX init script that forwards SIGTERM, SIGINT
// and SIGHUP (the kernel drops signals PID 1 does not catch), so Stop and
// timeouts end it with 143 as without the sandbox (the supervisor waits
// until the namespace's first process has started the shell before it
// signals), and when it exits the kernel kills whatever it left in the
// namespace. A Confiner that implements [JobConfiner] (package sandbox's)
// also gets a companion process that the supervisor starts before the job
// and ends after it, outside the confinement: package sandbox's
// quarantines, when the job ends, what git or an agent on the host would
// obey that the job created or changed (workspace-write), and serves a
// network allowlist's proxy. Both therefore outlive the host that started
// the job; Enforcement.Quarantined and QuarantineError report the check.
// The check runs beside the job rather than through the Shell's AfterStep
// because a job outlives the host (`shellcap start` exits at once).
//
// # Security
//
// Commands pass the Shell's input checks, policy and approval before
// anything starts. IDs are
// 128 random bits (or the caller's own, StartRequest.ID, of the same
// shape); a malformed ID is rejected before it reaches a path.
// The command's environment reaches the supervisor through an inherited
// pipe, never argv. Stop never signals a process it cannot identify: the
// supervisor is signalled through a pidfd opened and then checked against
// its recorded start time, and it stops the command while the command's
// leader is still unreaped, so the process group ID cannot have been
// reused; if the supervisor is gone, the command's group is signalled only
// while its pinned leader is the recorded process. A job whose processes
// are all gone is reported finished with an unknown exit code and nothing
// is signalled.
//
// The state directory is inside the workspace, where a command may have
// planted files (an older sandbox that started before .shellcap existed, a
// degraded one without private mounts, an unconfined command). So a job
// record the store did not write is not a job: every status file carries
// an HMAC-SHA256, bound to its job directory, under a 32-byte key the
// Manager keeps outside the workspace ([Options.KeyDir]; by default
// ~/.local/state/shellcap/job-records.key, 0600, which the sandbox hides
// with the home directories unless ReadEverything); a status without a valid MAC is neither
// listed, adopted, read nor signalled. Every file in the state directory
// is reached without following a symlink (internal/safefs: openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or O_NOFOLLOW per component), and
// must be a regular file (or the stdin FIFO, or a directory) of the
// current user with one link, so a log replaced by a link to a secret is
// never printed and a planted hard link is never truncated. New, with a
// sandbox, creates .shellcap before any sandbox starts, so the sandbox
// hides it; the job's stdin reaches the job through a pipe, not the FIFO
// in its state directory. Unconfined commands run as the user and can read
// the key: they can forge records, which grants nothing they cannot do
// directly. A Shell's Options.Sandbox confines its jobs too, unless
// Options.Confiner replaces it.
//
// # Faults
//
// A job gets the notes Shell.Run gives a foreground command on what the
// Shell's resource limits did (its status records the limits and the CPU
// time used): SIGXFSZ named as the cause when it killed the job or a child
// of it, the CPU time limit only when it ended the job, a failure under
// MaxFileBytes or MemoryLimit, and on every result a MaxProcesses the
// kernel does not enforce (root). A full disk does not lose how a job ended: every status file
// reserves room (trailing spaces) and is rewritten in place when a
// replacement cannot be written; the bytes its logs could not take are
// counted, and Check, Wait and Stop say how many and why. A workspace
// deleted while jobs run leaves them stoppable: the Manager keeps each
// job's last status in memory, and a supervisor that cannot record the
// end in the job directory records it, signed as ever, in the key
// directory, where the Manager that knew the job finds it. Starts in a
// workspace that vanished or became a file fail with
// shellcap.ErrWorkspaceGone, as Shell.Run does; nothing re-creates it.
// Concurrent Stops of a job all return its final result, from one
// Manager or from several on the workspace and key directory (separate
// processes): they serialise on a lock file in the key directory, and the
// first records the job's final result there (signed) before it removes
// the job's files, for the later ones until Retention. A finished job's
// [Event] carries the end of its output.
//
// When a job's command exits, the supervisor stops whatever the command
// left running in its process group, so a finished job leaves no process
// behind. Processes that left the group (setsid) are not tracked.
//
// Jobs run on Linux, darwin and the BSDs. On Linux a pidfd holds a job's
// processes while they are signalled and /proc tells their start times;
// elsewhere the start time is checked again right before each signal and
// comes from the platform's process table, and a log over its cap starts
// again instead of having its head punched out. Outside Unix [New] returns
// [shellcap.ErrUnsupported].
package jobs
