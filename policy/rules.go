package policy

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Rules configures a Policy. The zero value is the safe default: the
// DefaultDeniedCommands deny list, no operator denied, interactive commands
// denied, no patterns, no approval tiers.
type Rules struct {
	// AllowedCommands, when non-empty, is the list of the only programs that
	// may run. Every command the shell could run must be on it, wrappers
	// included: "timeout 5 make" needs both timeout and make. It replaces
	// the default deny list.
	//
	// An entry names the program the shell will execute, not a base name.
	// A bare name ("git") allows the command word git, found through PATH,
	// and the same name in the system directories /bin, /sbin, /usr/bin,
	// /usr/sbin, /usr/local/bin and /usr/local/sbin ("/usr/bin/git"). It does
	// not allow a program of that name anywhere else: "./git", "bin/git",
	// "/tmp/x/git" and "~/bin/git" are other programs. An entry with a slash
	// ("./scripts/build.sh", "/opt/tool/bin/tool") allows exactly that path,
	// after "." and ".." are resolved as text. Names compare
	// case-insensitively, paths exactly.
	//
	// Under an allow list, commands that change which program a name runs
	// or what it loads are denied (rule "environment"): assignments to PATH,
	// LD_PRELOAD, LD_LIBRARY_PATH and the other LD_ and DYLD_ variables,
	// BASH_ENV, ENV, BASH_FUNC_*, BASH_CMDS, SHELLOPTS, BASHOPTS,
	// PYTHONPATH, PYTHONSTARTUP, PYTHONHOME, NODE_OPTIONS, NODE_PATH,
	// PERL5OPT, PERL5LIB, RUBYOPT, RUBYLIB and GIT_EXEC_PATH, whether as a
	// prefix ("PATH=/tmp ls"), through env or export, or on their own.
	AllowedCommands []string
	// DeniedCommands lists programs that must never run, by base name. A name
	// also matches its dotted variants ("mkfs" denies "mkfs.ext4"), except
	// script file names ("init" does not deny "init.sh"). nil means
	// DefaultDeniedCommands; a non-nil empty slice means no deny list. It is
	// an error to set both AllowedCommands and DeniedCommands.
	DeniedCommands []string
	// DeniedOperators lists shell operators that must not appear as syntax
	// (a quoted ">" is text, not an operator). The accepted operators and
	// what each one covers are listed in the package documentation; an
	// unknown operator is an error.
	DeniedOperators []string
	// AllowInteractive lets commands that wait for a terminal (editors,
	// pagers, REPLs, password prompts) through. By default they are denied.
	AllowInteractive bool
	// DenyPatterns are RE2 regular expressions matched against the
	// normalised command line of each command the shell could run
	// (Command.Text), wherever it appears: behind wrappers, in shell code in
	// strings, in substitutions. A command that matches one is denied. Deny
	// patterns win over allow patterns.
	//
	// The normalised line is the program's base name as written ("git" for
	// "/usr/bin/git"), then its arguments with quotes and escapes removed,
	// joined by single spaces; assignments, redirections and the wrappers
	// around it are not part of it (each wrapper is matched as a command of
	// its own: "sudo -n git push --force" is matched as "sudo -n git push
	// --force" and as "git push --force"). The program's global options are
	// taken out of the way, for git (-C DIR, -c KEY=VALUE, --no-pager,
	// --git-dir, --work-tree, -p, --bare, ...), docker, podman, kubectl,
	// helm, npm, cargo, systemctl and terraform: "git -C . --no-pager push
	// --force" is matched as "git push --force". git's abbreviated long
	// options are written out, and an ambiguous abbreviation as every
	// option it could be ("git push --mirr" is "git push --mirror"). An
	// argument only known at run time keeps its text as written ("git push
	// origin $F"); if one of the pattern's literal strings put in its place
	// would make the line match ("--force" for $F), the command is asked
	// about ("decided at run time"), or denied when only listed commands may
	// run. Matching is case-sensitive; write (?i) for the other way.
	DenyPatterns []string
	// AllowPatterns, when non-nil, is exclusive: every command must match at
	// least one of these RE2 regular expressions, or it is denied. They are
	// matched against the same normalised command line as DenyPatterns
	// (Command.Text), and every command is matched, wrappers included. A
	// non-nil empty slice denies every command. "find ... -delete" must
	// also match as "rm ARGS..." (it counts as rm), and code only known at
	// run time is denied.
	AllowPatterns []string
	// Custom, if set, is consulted last for each command that no other rule
	// denied. When it returns ok, its decision replaces the built-in one for
	// that command (it can turn an ask into an allow, or deny). It cannot
	// overrule a denial. Empty Rule defaults to "custom" and a zero Pos to
	// the command's position. It must be safe for concurrent use.
	Custom func(Command) (Decision, bool)
	// Approval enables the ready approval tiers: read-only commands with
	// only harmless flags are allowed, known destructive commands (bulk
	// git add, git reset --hard, forced push, rm -rf /, chmod 777, pkill,
	// piping into an interpreter, ...) are denied with a safer alternative,
	// and everything else gets Ask.
	Approval bool
	// Environment is the environment commands will run in, when the caller
	// knows it; shellcap's Shell passes its own. nil means unknown. The
	// policy reads only the editor variables: when GIT_EDITOR (or else
	// VISUAL, or else EDITOR) names a program that exits at once (true, :,
	// cat, false), commands that would only open an editor (git commit
	// without -m, git commit --amend, git tag -a, git rebase -i, crontab
	// -e) are not interactive.
	Environment map[string]string
}

// DefaultDeniedCommands returns, as a fresh slice the caller may change,
// the deny list used when Rules.DeniedCommands is nil and no allow list is
// set:
//
//	rm rmdir unlink shred         delete files
//	mkfs dd format                erase disks and file systems (mkfs.ext4 and the other dotted variants too)
//	shutdown reboot halt poweroff init    stop or restart the machine
//
// Every deny list, this one or DeniedCommands, is applied to the program
// the shell will run, by base name and case-insensitively, wherever it
// appears: behind wrappers (sudo, env, xargs, nice, timeout, ...), in
// shell code in strings, as the name of a function, and under the g-prefix
// that macOS gives GNU tools ("grm" is rm). It also covers the commands
// that do what a denied program does:
//
//	find ... -delete                                 counts as rm
//	systemctl poweroff, halt, reboot, kexec, soft-reboot, and
//	systemctl isolate/start of poweroff.target, halt.target, reboot.target, kexec.target
//	                                                 count as poweroff, halt or reboot
//	loginctl poweroff, halt, reboot                  likewise
//	telinit 0, telinit 6 (and init 0, init 6)        count as init
//	kexec -e                                         counts as reboot
//	echo b > /proc/sysrq-trigger (any write to it)   counts as reboot, poweroff or halt
//	a write to a disk device: > /dev/sda, tee, cp, install or
//	truncate onto one, blkdiscard, sgdisk, wipefs     counts as dd (or mkfs)
//
// (each counts only when the program it stands for is on the list).
func DefaultDeniedCommands() []string {
	return []string{"rm", "rmdir", "unlink", "shred", "mkfs", "dd", "format", "shutdown", "reboot", "halt", "poweroff", "init"}
}

// ErrInvalidRules is wrapped by every error New and ParseRules return for a
// bad configuration.
var ErrInvalidRules = errors.New("policy: invalid rules")

// A Policy checks command strings. It is immutable and safe for concurrent
// use. Create one with New.
type Policy struct {
	allowed     map[string]bool // lower-case base names; nil: no allow list
	allowedPath map[string]bool // cleaned paths of allow-list entries with a slash
	denied      map[string]bool // lower-case base names; nil: no deny list
	ops         opSet
	interactive bool // AllowInteractive
	denyRE      []*regexp.Regexp
	allowRE     []*regexp.Regexp
	allowREOn   bool // AllowPatterns was non-nil
	custom      func(Command) (Decision, bool)
	approval    bool
	denyLits    [][]string // literal strings of each deny pattern, to probe words only known at run time
	editorSet   bool       // Environment sets a non-interactive editor
}

// defaultPolicy is what a nil *Policy checks with.
var defaultPolicy = mustNew(Rules{})

func mustNew(r Rules) *Policy {
	p, err := New(r)
	if err != nil {
		panic(err)
	}
	return p
}

// New validates r, compiles its patterns and returns a Policy. The slices in
// r are copied, so r may be changed afterwards.
func New(r Rules) (*Policy, error) {
	if len(r.AllowedCommands) > 0 && len(r.DeniedCommands) > 0 {
		return nil, invalid("specify AllowedCommands or DeniedCommands, not both")
	}
	p := &Policy{interactive: r.AllowInteractive, custom: r.Custom, approval: r.Approval, editorSet: quietEditor(r.Environment)}
	var err error
	if len(r.AllowedCommands) > 0 {
		if p.allowed, err = nameSet("AllowedCommands", r.AllowedCommands); err != nil {
			return nil, err
		}
		p.allowed, p.allowedPath = splitPaths(r.AllowedCommands)
	} else {
		denied := r.DeniedCommands
		if denied == nil {
			denied = DefaultDeniedCommands()
		}
		if len(denied) > 0 {
			if p.denied, err = nameSet("DeniedCommands", denied); err != nil {
				return nil, err
			}
		}
	}
	for _, op := range r.DeniedOperators {
		set, ok := operatorKeys[op]
		if !ok {
			return nil, invalid("unknown operator %q in DeniedOperators (known: %s)", op, strings.Join(operatorList(), " "))
		}
		p.ops |= set
	}
	if p.denyRE, err = compile("DenyPatterns", r.DenyPatterns); err != nil {
		return nil, err
	}
	p.denyLits = patternLiterals(p.denyRE)
	if p.allowRE, err = compile("AllowPatterns", r.AllowPatterns); err != nil {
		return nil, err
	}
	p.allowREOn = r.AllowPatterns != nil
	return p, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidRules}, args...)...)
}

func nameSet(field string, names []string) (map[string]bool, error) {
	set := make(map[string]bool, len(names))
	for i, n := range names {
		if strings.TrimSpace(n) == "" || strings.ContainsAny(n, " \t\n\x00") {
			return nil, invalid("%s[%d] = %q is not a command name", field, i, n)
		}
		set[strings.ToLower(path.Base(n))] = true
	}
	return set, nil
}

func compile(field string, patterns []string) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for i, s := range patterns {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, invalid("%s[%d]: %v", field, i, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// exclusive reports whether only listed commands may run, so that a command
// the policy cannot name must be denied rather than asked about.
func (p *Policy) exclusive() bool { return p.allowed != nil || p.allowREOn }

// isDenied reports whether the lower-case base name is on the deny list,
// directly or as a dotted variant such as mkfs.ext4.
func (p *Policy) isDenied(name string) bool {
	if p.denied == nil {
		return false
	}
	if p.denied[name] {
		return true
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '.' && p.denied[name[:i]] {
			return !scriptExtensions[name[i+1:]]
		}
	}
	return false
}

// scriptExtensions are suffixes that make a name a script file, not a
// variant of a system program: "init.sh" is not "init".
var scriptExtensions = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "py": true, "pl": true, "rb": true, "js": true,
	"mjs": true, "cjs": true, "ts": true, "php": true, "lua": true, "tcl": true, "go": true,
}

// opSet is a set of operator kinds found in the syntax tree.
type opSet uint32

const (
	opOut        opSet = 1 << iota // >
	opAppend                       // >>
	opClobber                      // >|
	opAll                          // &>
	opAppendAll                    // &>>
	opReadWrite                    // <>
	opDupOutFile                   // >&file (not >&2)
	opDupOut                       // >&N
	opDupIn                        // <&N
	opIn                           // <
	opHeredoc                      // <<
	opHeredocTab                   // <<-
	opHerestring                   // <<<
	opPipe                         // |
	opPipeAll                      // |&
	opAnd                          // &&
	opOr                           // ||
	opSemi                         // ; or a newline between commands
	opBackground                   // &
	opCmdSubst                     // $(...)
	opBacktick                     // `...`
	opProcIn                       // <(...)
	opProcOut                      // >(...)
)

// operatorKeys maps each DeniedOperators entry to the operator kinds it
// denies. A key names a family where one operator is a variant of another:
// ">" covers every redirection that writes a file.
var operatorKeys = map[string]opSet{
	">":      opOut | opAppend | opClobber | opAll | opAppendAll | opReadWrite | opDupOutFile,
	">>":     opAppend | opAppendAll,
	">|":     opClobber,
	"&>":     opAll | opAppendAll,
	"&>>":    opAppendAll,
	"<>":     opReadWrite,
	">&":     opDupOut | opDupOutFile,
	"<&":     opDupIn,
	"<":      opIn | opReadWrite,
	"<<":     opHeredoc | opHeredocTab,
	"<<-":    opHeredocTab,
	"<<<":    opHerestring,
	"|":      opPipe | opPipeAll,
	"|&":     opPipeAll,
	"&&":     opAnd,
	"||":     opOr,
	";":      opSemi,
	"&":      opBackground,
	"$(...)": opCmdSubst | opBacktick,
	"$()":    opCmdSubst | opBacktick,
	"`":      opBacktick,
	"``":     opBacktick,
	"<(...)": opProcIn,
	"<()":    opProcIn,
	">(...)": opProcOut,
	">()":    opProcOut,
}

func operatorList() []string {
	var keys []string
	for k := range operatorKeys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
