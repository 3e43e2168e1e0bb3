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
// exactly as [shellcap.Shell.Cmd] prepares it (its own session and process
// group, the Shell's environment and limits), copies its output into
// bounded logs and records its state in a status file. Everything lives
// under <workspace>/.shellcap/jobs/<id>/ (directories 0700; the state
// directory's .gitignore holds "*"), so a host that restarts finds its
// jobs again with a new [Manager].
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
//	fmt.Println(check.Text())                    // [stdout]\n…\n[status: running]
//	stopped, err := m.Stop(ctx, jobs.StopRequest{ID: started.ID})
//	fmt.Println(stopped.Text()) // …\n[stopped]\n[exit code: 143]
//
// Every result has a Text method with exactly what the model should read
// (compatible with pydantic-ai-harness's start_command, check_command and
// stop_command) and marshals to JSON. Mistakes the model can fix (an
// unknown ID, input to a job without a stdin pipe, too many jobs) come
// back as results, not errors.
//
// [Manager.Shell] is pydantic-ai-harness's persistent `shell` tool: a job
// with one combined log, waited on in the foreground for up to 270 s, with
// the handles (PID, the kill command for the whole tree, log and status
// paths) in the result. [Manager.Run] is gptme's promotion: a command that
// outlives its foreground timeout becomes a background job; it takes the
// request's Stdin and passes output to OnOutput while it waits.
//
// # Sandbox
//
// With [Options.Sandbox] set, every job's whole shell runs inside the Linux
// sandbox of package sandbox, with the workspace as its workspace: the
// supervisor wraps the command with sandbox.Wrap before it starts it, and
// stays outside, writing the logs and the status file. The job's shell is
// PID 1 of its own pid namespace under a small POSIX init script that
// forwards SIGTERM, SIGINT and SIGHUP (the kernel drops signals PID 1 does
// not catch), so Stop and timeouts end it with 143 as without the sandbox,
// and when it exits the kernel kills whatever it left in the namespace.
// The status file, Check, Wait, Stop and Start results carry the sandbox's
// report; Start's text adds "[sandbox: PROFILE, network NETWORK]".
//
// # Security
//
// Commands pass [shellcap.Shell.Authorize] before anything starts. IDs are
// 128 random bits; a malformed ID is rejected before it reaches a path.
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
// directly. A Shell's own Options.Sandbox does not confine jobs: set
// Options.Sandbox of the Manager too (the shellcap command does both with
// --sandbox).
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
