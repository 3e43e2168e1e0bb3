// Package policy decides whether a shell command may run, before anything
// runs. It is pure analysis: it never starts a process, reads no files and
// keeps no state between checks.
//
// Checks used by other agent tools look at the first word of the command or
// run a regular expression over its text, and are easy to get around:
// "ok; rm -rf x", "FOO=1 rm x", "/bin/rm x", "$(echo rm) x", "env rm x",
// "bash -c 'rm x'", or an unbalanced quote that makes the check give up.
// This package parses the command with a real bash parser
// (mvdan.cc/sh/v3/syntax), finds every command the shell could run, and
// judges each one. A command it cannot parse is denied.
//
// # Quick start
//
//	p, err := policy.New(policy.Rules{}) // the zero Rules are the safe default
//	if err != nil {
//		return err
//	}
//	d := p.Check("cd build && rm -rf out")
//	// d.Verdict == policy.Deny, d.Rule == "denied-command",
//	// d.Reason == "Command 'rm' is denied.", d.Word == "rm", d.Pos is 1:13
//
// A Decision is Allow, Ask (run only if a person or an approval hook agrees)
// or Deny. Its Reason is written for the model: what was refused and, where
// there is one, what to do instead. Policy files are read with ParseRules.
//
// # What is analysed
//
// Every command the shell could run is found and judged:
//
//   - each command of a list, a pipeline, && and ||, on one line or several;
//   - the bodies of subshells, groups, functions (a function named like a
//     denied command is denied too), loops, if and case;
//   - command and process substitutions wherever they appear: arguments,
//     assignments, redirection targets, here-documents whose delimiter is
//     unquoted, parameter expansions, arithmetic, [[ ]] tests and case
//     patterns;
//   - commands behind wrappers: env (with its NAME=value words and -S),
//     sudo and doas, nice, nohup, time, timeout, stdbuf, ionice, chrt,
//     taskset, setsid, command (but not "command -v", a lookup), builtin,
//     exec, xargs, find -exec/-execdir/-ok/-okdir, busybox and toybox
//     applets, chroot, unshare, nsenter, strace, flock, unbuffer, watch -x,
//     systemd-run, and runners such as uv run, poetry run, bundle exec, npx,
//     "op run --" and git bisect run;
//   - shell code in strings: eval (its arguments are joined and parsed),
//     sh/bash/zsh/dash/ksh/fish -c, alias values, trap actions, watch and
//     parallel commands, su/runuser/script/flock -c, nix-shell --run, env -S,
//     ssh remote commands (they run in a shell, possibly on this machine),
//     ssh -o ProxyCommand, rsync -e, tar --to-command and
//     --checkpoint-action=exec, vim -c '!cmd', and the commands in variables
//     that programs run later (GIT_SSH_COMMAND, GIT_PAGER, PAGER, EDITOR,
//     PROMPT_COMMAND, command substitutions in PS4, ...);
//   - a shell program read from a here-document, a here-string, or a literal
//     echo or printf piped into sh, bash or at; also through a descriptor
//     ("bash /dev/fd/3 3<<EOF", "bash 3<<EOF <&3", "exec 4<<EOF; bash <&4",
//     "source -- /dev/stdin", "sh /proc/self/fd/0 <<<...",
//     "bash <<EOF < /dev/stdin"): program paths
//     are normalised (/dev//stdin, /dev/./stdin, /proc/$$/fd/0), the
//     descriptors set by redirections and by exec are followed, and code
//     given to bash -c or eval inherits them; a descriptor the command does
//     not set asks;
//   - text bash expands although it is written in single quotes: the word of
//     a double-quoted ${x:-'...'} (and -, +, :+, =, :=, ?, :?), the same in a
//     here-document, and arithmetic: (( )), $(( )), $[ ], for (( )), array
//     subscripts, ${x:offset:length}; and strings bash evaluates as
//     arithmetic, whose subscripts run substitutions: [[ x -eq y ]],
//     [[ -v ]], test -v, let, printf -v, read, declare (also -i and -n
//     values), unset, wait -p, getopts, mapfile, and assigned values such
//     as x='a[$(cmd)]';
//   - strings that bash features turn into code: BASH_CMDS[name]=path (the
//     program the name then runs), BASH_ALIASES[name]=... and
//     env 'BASH_FUNC_name%%=() {...}' (the code they define), compgen and
//     complete -C, -W and -F, mapfile and readarray -C, bind -x. BASH_ENV
//     (a file bash runs first; ENV for an interactive sh), ${x@P}, set -k,
//     enable -f, a value
//     read from input into such a variable, and an alias defined where
//     alias expansion is on (shopt -s expand_aliases, POSIX mode, sh -c)
//     are asked about;
//   - commands git would run: git -c and git config with keys such as
//     core.pager, core.sshCommand, core.editor, alias.x=!cmd and
//     credential.helper, --upload-pack, --receive-pack, rebase --exec,
//     submodule foreach and difftool --extcmd.
//
// Programs are compared by base name ("/bin/rm" is rm), case-insensitively,
// after quotes and escapes are removed ("rm", r""m, \rm and $'\x72m' are
// rm). A deny-list name also matches its dotted variants (mkfs denies
// mkfs.ext4) but not script files (init does not deny init.sh).
//
// A command word that is not a plain literal ($CMD, ${X:-rm},
// "$(which rm)", r*, {rm,x}) is dynamic: the policy cannot name the program.
// So is shell code only known at run time: eval "$X", bash -c "$X",
// "curl ... | sh", source <(...). Dynamic code is denied when only listed
// commands may run (AllowedCommands or AllowPatterns), and gets Ask
// otherwise.
//
// # Rules and verdicts
//
// Each command is judged in this order; the first rule that denies decides
// for that command:
//
//  1. a dynamic command word, when only listed commands may run;
//  2. AllowedCommands, or else DeniedCommands (DefaultDeniedCommands when
//     nil; "find -delete" counts as rm);
//  3. interactive commands, unless AllowInteractive;
//  4. DenyPatterns, then AllowPatterns;
//  5. the approval tiers, when Approval is set; a dynamic command word asks;
//  6. Custom, which may replace an ask or an allow but not a denial.
//
// The overall verdict is Deny if any command, operator or rule denies (the
// first denial in the command's text is reported), else Ask if anything
// asks, else Allow. Decision.Rule is one of these identifiers:
//
//	invalid-input         the command holds a NUL byte or is not UTF-8 (Deny)
//	too-long              the command is over 1 MiB (Deny)
//	too-deep              nesting beyond 100 levels, or too much nested shell code (Deny)
//	parse-error           the command is not valid bash, or holds a construct the parser reads differently from bash (see Security); Reason has the message and position (Deny)
//	denied-command        a program on the deny list (Deny)
//	allowed-commands      a program not on the allow list (Deny); also the rule of an allowed command under an allow list
//	operator              a denied shell operator (Deny)
//	interactive           a program that waits for a terminal (Deny)
//	dynamic-command       a program or shell code only known at run time (Ask, or Deny under an allow list)
//	git-config            git told to run code from hooks, included config or the ext:: transport (Ask, or Deny under an allow list)
//	possible-wrapper      an unknown program given a denied program and its arguments, which it may run (Ask)
//	environment           a setting (PATH, LD_PRELOAD, BASH_ENV, BASH_CMDS, ...) that changes what an allowed program is or loads, under an allow list (Deny)
//	deny-pattern          a command matching a DenyPatterns entry (Deny)
//	allow-pattern         a command matching no AllowPatterns entry (Deny); also the rule of an allowed command under AllowPatterns
//	custom                a decision made by Rules.Custom, unless it set its own Rule
//	approval-read-only    allowed by the approval tiers: every command only reads
//	approval-destructive  denied by the approval tiers, with a safer alternative in Reason
//	approval-default      not known to be read-only: needs approval (Ask)
//	default               allowed, no rule objected
//
// The messages of denied-command, allowed-commands, operator and
// interactive match pydantic-ai-harness's, byte for byte, with Python's
// repr() quoting: "Command 'rm' is denied.", "Command 'cat' is not in the
// allowed list.", "Shell operator '>' is not allowed." and "Interactive
// commands are not allowed. Command: 'vim file.txt'" (the whole command
// text that was checked).
//
// # Operators
//
// DeniedOperators are matched on the syntax tree, never on the text: in
// echo "a > b" the > is text. The accepted entries and what they deny:
//
//	">"       every redirection that writes a file: > >> >| &> &>> <> and >&FILE (not 2>&1)
//	">>"      >> and &>>
//	">|"      >|
//	"&>"      &> and &>>
//	"&>>"     &>>
//	"<>"      <>
//	">&"      >& (including 2>&1)
//	"<&"      <&
//	"<"       < and <>
//	"<<"      here-documents, << and <<-
//	"<<-"     <<-
//	"<<<"     here-strings
//	"|"       pipes, | and |&
//	"|&"      |&
//	"&&"      &&
//	"||"      ||
//	";"       ; and a newline between two commands
//	"&"       running in the background
//	"$(...)"  command substitution, $(...) and backquotes (also written "$()")
//	"`"       backquotes (also written "``")
//	"<(...)"  process substitution <(...) (also written "<()")
//	">(...)"  process substitution >(...) (also written ">()")
//
// Operators inside shell code in strings (bash -c 'ls > f') count too.
//
// # Patterns
//
// DenyPatterns and AllowPatterns are Go regular expressions (RE2 syntax),
// matched against Command.Text of each command found: the program's base
// name and its arguments with quotes removed, separated by single spaces.
// "sudo -n /bin/rm -rf 'a b'" is matched as "sudo -n /bin/rm -rf a b" and as
// "rm -rf a b"; patterns never see operators, redirections or
// assignments. Matching is case-sensitive; write (?i) for the other way.
// Go's RE2 engine runs in time linear in the input, so no pattern can make a
// check hang, and no match timeout is needed.
//
// # Interactive commands
//
// Unless AllowInteractive is set, commands that wait for a person at a
// terminal are denied wherever they appear ("true && vim" too): editors
// (vi, vim, nvim, nano, emacs, ...), pagers (less, more), monitors (top,
// htop, watch, ...), man, passwd, su, ssh without a remote command, telnet,
// ftp, sudo without -n or -S, and interpreters with no program: python,
// node, bash, sh, irb, psql, mysql, sqlite3, ... without a script or -c/-e.
// git commit without -m, -F or --no-edit (unless an editor is set in the
// environment), git rebase -i, git add -p and git tag -a without -m count
// too. Non-interactive forms pass: top -b, ssh-keygen, view, vim -es,
// emacs --batch, man -k, python3 script.py, psql -c ..., and any
// interpreter whose standard input is a pipe or a file
// ("echo 'print(1)' | python3").
//
// # Approval tiers
//
// Rules.Approval enables three tiers in the spirit of gptme's shell
// confirmation. A command that only reads, with none of its
// state-changing flags, is allowed: ls, cat, head, tail, wc, grep, rg, find
// (without -exec, -delete, -fprint, ...), sort (without -o), git status,
// log, diff, show, branch and tag listings, pwd, echo, which, file, stat,
// du, df, tree, uniq, cut, diff, jq and others; transparent wrappers such
// as timeout and nice pass through to the command they run. A known
// destructive command is denied, with a safer alternative in Reason: bulk
// git add (. -A --all) and git commit -a, git reset --hard, git clean -f,
// git push --force/-f/+ref/--mirror (--force-with-lease only asks),
// git checkout/restore ., git stash clear, rm -r of /, ~, ., .., *, a
// top-level directory or "$VAR/", chmod granting write to others (777,
// a+w), pkill, killall, kill -1, shutdown and friends, mkfs, dd to a disk,
// and piping into an interpreter (curl ... | sh). Everything else gets Ask:
// writing a file through a redirection, reading files that hold secrets
// (.env, ~/.ssh, ...), setting PATH or LD_PRELOAD, an argument only known at
// run time where it could be an option. The deny list still applies: use
// DeniedCommands: []string{} to leave rm and friends to the tiers.
//
// # Limits
//
// Static analysis sees the command's text and nothing else. What is not in
// that text the policy cannot know, and it does not pretend to:
//
//   - what a script file or an interpreter's program does: "bash
//     deploy.sh", "make", "npm run build", "python3 -c '...'", a git hook,
//     code run by awk, perl or sed, the file BASH_ENV names (which asks).
//     The program's text is in a file or another language, not in the
//     command, so a script that deletes files is allowed like any other;
//   - what a name refers to on the file system at run time: a program
//     copied or linked under another name ("cp /bin/rm x; ./x"), a file
//     linked to /dev/stdin. Only the file system at run time decides;
//   - values computed at run time that bash evaluates as arithmetic or as
//     variable names: "$((x))" where x came from a file or a command's
//     output, printf -v "$name". Literal values in the command are checked
//     (x='a[$(cmd)]' is), but a value read at run time is data the policy
//     never sees;
//   - what the command inherits: aliases, functions and variables defined
//     before it started, a PATH pointing at other programs. They are not in
//     its text (shellcap scrubs the environment it starts commands with);
//   - commands run in a container or on another machine by docker exec,
//     kubectl exec or ssh: they run elsewhere, under that system's rules.
//
// For these the sandbox, not the policy, is the boundary: run commands
// under shellcap's sandbox package (Landlock, seccomp, namespaces, a
// network allow list) when they must not be able to harm the machine, and
// treat the policy as the check that catches mistakes and makes a model's
// intent visible.
//
// # Security
//
// The policy fails closed. A command that does not parse is denied with the
// parser's message and position, so an unbalanced quote cannot switch the
// check off. NUL bytes and invalid UTF-8 are denied. Commands over 1 MiB
// are denied. Bracket nesting is measured in one linear pass before the
// parser runs (the parser recurses once per level, and exhausting Go's
// stack is a fatal error, not a panic), and nesting beyond 100 levels, or
// more nested shell code (eval, bash -c) than four times the size of the
// command plus 64 KiB, is denied. Check takes time roughly linear in the command's
// size; it is fuzzed for panics and for allowing what does not parse.
// Where the parser and bash could read a command differently, it is denied
// with the construct and its position: a carriage return, a comment ending
// in a backslash, a here-document delimiter they decode differently
// (<<$'E\x4fF'), "<&-word", and single quotes that bash reads as text
// inside a double-quoted ${...} around text that could end it. Real bash is the oracle: the tests
// run every corpus case, and FuzzOracle runs generated commands, in bash
// inside an isolated root whose every program is a recorder, and check
// that each command bash reached is one the policy judged.
// Deny beats allow everywhere: a Custom function can replace an ask or an
// allow, never a denial. A Policy is immutable and safe for concurrent use.
//
// # Wrappers, run-time code and what the lists mean
//
// Programs that run other programs are read the way they read their own
// command lines (getopt_long: a long option may be any unambiguous prefix,
// "--to-comm=" is "--to-command="; short options cluster and take attached
// values, "tar -cI'prog'"; options may follow operands where the program
// permutes them, "runuser USER -c CMD"). Beyond those listed above, the
// wrappers include pkexec, run0, fakeroot, eatmydata, numactl, prlimit,
// setpriv, capsh --, sg, ssh-agent, dbus-run-session, xvfb-run, firejail,
// bwrap, gosu, tini, ifne, chronic, cross-env, pyenv/rbenv/nvm exec, nix
// shell -c, pixi run, sops exec-env, dotenvx run, perf, valgrind, ip netns
// exec, arch and the g-prefixed GNU tools of macOS (gtimeout, gxargs, gfind,
// genv, grm), fd -x, tmux and screen (their commands, and the keys
// send-keys and stuff type into a shell), rg --pre, man -P, less +!, and the
// shell escapes of psql, sqlite3, mysql, gdb and lftp; hyperfine,
// watchexec, nodemon, concurrently and pee run their arguments as shell
// code. Shells whose language is not the POSIX
// shell's (nu, pwsh, xonsh, elvish) get Ask for code from a string or from
// standard input. An argument of a program the policy does not know that
// names a denied program followed by arguments ("newtool rm -rf x") gets
// Ask with rule "possible-wrapper"; echo, grep, man and the other known
// programs are exempt.
//
// Code that only exists at run time gets Ask with a reason saying it is
// decided at run time (Deny when only listed commands may run): a shell -c
// string that xargs adds from its input, input that find -exec, xargs -I or
// parallel put into shell code in place of {}, a variable whose computed
// value a program runs later (GIT_SSH_COMMAND=$X, EDITOR="$X", PS4 from a
// variable; $HOME and $PWD are filled in), a computed word where an option
// that runs a command could go (find . $(echo -exec) ..., git $(echo -c)
// ..., tar, git rebase and fetch options), and git configuration given
// through GIT_CONFIG_PARAMETERS or GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n
// whose value is only known then.
//
// An allow list names the program the shell will execute (see
// Rules.AllowedCommands): "./ls" and "/tmp/x/cat" are not "ls" and "cat",
// and variables that change which program runs (PATH, LD_PRELOAD, BASH_ENV,
// ...) are denied with rule "environment". The full default deny list, its
// equivalents (systemctl poweroff, telinit 6, find -delete) and how
// patterns are matched are documented on DefaultDeniedCommands,
// Rules.DenyPatterns and Rules.AllowPatterns. Rules.Environment tells the
// policy the environment commands run in; shellcap's Shell passes its own,
// whose GIT_EDITOR=true makes "git commit --amend" non-interactive.
package policy
