package policy

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash features that turn strings into code. Each is judged like eval of
// the string it will run, or, when that string is only known at run time,
// asked about:
//
//   - subscripts in variable names: printf -v, read, declare, test -v,
//     [[ -v ]], unset, wait -p, getopts, mapfile and namerefs evaluate
//     "a[$(cmd)]" as arithmetic, running cmd; so do values assigned to
//     integer variables and values later read as arithmetic ($((x)));
//   - BASH_ENV and ENV name a file bash runs first; BASH_FUNC_f%%=() {...}
//     in the environment defines a function; BASH_CMDS[name]=path makes
//     name run path; BASH_ALIASES[name]=code defines an alias;
//   - compgen -C and -W, complete -C, mapfile -C, bind -x run strings;
//   - set -k makes assignment words anywhere on a command line environment
//     variables; enable -f loads a builtin from a shared library;
//   - an alias defined in a command that also turns alias expansion on
//     (shopt -s expand_aliases, POSIX mode, sh) rewrites later commands.

// observe is told about every command the walker judges.
func (c *checker) observe(cl *call) {
	c.saw(cl)
	if len(cl.words) == 0 || !cl.words[0].lit {
		return
	}
	args := cl.args()
	switch name := cl.name(); name {
	case "printf":
		// -v NAME is printf's only option.
		if len(args) > 0 && args[0].lit && strings.HasPrefix(args[0].val, "-v") {
			if args[0].val != "-v" {
				c.nameArg(cl, attached(args[0], args[0].val[2:]), true)
			} else if len(args) > 1 {
				c.nameArg(cl, args[1], true)
			}
		}
	case "test", "[":
		for i, a := range args {
			if a.lit && (a.val == "-v" || a.val == "-R") && i+1 < len(args) {
				c.nameArg(cl, args[i+1], false)
			}
		}
	case "read":
		c.namedOperands(cl, args, "dinNptu", "a", true)
	case "mapfile", "readarray":
		for i, a := range args {
			if a.lit && a.val == "-C" && i+1 < len(args) {
				c.code(cl, args[i+1], name+" -C")
			} else if a.lit && strings.HasPrefix(a.val, "-C") && len(a.val) > 2 {
				c.code(cl, attached(a, a.val[2:]), name+" -C")
			}
		}
		c.namedOperands(cl, args, "dnOsucC", "", true)
	case "unset":
		c.namedOperands(cl, args, "", "", false)
	case "wait":
		c.namedOperands(cl, args, "", "p", false)
	case "getopts":
		if len(args) > 1 {
			c.nameArg(cl, args[1], true)
		}
	case "declare", "typeset", "local", "export", "readonly":
		c.declaration(cl, args)
	case "compgen", "complete":
		c.completion(cl, name, args)
	case "set":
		for i, a := range args {
			if a.lit && a.val == "--" {
				break
			}
			if !a.lit {
				continue
			}
			if a.val == "-o" && i+1 < len(args) && args[i+1].lit {
				switch args[i+1].val {
				case "keyword":
					c.keywordMode(a)
				case "posix":
					c.aliasesOn(a)
				}
			}
			if len(a.val) > 1 && a.val[0] == '-' && a.val[1] != '-' && a.val != "-o" && strings.ContainsRune(a.val, 'k') {
				c.keywordMode(a)
			}
		}
	case "shopt":
		set := false
		for _, a := range args {
			switch {
			case a.lit && strings.HasPrefix(a.val, "-") && strings.ContainsRune(a.val, 's'):
				set = true
			case set && (!a.lit || a.val == "expand_aliases"):
				c.aliasesOn(a)
			}
		}
	case "enable":
		for _, a := range args {
			if a.lit && len(a.val) > 1 && a.val[0] == '-' && strings.ContainsRune(a.val, 'f') {
				c.dynamic(fmt.Sprintf("enable %s loads a builtin command from a shared library, code the policy cannot see. Run the program directly instead.", a.val), a.written(), a.off)
				return
			}
		}
	case "alias":
		if len(args) > 0 && c.aliasDef == nil {
			at := args[0]
			c.aliasDef = &at
		}
		if sh, ok := shellWithAliases(c.src.via); ok {
			c.aliasesOn(word{val: sh + ", which expands aliases,", raw: cl.words[0].written(), off: cl.words[0].off})
		}
	case "bind":
		for i, a := range args {
			if a.lit && a.val == "-x" && i+1 < len(args) {
				if _, code, ok := strings.Cut(args[i+1].val, ":"); ok && args[i+1].lit {
					v := attached(args[i+1], strings.Trim(strings.TrimSpace(code), `"'`))
					v.exact = false
					c.deferred(func() { c.nested(v.val, v, append(slices.Clip(cl.wrappers), "bind -x"), "the code bound by bind -x") })
				} else {
					c.deferred(func() { c.code(cl, args[i+1], "bind -x") })
				}
			}
		}
	default:
		if shells[name] {
			c.interactiveStartup(cl, args)
			for i, a := range args {
				if !a.lit {
					continue
				}
				switch {
				case a.val == "--posix", (a.val == "-o" || a.val == "-O") && i+1 < len(args) && (args[i+1].val == "posix" || args[i+1].val == "expand_aliases"):
					c.aliasesOn(a)
				case a.val == "-k", a.val == "-o" && i+1 < len(args) && args[i+1].val == "keyword":
					c.keywordMode(a)
				}
			}
		}
	}
}

// shellWithAliases reports code run by a shell that expands aliases when it
// is not interactive: any but bash outside POSIX mode.
func shellWithAliases(via []string) (string, bool) {
	for _, v := range via {
		name, _, _ := strings.Cut(v, " ")
		if shells[name] && name != "bash" && name != "rbash" && name != "fish" {
			return v, true
		}
	}
	return "", false
}

func (c *checker) aliasesOn(w word) {
	if c.aliasExpand == nil {
		c.aliasExpand = &w
	}
}

func (c *checker) keywordMode(w word) {
	c.dynamic(fmt.Sprintf("%s makes every NAME=value word of a later command an environment variable of it, so the policy cannot tell arguments from settings (a program could be told to run another). Leave the option off.", pyRepr(w.val)), w.written(), w.off)
}

// aliasesExpanded asks about a command that defines an alias and turns
// alias expansion on: bash then rewrites later commands with the alias
// text, splicing it into their syntax, which the policy cannot follow.
func (c *checker) aliasesExpanded() {
	if c.aliasDef == nil || c.aliasExpand == nil {
		return
	}
	c.dynamic(fmt.Sprintf("The command defines an alias (%s) and turns alias expansion on (%s at %s), so bash rewrites later commands with the alias text, which the policy cannot follow. Write the commands out instead of using an alias.", pyRepr(short(c.aliasDef.val)), pyRepr(short(c.aliasExpand.val)), c.pos(c.aliasExpand.off)), c.aliasExpand.written(), c.aliasExpand.off)
}

// namedOperands checks the variable names among args: the operands, and
// the values of the options in named; options in valued take a value.
func (c *checker) namedOperands(cl *call, args []word, valued, named string, assigns bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit || len(a.val) < 2 || a.val[0] != '-' {
			c.nameArg(cl, a, assigns)
			continue
		}
		if a.val == "--" {
			for _, b := range args[i+1:] {
				c.nameArg(cl, b, assigns)
			}
			return
		}
		for j := 1; j < len(a.val); j++ {
			o := a.val[j]
			if !strings.ContainsRune(valued+named, rune(o)) {
				continue
			}
			var v word
			if j+1 < len(a.val) {
				v = attached(a, a.val[j+1:])
			} else if i+1 < len(args) {
				i++
				v = args[i]
			} else {
				break
			}
			if strings.ContainsRune(named, rune(o)) {
				c.nameArg(cl, v, assigns)
			}
			break
		}
	}
}

// specialArrays are the variables whose elements change what runs.
var specialArrays = map[string]string{
	"BASH_CMDS":    "makes a command name run another program",
	"BASH_ALIASES": "defines an alias, code that replaces a command",
}

// nameArg checks a word a builtin uses as a variable name: a subscript in
// it is evaluated as arithmetic, running the substitutions in it; and a
// value stored from input into a variable that changes what runs is only
// known at run time.
func (c *checker) nameArg(cl *call, w word, assigns bool) {
	if !w.lit {
		return // a name only known at run time: see the package doc's Limits
	}
	name := w.val
	base, _, indexed := strings.Cut(name, "[")
	if indexed {
		c.subscriptText(w)
	}
	if !assigns {
		return
	}
	if why, ok := specialArrays[base]; ok || codeVariables[base] || promptVariables[base] || startupVariables[base] {
		if !ok {
			why = "changes what runs"
		}
		c.dynamic(fmt.Sprintf("%s stores a value only known at run time in %s, which %s, so the policy cannot check what runs. Assign a literal value instead.", cl.words[0].val, pyRepr(short(name)), why), w.written(), w.off)
	}
}

// subscriptText checks literal text that bash may evaluate as an
// arithmetic expression: the command substitutions in a subscript run.
func (c *checker) subscriptText(w word) {
	if i := strings.IndexByte(w.val, '['); i >= 0 && strings.ContainsAny(w.val[i:], "$`") {
		c.expandedText(w.val, w, "subscript")
	}
}

// declaration checks declare, typeset, local, export and readonly: names
// with subscripts, values of integer variables (-i) and of namerefs (-n).
func (c *checker) declaration(cl *call, args []word) {
	integer, nameref := false, false
	for _, a := range args {
		if a.lit && len(a.val) > 1 && (a.val[0] == '-' || a.val[0] == '+') && !strings.Contains(a.val, "=") {
			if a.val[0] == '-' {
				integer = integer || strings.ContainsRune(a.val, 'i')
				nameref = nameref || strings.ContainsRune(a.val, 'n')
			}
			continue
		}
		if !a.lit {
			continue
		}
		name, val, hasVal := strings.Cut(a.val, "=")
		n := a
		n.val = name // a prefix of the word: its position is unchanged
		c.nameArg(cl, n, false)
		if hasVal && (integer || nameref) {
			v := attached(a, val)
			if integer {
				c.subscriptText(v)
			}
			if nameref {
				c.nameRef(v)
			}
		}
	}
}

// nameRef checks the target of a nameref: its subscript is evaluated each
// time the nameref is used, and a nameref to a variable that changes what
// runs is a way to set it.
func (c *checker) nameRef(v word) {
	c.subscriptText(v)
	base, _, _ := strings.Cut(v.val, "[")
	if _, ok := specialArrays[base]; ok || codeVariables[base] || promptVariables[base] || startupVariables[base] {
		c.dynamic(fmt.Sprintf("A nameref to %s sets that variable under another name, which the policy cannot follow. Assign %s directly.", pyRepr(base), base), v.written(), v.off)
	}
}

// completion checks compgen and complete: -C runs a command, -W expands a
// word list (command substitutions included), -F calls a function.
func (c *checker) completion(cl *call, name string, args []word) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit || len(a.val) < 2 || a.val[0] != '-' {
			continue
		}
		for j := 1; j < len(a.val); j++ {
			o := a.val[j]
			if !strings.ContainsRune("CWFAGXPSo", rune(o)) {
				continue
			}
			var v word
			if j+1 < len(a.val) {
				v = attached(a, a.val[j+1:])
			} else if i+1 < len(args) {
				i++
				v = args[i]
			} else {
				break
			}
			run := func(f func()) {
				if name == "complete" {
					c.deferred(f)
				} else {
					f()
				}
			}
			switch o {
			case 'C':
				run(func() { c.code(cl, v, name+" -C") })
			case 'W':
				if v.lit {
					run(func() { c.expandedText(v.val, v, name+" -W") })
				}
			case 'F':
				n := *cl
				n.words = []word{v}
				n.wrappers = append(slices.Clip(cl.wrappers), name+" -F")
				run(func() { c.runCall(n) })
			}
			break
		}
	}
}

// startupVariables change what bash runs when it starts: a file it runs
// first (BASH_ENV, and ENV for an interactive shell), or options that turn
// alias expansion on.
var startupVariables = map[string]bool{"BASH_ENV": true, "ENV": true, "BASHOPTS": true, "SHELLOPTS": true, "POSIXLY_CORRECT": true}

// specialAssign checks an assignment to a variable that changes what runs,
// and a value that bash may later read as arithmetic.
func (c *checker) specialAssign(a *syntax.Assign) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	if a.Value != nil {
		v := c.resolve(a.Value)
		if a.Index == nil {
			c.startupVariable(name, v)
		}
		if v.lit {
			c.subscriptText(v)
		}
		if a.Index != nil {
			c.specialElement(name, c.text(a.Index), v)
		}
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Value == nil {
				continue
			}
			v := c.resolve(e.Value)
			if v.lit {
				c.subscriptText(v)
			}
			key := ""
			if e.Index != nil {
				key = c.text(e.Index)
			}
			c.specialElement(name, key, v)
		}
	}
}

// startupVariable checks BASH_ENV, ENV and the option variables.
func (c *checker) startupVariable(name string, v word) {
	switch name {
	case "BASH_ENV":
		if v.lit && strings.TrimSpace(v.val) == "" {
			return
		}
		c.dynamic(fmt.Sprintf("%s names a file that every bash started with it runs before its own commands; the policy cannot see what that file holds. Run the commands of the file directly.", name), v.written(), v.off)
	case "BASHOPTS", "SHELLOPTS":
		if !v.lit || strings.Contains(v.val, "expand_aliases") || strings.Contains(v.val, "posix") {
			c.aliasesOn(v)
		}
		if !v.lit || strings.Contains(v.val, "keyword") {
			c.keywordMode(v)
		}
	case "POSIXLY_CORRECT":
		c.aliasesOn(v)
	}
}

// interactiveStartup asks about ENV given to an interactive shell, which
// runs the file it names first. (ENV is an everyday name for other
// programs, so it is only a concern here.)
func (c *checker) interactiveStartup(cl *call, args []word) {
	interactive := false
	for _, a := range args {
		if a.lit && len(a.val) > 1 && a.val[0] == '-' && a.val[1] != '-' && strings.ContainsRune(a.val, 'i') {
			interactive = true
		}
	}
	if !interactive {
		return
	}
	for _, e := range cl.env {
		if v, ok := strings.CutPrefix(e, "ENV="); ok && strings.Trim(v, `"' `) != "" {
			c.dynamic(fmt.Sprintf("ENV names a file that the interactive shell %s runs before its own commands; the policy cannot see what that file holds. Run the commands of the file directly.", pyRepr(cl.words[0].val)), e, cl.words[0].off)
			return
		}
	}
}

// specialElement checks an element assigned to BASH_CMDS (the program a
// command name runs) or BASH_ALIASES (an alias).
func (c *checker) specialElement(name, key string, v word) {
	switch name {
	case "BASH_CMDS":
		c.deferred(func() {
			c.runCall(call{words: []word{v}, wrappers: append(slices.Clip(c.src.via), "BASH_CMDS["+key+"]")})
		})
	case "BASH_ALIASES":
		if c.aliasDef == nil {
			at := v
			c.aliasDef = &at
		}
		if !v.lit {
			c.dynamic(fmt.Sprintf("BASH_ALIASES[%s] is set to %s, which is only known at run time, so the policy cannot check what the alias runs. Write the alias out literally.", key, short(v.val)), v.written(), v.off)
			return
		}
		c.deferred(func() { c.nested(v.val, v, append(slices.Clip(c.src.via), "alias"), "the alias") })
	}
}

// exportedFunction checks a BASH_FUNC_name%%=() { ...; } word given to env:
// bash defines the function from it.
func (c *checker) exportedFunction(w word) {
	if !w.lit {
		return
	}
	key, val, _ := strings.Cut(w.val, "=")
	name := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(key, "BASH_FUNC_"), "%%"), "()")
	code := name + " " + val
	v := w
	v.val, v.exact = code, false
	c.deferred(func() {
		c.nested(code, v, append(slices.Clip(c.src.via), "exported function"), "the exported function "+name)
	})
}
