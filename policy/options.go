package policy

import (
	"slices"
	"strings"
)

// Programs parse their command lines with getopt_long or something like
// it, and the policy parses them the same way, so that what it finds in an
// option is what the program finds:
//
//   - a long option may be abbreviated to any prefix that is unique among
//     the program's long options ("--to-comm=" is "--to-command=");
//   - a long option's value follows "=" or is the next word;
//   - short options cluster ("-cI prog" is "-c -I prog"), and a short
//     option's value may be attached ("-Iprog") or be the next word;
//   - "--" ends the options;
//   - with a permuting spec (GNU getopt's default), options may follow
//     operands: "runuser USER -c CMD".
//
// A word only known at run time ends the options: it might be anything.

// opt is one parsed command-line option.
type opt struct {
	name   string   // "-u", or the long option's full name ("--user") when the abbreviation is unique
	cands  []string // for an ambiguous abbreviation, every long option it could stand for
	val    word     // its value, when it takes one
	hasVal bool
}

// optSpec says which options take a value. Long option lists hold names
// without the leading "--".
type optSpec struct {
	short string         // short option letters that take a value (-u root, -uroot)
	long  []string       // long options that take a value (--user root, --user=root)
	flags []string       // long options without a value; listed so that abbreviations resolve
	arity map[string]int // long options that take more than one word (bwrap --bind SRC DEST)
}

// resolveLong finds the long option a name (without "--") stands for: the
// exact name, else every known option it is a prefix of.
func (s optSpec) resolveLong(name string) (full string, cands []string, takes bool) {
	if slices.Contains(s.long, name) {
		return name, nil, true
	}
	if slices.Contains(s.flags, name) {
		return name, nil, false
	}
	if name == "" {
		return name, nil, false
	}
	valued := 0
	for _, l := range s.long {
		if strings.HasPrefix(l, name) {
			cands = append(cands, l)
			valued++
		}
	}
	for _, l := range s.flags {
		if strings.HasPrefix(l, name) {
			cands = append(cands, l)
		}
	}
	switch {
	case len(cands) == 1:
		return cands[0], nil, valued == 1
	case len(cands) > 1:
		// getopt_long rejects an ambiguous abbreviation; the policy keeps
		// every candidate, so a check for any of them finds it.
		return name, cands, valued == len(cands)
	}
	return name, nil, false
}

// parseOpts reads options from the start of args, and returns them with the
// index of the first operand. "--" ends the options and is skipped. A word
// that is not literal is taken as the first operand: it might be anything.
func parseOpts(args []word, spec optSpec) ([]opt, int) {
	var opts []opt
	i := 0
	for i < len(args) {
		a := args[i]
		if !a.lit || len(a.val) < 2 || a.val[0] != '-' {
			return opts, i
		}
		if a.val == "--" {
			return opts, i + 1
		}
		var n int
		opts, n = parseOne(opts, args[i:], spec)
		i += n
	}
	return opts, i
}

// parseOne parses the option word args[0] (and the values it takes), and
// reports how many words it used.
func parseOne(opts []opt, args []word, spec optSpec) ([]opt, int) {
	a := args[0]
	used := 1
	if strings.HasPrefix(a.val, "--") {
		name, val, eq := strings.Cut(a.val[2:], "=")
		full, cands, takes := spec.resolveLong(name)
		o := opt{name: "--" + full, cands: cands}
		switch {
		case eq:
			o.val, o.hasVal = attached(a, val), true
		case takes && len(args) > 1:
			o.val, o.hasVal = args[1], true
			used++
		}
		if n := spec.arity[full]; n > 1 {
			used += n - 1 // the option word, then n values (the first attached after "=", or not)
		}
		return append(opts, o), min(used, len(args))
	}
	cluster := a.val[1:]
	for j := 0; j < len(cluster); j++ {
		o := opt{name: "-" + cluster[j:j+1]}
		if strings.IndexByte(spec.short, cluster[j]) >= 0 {
			if j+1 < len(cluster) {
				o.val, o.hasVal = attached(a, cluster[j+1:]), true
			} else if len(args) > 1 {
				o.val, o.hasVal = args[1], true
				used++
			}
			return append(opts, o), used
		}
		opts = append(opts, o)
	}
	return opts, used
}

// permutedOptions parses the whole of args as GNU getopt does by default:
// options may come before, between and after operands, up to "--". It
// returns the options and the operands in order.
func permutedOptions(args []word, spec optSpec) ([]opt, []word) {
	var opts []opt
	var operands []word
	for i := 0; i < len(args); {
		a := args[i]
		switch {
		case a.lit && a.val == "--":
			return opts, append(operands, args[i+1:]...)
		case a.lit && len(a.val) > 1 && a.val[0] == '-':
			var n int
			opts, n = parseOne(opts, args[i:], spec)
			i += n
		default:
			operands = append(operands, a)
			i++
		}
	}
	return opts, operands
}

// attached makes a word for the value part of an option word.
func attached(w word, val string) word {
	v := word{val: val, prefix: val, lit: true, off: w.off}
	if w.exact {
		v.exact, v.valOff = true, w.valOff+len(w.val)-len(val)
	}
	return v
}

// is reports whether the option is one of names (long names with "--"),
// counting every candidate of an ambiguous abbreviation.
func (o opt) is(names ...string) bool {
	if slices.Contains(names, o.name) {
		return true
	}
	for _, c := range o.cands {
		if slices.Contains(names, "--"+c) {
			return true
		}
	}
	return false
}

func hasOpt(opts []opt, names ...string) bool {
	for _, o := range opts {
		if o.is(names...) {
			return true
		}
	}
	return false
}

func optVal(opts []opt, names ...string) (word, bool) {
	for _, o := range opts {
		if o.hasVal && o.is(names...) {
			return o.val, true
		}
	}
	return word{}, false
}

// optVals returns the values of every occurrence of the options.
func optVals(opts []opt, names ...string) []word {
	var out []word
	for _, o := range opts {
		if o.hasVal && o.is(names...) {
			out = append(out, o.val)
		}
	}
	return out
}

// longMatch reports whether an argument word is the long option full
// ("--exec"), possibly abbreviated to a prefix of at least min characters
// after the dashes, with its value attached after "=" or not.
func longMatch(arg, full string, min int) (val string, hasVal, ok bool) {
	name, v, eq := strings.Cut(arg, "=")
	if !strings.HasPrefix(name, "--") || len(name) < 2+min || !strings.HasPrefix(full, name) {
		return "", false, false
	}
	return v, eq, true
}
