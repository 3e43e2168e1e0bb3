package session

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
)

// The protocol between a Session and its bash.
//
// bash runs interactive (-i, without line editing, history or prompts) so
// that SIGINT aborts whatever it is running, builtin loops included, and
// returns it to reading its next line, with its variables intact. Its
// standard input is a pipe that carries only the step lines written by
// stepLine, setupLine and syncLine. A short command travels in its step
// line as one ANSI-C quoted word with every byte that could end it
// escaped, so it is never read as anything but the argument of eval; a
// long one (and a new shell's setup script) is written to the command file
// that the step reads with the read builtin. The step evals the text with
// stdin from /dev/null (so commands see end of file) and without the
// status and command-file descriptors. After the command, bash writes
// a status record on its own pipe (fd 3), which the command cannot write
// to: nothing the command prints can end it early or fake its exit code.
//
// A status record is five NUL-terminated fields:
//
//	id, kind ("run", "anchor" or "sync"), exit status, $PWD,
//	"S" + `export -p` or nothing
//
// The id ties the record to the step that wrote it, so a record from an
// interrupted or repeated step is recognised and skipped. Ids carry 32
// random bits (see Session.isIssued): bash keeps the status descriptor
// open on a spare descriptor while a command runs, and a record the
// command forges there names no step the Session waits for. Because bash
// writes the record only after the command's own output has reached the
// output pipes, everything available on them when the record arrives
// belongs to the command; the next call starts clean.

// Record kinds.
const (
	kindRun    = "run"    // the command ran; rc is its status
	kindAnchor = "anchor" // StartInRoot: the workspace root could not be entered
	kindSync   = "sync"   // a synchronisation step after an interrupt
)

// record is one parsed status record.
type record struct {
	id       uint64
	kind     string
	rc       int
	pwd      string
	exports  string // `export -p`, when snapshot
	snapshot bool

	removed  []string // functions doneFunc removed (a check step)
	disabled []string // builtins doneFunc enabled again (a check step)
}

// shellQuote quotes s for bash as one word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// doneFunc is the name of the function that ends every step. It is
// defined once per shell, read-only, so that the per-call line stays short
// and the command cannot replace it; a function call cannot be reached by
// an alias when its name is quoted, nor by another function.
const doneFunc = "__shellcap_done"

// protocolBuiltins are the builtins the protocol calls; doneFunc enables
// them again at every step (a command's `enable -n printf` lasts for that
// command).
const protocolBuiltins = "builtin printf eval read cd set export unset trap exec exit declare alias"

// doneDef defines doneFunc. Called as `doneFunc ID KIND STATUS [SNAP
// [CHECK]]` right after the command, with the shell's own stdout and stderr
// on /dev/null (see setupLine), it first takes back what the protocol needs
// from anything the command did to its shell:
//
//   - functions named builtin or enable are removed: they would shadow the
//     builtins every other step goes through;
//   - the builtins the protocol calls are enabled again (enable -n);
//   - errexit, xtrace, verbose and functrace do not outlive a call (an
//     interactive shell would end at the next failing command, and each of
//     the others would run or print with every protocol step); the DEBUG
//     trap neither (clearDebug);
//   - PROMPT_COMMAND is cleared (prompts themselves go to /dev/null).
//
// The common step (status 0, no snapshot, none of those options, no
// PROMPT_COMMAND) takes one test, removes the two functions and writes the
// record; the rest is in doneFunc_slow (no return builtin, which a function
// could shadow, ends the common path).
// when that write fails (builtin or printf disabled: `\builtin printf`
// then fails, where a function would not) it calls itself with CHECK.
// With CHECK (a command whose text may shadow or disable builtins, see
// mayRepair; the setup and synchronisation steps) unset, enable and set are
// reached as POSIX special builtins, which no function shadows: posix mode
// is turned on for the repair by assigning POSIXLY_CORRECT (an assignment
// is syntax, not a command) and off again when the command had it off; and
// what was repaired goes into the record: the removed function names after
// the kind, the disabled builtins (`enable -n` lines) before the id. The
// common step skips the posix round trip and the enable, which cost bash
// microseconds on every step: only a function named unset, defined by a
// command whose text does not show it, could reach its unset -f.
//
// Then it resets the parser after a failure (after an unterminated quote
// an interactive bash otherwise prints stray quotes at its next line) and
// writes the status record on descriptor 3, with the `export -p` snapshot
// when SNAP is set. It works under set -u. A builtin that cannot be enabled
// again (enable itself disabled) ends the shell with exitBroken, which the
// Session reports.
const doneDef = doneFunc + `() {
	if [[ -z ${4-} && $3 == 0 && $- != *[exvT]* && -z ${PROMPT_COMMAND+x} ]]; then
		\unset -f builtin enable
		\builtin printf '%s\0%s\0%s\0%s\0\0' "$1" "$2" "$3" "${PWD-}" >&3 || \` + doneFunc + ` "$1" "$2" "$3" S C
	else
		\` + doneFunc + `_slow "$@"
	fi
}
` + doneFunc + `_slow() {
	__shellcap_fx=
	if [[ -n ${5-} ]]; then
		if [[ :${SHELLOPTS-}: == *:posix:* ]]; then __shellcap_p=; else __shellcap_p=1; POSIXLY_CORRECT=y; fi
		export -f builtin && __shellcap_fx+=" builtin"
		export -f enable && __shellcap_fx+=" enable"
		unset -f builtin enable
		enable -n >&3
		enable ` + protocolBuiltins + ` || exit ` + exitBrokenText + `
		[[ $- != *[exvT]* ]] || set +exvT
		[[ -z $__shellcap_p ]] || unset POSIXLY_CORRECT
	else
		\unset -f builtin enable
		[[ $- != *[exvT]* ]] || \builtin set +exvT
	fi
	[[ $3 == 0 ]] || \builtin eval ''
	if [[ -n ${4-} ]]; then
		\builtin printf '%s\0%s\0%s\0%s\0S' "$1" "$2$__shellcap_fx" "$3" "${PWD-}" >&3
		\builtin export -p >&3
		\builtin printf '\0' >&3
	elif ! \builtin printf '%s\0%s\0%s\0%s\0\0' "$1" "$2" "$3" "${PWD-}" >&3; then
		# builtin or printf was disabled: repair, reporting it, and retry.
		\` + doneFunc + ` "$1" "$2" "$3" S C
	fi
	[[ -z ${PROMPT_COMMAND+x} ]] || \builtin unset PROMPT_COMMAND
}
\builtin readonly -f ` + doneFunc + ` ` + doneFunc + "_slow\n"

// exitBroken is the exit status of a shell whose protocol builtins could
// not be enabled again.
const (
	exitBroken     = 197
	exitBrokenText = "197"
)

// done calls doneFunc; check asks it to report what it repaired.
func done(id uint64, kind string, snapshot, check bool) string {
	call := ` \` + doneFunc + ` ` + strconv.FormatUint(id, 10) + ` ` + kind + ` $?`
	switch {
	case check:
		call += ` S C`
	case snapshot:
		call += ` S`
	}
	return call
}

// cutTrace removes from stderr what set -x, left on by a command, made
// bash print for calls of doneFunc with an id of at least minID: from the
// start of the line that names the call to the end.
func cutTrace(stderr string, minID uint64) string {
	for {
		i := strings.LastIndex(stderr, doneFunc+" ")
		if i < 0 {
			return stderr
		}
		rest := stderr[i+len(doneFunc)+1:]
		end := strings.IndexByte(rest, ' ')
		if end < 0 {
			return stderr
		}
		id, err := strconv.ParseUint(rest[:end], 10, 64)
		if err != nil || id < minID {
			return stderr
		}
		stderr = stderr[:strings.LastIndexByte(stderr[:i], '\n')+1]
	}
}

// readCommand reads the text in the command file, up to its NUL, into
// __shellcap_cmd from descriptor 4: the command file, sharing its file
// offset with the Session's own descriptor, which rewinds it before each
// step that uses it.
const readCommand = `IFS= \builtin read -r -d '' -u 4 __shellcap_cmd;`

// evalFile runs the text in __shellcap_cmd at the top level (not in a
// function, so declare makes globals) with the descriptors of evalRedirs.
func evalFile(check bool) string {
	return ` \builtin eval -- "$__shellcap_cmd"` + evalRedirs(check)
}

// evalRedirs are the command's descriptors: stdin from /dev/null, stdout
// and stderr on the output pipes (the shell keeps them on descriptors 5
// and 6; its own stdout and stderr, where prompts and the protocol's
// errors go, are /dev/null), without the status and command file
// descriptors. bash undoes these redirections after the command, so a
// command's own exec >/dev/null, exec 1>&- or exec 3>file lasts for that
// command only. With check (a command that may use exec, see mayRepair),
// the saved output descriptors 5 and 6 are closed for the command too, so
// that its exec cannot move them; each redirection costs bash a few
// system calls on every step, so the common step leaves them open.
func evalRedirs(check bool) string {
	if check {
		return ` </dev/null >&5 2>&6 3>&- 4<&- 5>&- 6>&-;`
	}
	return ` </dev/null >&5 2>&6 3>&- 4<&-;`
}

// maxInline is the longest command sent in the step line itself; longer
// ones go through the command file. Both are measured: an interactive bash
// reads its input line a byte at a time, so past a few KiB the file,
// which costs a fixed ~14 µs more per step, is the cheaper way.
const maxInline = 4 << 10

// inline reports whether command travels in the step line.
func inline(command string) bool { return len(command) <= maxInline }

// evalInline runs command like evalFile, but the text travels in the step
// line, inert: as one ANSI-C quoted word in which every byte that could
// end the word or the line is escaped, so neither its syntax nor anything
// else can make bash read it as more than the argument of eval.
func evalInline(command string, check bool) string {
	return ` \builtin eval -- ` + ansiQuote(command) + evalRedirs(check)
}

// ansiQuote quotes s as a bash $'...' word: printable ASCII but the quote
// and the backslash as itself, every other byte as \xHH.
func ansiQuote(s string) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+len(s)/4+3)
	b = append(b, '$', '\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '\'' && c != '\\' {
			b = append(b, c)
			continue
		}
		b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
	}
	return string(append(b, '\''))
}

// stepLine is the line that runs command: inline when it is short, else
// from the command file, which the caller has written. With root set
// (StartInRoot, or after the shell's directory vanished), the shell first
// enters root and reports kindAnchor without running the command when it
// cannot. With snapshot, the record carries the exported variables; with
// check, what doneFunc repaired.
func stepLine(id uint64, root, command string, snapshot, check bool) string {
	run := readCommand + evalFile(check)
	if inline(command) {
		run = evalInline(command, check)
	}
	if root == "" {
		return run + done(id, kindRun, snapshot, check) + clearDebug + "\n"
	}
	return `if \builtin cd -- ` + shellQuote(root) + ` 2>/dev/null; then ` + run + done(id, kindRun, snapshot, check) +
		`; else` + done(id, kindAnchor, false, false) + `; fi` + clearDebug + "\n"
}

// clearDebug ends every step: a DEBUG trap lasts for one call (it would
// otherwise run before every protocol step). It is at the top level because
// bash restores the DEBUG trap when a function returns (without set -T);
// doneFunc has made builtin and trap callable again.
const clearDebug = `; \builtin trap - DEBUG`

// setupLine is the step that runs the setup script of a new shell, read
// from the command file. It first keeps the output pipes on descriptors 5
// and 6 and points the shell's own stdout and stderr at /dev/null, so that
// prompts, job notices and errors of the protocol's own steps never reach
// a result.
func setupLine(id uint64) string {
	return `exec 5>&1 6>&2 >/dev/null 2>&1; ` + readCommand + evalFile(true) + done(id, kindRun, true, true) + "\n"
}

// syncLine is a step that only reports, to find the shell's prompt again
// after an interrupt.
func syncLine(id uint64) string {
	return done(id, kindSync, true, true) + clearDebug + "\n"
}

// exitFunc is the EXIT trap's function: when the shell exits (exit, exec,
// a failure under set -e) it leaves the shell's state in the session's
// directory, for the next shell (see exitFiles).
const exitFunc = "__shellcap_exit"

// exitDef defines exitFunc, called as `exitFunc STATUS`. Like doneFunc it
// first takes back the builtins it calls.
func exitDef(f exitFiles) string {
	return exitFunc + `() {
	POSIXLY_CORRECT=y
	unset -f builtin enable
	enable builtin printf export declare alias
	unset POSIXLY_CORRECT
	\builtin printf '%s %s' "$1" "$-" >` + shellQuote(f.how) + `
	\builtin export -p >` + shellQuote(f.exports) + `
	\builtin printf %s "$PWD" >` + shellQuote(f.cwd) + `
	\builtin declare -p >` + shellQuote(f.vars) + `
	\builtin declare -f >` + shellQuote(f.funcs) + `
	\builtin alias -p >` + shellQuote(f.aliases) + `
} 2>/dev/null
\builtin readonly -f ` + exitFunc + "\n"
}

// exitFiles are where exitFunc leaves a shell's state.
type exitFiles struct {
	how     string // "STATUS FLAGS": the exit status and $-
	exports string // export -p
	cwd     string // $PWD
	vars    string // declare -p
	funcs   string // declare -f
	aliases string // alias -p
}

// setupScript prepares a fresh shell: no prompts, history or job control
// messages; the step function; an EXIT trap that leaves the shell's state
// in exit's files when the shell exits (exit, exec, a failure under set
// -e); then the state to restore: exports, the directory, and state (from
// restorableState), last.
func setupScript(exports, cwd, root string, exit exitFiles, state string) string {
	var b strings.Builder
	b.WriteString("PS1= PS2= PS0= PS4='+ '\n")
	b.WriteString("\\builtin unset PROMPT_COMMAND HISTFILE MAILCHECK MAIL MAILPATH\n")
	b.WriteString("\\builtin set +H +m +o history\n")
	b.WriteString(doneDef)
	b.WriteString(exitDef(exit))
	b.WriteString("\\builtin trap -- '\\" + exitFunc + " $?' EXIT\n")
	if exports != "" {
		b.WriteString("{\n" + exports + "\n} 2>/dev/null\n")
	}
	dir := root
	if cwd != "" {
		dir = cwd
	}
	b.WriteString("\\builtin cd -- " + shellQuote(dir) + " 2>/dev/null || \\builtin cd -- " + shellQuote(root) + "\n")
	if state != "" {
		b.WriteString("{\n" + state + "\n} 2>/dev/null\n")
	}
	return b.String()
}

// shellVars are variables bash sets for itself (or the session does), which
// a restored state leaves alone; names starting with BASH or __shellcap_
// too.
var shellVars = map[string]bool{
	"SHELLOPTS": true, "EUID": true, "UID": true, "PPID": true, "GROUPS": true, "FUNCNAME": true,
	"LINENO": true, "RANDOM": true, "SRANDOM": true, "SECONDS": true, "HISTCMD": true, "EPOCHREALTIME": true,
	"EPOCHSECONDS": true, "PIPESTATUS": true, "DIRSTACK": true, "PWD": true, "OLDPWD": true, "SHLVL": true,
	"_": true, "COMP_WORDBREAKS": true, "POSIXLY_CORRECT": true, "PS1": true, "PS2": true, "PS0": true,
	"PROMPT_COMMAND": true, "HISTFILE": true,
}

// restorableState turns what exitFunc left (declare -p, declare -f, alias
// -p) into a script that restores the variables, functions and aliases of
// the shell that exited, without bash's own variables and the protocol's
// functions.
func restorableState(vars, funcs, aliases string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(vars, "\n") {
		rest, ok := strings.CutPrefix(line, "declare -")
		if !ok {
			continue
		}
		_, decl, ok := strings.Cut(rest, " ")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(decl, "=")
		if shellVars[name] || strings.HasPrefix(name, "BASH") || strings.HasPrefix(name, "__shellcap_") {
			continue
		}
		b.WriteString(line + "\n")
	}
	skip := false
	for line := range strings.SplitSeq(strings.TrimSuffix(funcs, "\n"), "\n") {
		if name, ok := strings.CutSuffix(line, " () "); ok && !strings.ContainsAny(name, " \t") {
			skip = strings.HasPrefix(name, "__shellcap_")
		}
		if !skip {
			b.WriteString(line + "\n")
		}
		if line == "}" {
			skip = false
		}
	}
	b.WriteString(aliases)
	return strings.TrimRight(b.String(), "\n")
}

var errBadRecord = errors.New("session: malformed status record")

// parseRecords takes the complete records off the front of buf and
// returns them with what remains.
func parseRecords(buf []byte) ([]record, []byte, error) {
	var recs []record
	for {
		var fields [5][]byte
		rest := buf
		complete := true
		for i := range fields {
			j := bytes.IndexByte(rest, 0)
			if j < 0 {
				complete = false
				break
			}
			fields[i], rest = rest[:j], rest[j+1:]
		}
		if !complete {
			return recs, buf, nil
		}
		var disabled []string
		if i := bytes.LastIndexByte(fields[0], '\n'); i >= 0 {
			// `enable -n` lines of a check step come before the id.
			for line := range strings.SplitSeq(string(fields[0][:i]), "\n") {
				name, ok := strings.CutPrefix(line, "enable -n ")
				if !ok {
					return recs, nil, errBadRecord
				}
				disabled = append(disabled, name)
			}
			fields[0] = fields[0][i+1:]
		}
		id, err1 := strconv.ParseUint(string(fields[0]), 10, 64)
		rc, err2 := strconv.Atoi(string(fields[2]))
		if err1 != nil || err2 != nil {
			return recs, nil, errBadRecord
		}
		kind, removed, _ := strings.Cut(string(fields[1]), " ")
		rec := record{id: id, kind: kind, rc: rc, pwd: string(fields[3]), removed: strings.Fields(removed), disabled: disabled}
		if snap, ok := bytes.CutPrefix(fields[4], []byte("S")); ok {
			rec.exports, rec.snapshot = string(snap), true
		}
		recs = append(recs, rec)
		buf = rest
	}
}

// restorableExports drops from an `export -p` snapshot the variables a
// new shell sets for itself.
func restorableExports(snapshot string) string {
	var keep []string
	for line := range strings.SplitSeq(snapshot, "\n") {
		switch {
		case strings.HasPrefix(line, "declare -x PWD="), strings.HasPrefix(line, "declare -x OLDPWD"),
			strings.HasPrefix(line, "declare -x SHLVL="):
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}

// exportWords are the words that suggest a command may change exported
// variables; only such commands send a snapshot back (it costs as much as
// the rest of a round trip).
var exportWords = []string{"export", "declare", "typeset", "readonly", "local", "source", "eval", "unset", "set -", "set +", "allexport"}

// mayChangeExports reports whether command may change the exported
// variables, as far as its text shows: one of exportWords, or the dot
// builtin (". file"). Exports made inside functions defined earlier are
// not seen; the EXIT trap still catches them when the shell exits.
func mayChangeExports(command string) bool {
	for _, w := range exportWords {
		if strings.Contains(command, w) {
			return true
		}
	}
	for i := 0; i+1 < len(command); i++ {
		if command[i] == '.' && (command[i+1] == ' ' || command[i+1] == '\t') && atCommandStart(command[:i]) {
			return true
		}
	}
	return false
}

// atCommandStart reports whether a word following before would be in
// command position: at the start, after an operator, or after then, do or
// else.
func atCommandStart(before string) bool {
	before = strings.TrimRight(before, " \t")
	if before == "" || strings.ContainsRune(";&|({\n", rune(before[len(before)-1])) {
		return true
	}
	for _, kw := range []string{"then", "do", "else"} {
		if rest, ok := strings.CutSuffix(before, kw); ok && (rest == "" || strings.ContainsRune(" \t;\n", rune(rest[len(rest)-1]))) {
			return true
		}
	}
	return false
}
