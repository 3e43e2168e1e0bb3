// Package session gives an agent a long-lived bash: variables, functions,
// aliases, cd and export carry from one command to the next, as in a
// terminal (the persistent mode of Microsoft Agent Framework's shell tool,
// gptme's shell and Anthropic's bash tool).
//
// # Quick start
//
//	sh, err := shellcap.New(shellcap.Options{Workspace: dir})
//	if err != nil { ... }
//	defer sh.Close()
//	s, err := session.New(ctx, sh, session.Options{})
//	if err != nil { ... }
//	defer s.Close()
//
//	s.Run(ctx, session.Request{Command: "cd src && export GOFLAGS=-mod=mod"})
//	res, err := s.Run(ctx, session.Request{Command: "go test ./...", Timeout: 5 * time.Minute})
//	if err != nil { ... }      // host problems: closed session, bash missing
//	fmt.Println(res.Text())    // what the model reads
//
// Every command goes through the Shell's checks (input checks, policy,
// approval) before it reaches bash, and the shell is started the way the
// Shell starts commands: its resource limits, scrubbed environment,
// workspace and a new process session.
//
// # Settings from the Shell
//
// A zero field of [Options] means the Shell's value, never a package
// constant; a session can narrow the Shell's timeouts but not widen them.
// What a session takes from its Shell (fields of shellcap.Options):
//
//	Shell option       session field           zero session field / rule
//	DefaultTimeout     Options.DefaultTimeout  the Shell's; New refuses one above the Shell's MaxTimeout or the session's
//	MaxTimeout         Options.MaxTimeout      the Shell's; New refuses one above the Shell's (a ceiling) or, with
//	                                           DefaultTimeout zero, below the Shell's DefaultTimeout
//	KillGrace          Options.InterruptGrace  the Shell's KillGrace: SIGINT, this long, SIGKILL to what the command started
//	MaxOutputBytes     Options.MaxOutputBytes  the Shell's; a session value replaces it (negative: no cap)
//	MaxOutputChars     Options.MaxOutputChars  the Shell's; a session value replaces it (negative: no cap)
//	HeadAndTail        Options.HeadAndTail     the Shell's; true turns it on for the session
//	StdoutBudget,      -                       always the Shell's: each stream's head and tail in characters
//	  StderrBudget
//	KeepANSI           Options.KeepANSI        the Shell's; true turns it on for the session
//	Env, PassEnv       Options.Env             always the Shell's environment; Env adds variables to it
//	DeniedEnvPatterns  -                       always the Shell's, Options.Env included
//	Policy, Approve    -                       always the Shell's (and ApprovalMode), for every command
//	MaxFileBytes       -                       always the Shell's (and MemoryLimit, CPUTime, MaxProcesses), for the
//	                                           shell process and all it runs
//	Sandbox            -                       always the Shell's: the whole shell runs confined
//	DieWithProcess     -                       always the Shell's: the shell and its files die with this process
//	Workspace          -                       always the Shell's; the shell starts there (StartInRoot: every command)
//	ReadOnly           -                       always the Shell's: a read-only Shell starts no session
//	Shell              -                       used when it is a bash; otherwise bash from PATH
//	PersistCwd         -                       not used: a session keeps its directory unless Options.StartInRoot
//	DisableOutputFiles -                       not used (nor OutputRetention): a session keeps no output files; the
//	                                           byte cap interrupts the command instead
//
// # How it works
//
// The shell is bash run interactively, without prompts, history or line
// editing, so that SIGINT stops whatever it runs (builtin loops included)
// and gives its prompt back with its state intact. Its standard input
// carries only fixed lines written by the Session; a long command's text
// is written to the command file (on Linux a memfd sealed at 4 MiB, never
// a host file a confined command could grow), which bash reads with the
// read builtin and evaluates at its top level with standard input from
// /dev/null. After the
// command, bash writes the exit status, the working directory and, when
// the command may have changed them, the exported variables on a pipe of
// its own that commands do not inherit. So:
//
//   - a lone "}", an unterminated quote or a here-document without its
//     terminator is a syntax error for that command only;
//   - nothing a command prints, sentinel-looking text included, can end
//     the command early or fake its exit code;
//   - commands that read standard input (cat, read) see end of file;
//   - output is complete and never leaks into the next command's result.
//
// # What a command cannot do to its session
//
// Between commands the shell's own stdout and stderr are /dev/null: its
// prompts (readonly PS1, PS0, PROMPT_COMMAND included), job notices, the
// trace of set -x and set -v and the output of a DEBUG trap never reach a
// result. A command runs with its stdout and stderr on the session's pipes
// through redirections bash undoes after it, so exec >/dev/null, exec 1>&-
// or exec 2>&- last for that command (its result says so). After every
// command the session takes back what its protocol needs: functions named
// builtin or enable are removed and builtins disabled with enable -n are
// enabled again (the result says which), reaching unset and enable as
// POSIX special builtins that no function shadows. set -e, set -x, set -v,
// set -T and a DEBUG trap last for one call.
//
// # Vanished directories
//
// When the session's directory in the workspace is deleted (or replaced
// by a file) between calls, the next call is refused with
// shellcap.ErrWorkdirGone naming it, and the call after runs in the
// workspace root. A deleted workspace refuses every call.
//
// # Timeouts, cancellation, output cap
//
// A command that outlives its timeout, whose context ends or that prints
// more than Options.MaxOutputBytes is interrupted with SIGINT to the
// shell's process group: the command's processes stop and the shell keeps
// its variables, functions and directory. Processes the command started
// that ignore SIGINT get SIGTERM after Options.InterruptGrace and SIGKILL
// after another (the result says so); a shell that still does not answer
// (a builtin loop with SIGINT trapped) is replaced.
//
// # Background jobs (Options.SoftTimeout)
//
// With Options.SoftTimeout set, a command still running after it (and
// whose timeout is longer) is not interrupted: its shell is detached as
// background job N, numbered from 1 per session, and the call returns
// what it printed so far with a note. The session goes on in a new shell
// with the directory and exported variables; functions, aliases and
// unexported variables stay with the job's shell. A goroutine keeps the
// end of the job's stdout and stderr (twice the text the model may read,
// at least 4 KiB each). Typed as the whole command while job N exists,
// and never seen by bash or the policy:
//
//	jobs                 list the jobs
//	output N [--new]     the job's output kept (--new: since the last look)
//	wait N [DURATION]    wait for it (a Go duration or seconds, at most
//	                     MaxTimeout; default the Request's timeout)
//	kill N               SIGINT, SIGTERM, SIGKILL to its shell's group,
//	                     InterruptGrace apart
//
// The command's timeout stays its hard limit: past it the job is stopped
// as kill N stops it, with exit code 124 as a foreground timeout. The
// exit code is otherwise the status the job's shell reports for the
// command (or the shell's own when the command ended it). The first
// result after a job ends says so. A job that ends takes with it the processes it left
// in its group; Close kills every job.
//
// # Restarts
//
// When the shell itself ends (exit, exec, kill -9 $$, a failure under
// set -e), a new one is started in the last known directory and the result
// says so (Result.Restarted and a note). "exit 3" reports exit code 3.
// A shell that exits (exit, a failure under set -e) leaves its variables,
// functions and aliases, which the new shell takes over; its options,
// traps and background jobs are gone. A shell replaced by exec or killed
// by a signal leaves nothing: the new one has the directory and exported
// variables of the last call only, and the note says so. Restart starts a
// fresh shell on request, as Anthropic's bash tool does for restart: true.
//
// As at a terminal, bash announces a background job with "[1] PID" on
// stderr.
//
// # Security
//
// A session is a convenience, not a sandbox: the shell runs with the
// host user's rights, limited by the Shell's options and policy (and its
// sandbox, when it has one). With Options.StartInRoot each command starts
// in the workspace root, and a root that cannot be entered stops the
// command; commands can still cd elsewhere. Background processes a command starts belong to the session
// and are killed with it (Close, Restart, a replaced shell).
package session
