package policy

import (
	"fmt"
	"strings"
)

// tarSpec is GNU tar's command line: the options whose value is a command
// and the others, so that abbreviations ("--to-comm=") resolve as tar
// resolves them.
var tarSpec = optSpec{
	short: "bCfFgHIKLNTVX",
	long: []string{"to-command", "use-compress-program", "info-script", "new-volume-script", "checkpoint-action", "rsh-command", "rmt-command",
		"file", "directory", "blocking-factor", "listed-incremental", "format", "starting-file", "tape-length", "newer", "newer-mtime",
		"files-from", "label", "exclude-from", "exclude", "exclude-tag", "exclude-tag-under", "exclude-tag-all", "transform", "xform",
		"owner", "group", "mode", "mtime", "owner-map", "group-map", "sort", "strip-components", "suffix", "backup", "volno-file",
		"record-size", "level", "occurrence", "quoting-style", "quote-chars", "no-quote-chars", "pax-option", "warning", "hole-detection",
		"sparse-version", "add-file", "after-date", "atime-preserve", "clamp-mtime", "anchored", "index-file", "xattrs-include", "xattrs-exclude", "checkpoint"},
	flags: []string{"create", "extract", "get", "list", "append", "update", "diff", "compare", "delete", "concatenate", "catenate", "test-label",
		"gzip", "gunzip", "bzip2", "xz", "lzip", "lzma", "lzop", "zstd", "compress", "uncompress", "auto-compress", "verbose", "verify",
		"to-stdout", "keep-old-files", "keep-newer-files", "overwrite", "overwrite-dir", "unlink-first", "recursive-unlink", "remove-files",
		"preserve-permissions", "same-permissions", "no-same-owner", "same-owner", "numeric-owner", "dereference", "hard-dereference",
		"one-file-system", "absolute-names", "ignore-zeros", "ignore-failed-read", "totals", "show-transformed-names", "wildcards",
		"no-wildcards", "null", "no-null", "recursion", "no-recursion", "sparse", "multi-volume", "incremental", "interactive",
		"confirmation", "help", "usage", "version", "show-defaults", "utc", "xattrs", "no-xattrs", "acls", "no-acls", "selinux",
		"no-selinux", "seek", "no-seek", "skip-old-files", "exclude-vcs", "exclude-vcs-ignores", "exclude-backups", "exclude-caches",
		"exclude-caches-all", "exclude-caches-under", "check-device", "no-check-device", "full-time", "posix", "old-archive", "portability",
		"read-full-records", "restrict", "show-omitted-dirs", "show-stored-names", "block-number", "check-links", "delay-directory-restore",
		"no-delay-directory-restore", "force-local", "ignore-case", "no-ignore-case", "ignore-command-error", "no-ignore-command-error",
		"no-auto-compress", "no-overwrite-dir", "preserve-order", "same-order", "unquote", "no-unquote"},
}

// tarOptions checks the tar options that run a command. GNU tar also takes
// the old form, where the first word is a cluster of letters without a
// dash whose values follow in order ("tar cIf PROG a.tar").
func (c *checker) tarOptions(cl *call, args []word) {
	if len(args) > 0 && args[0].lit && args[0].val != "" && !strings.HasPrefix(args[0].val, "-") && isLetters(args[0].val) {
		next := 1
		for _, ch := range args[0].val {
			if strings.ContainsRune(tarSpec.short, ch) && next < len(args) {
				if ch == 'I' || ch == 'F' {
					c.code(cl, args[next], "tar -"+string(ch))
				}
				next++
			}
		}
		args = args[next:]
	}
	for _, a := range args {
		if c.computedOption(a) {
			c.runtime(fmt.Sprintf("tar has the argument %s, only known at run time, which could be an option that runs a command", pyRepr(short(a.val))), a.written(), a.off)
			return
		}
	}
	opts, _ := permutedOptions(args, tarSpec)
	for _, o := range opts {
		if !o.hasVal {
			continue
		}
		switch {
		case o.is("-I", "--use-compress-program", "-F", "--info-script", "--new-volume-script", "--to-command", "--rsh-command", "--rmt-command"):
			c.code(cl, o.val, "tar "+o.name)
		case o.is("--checkpoint-action"):
			v := o.val
			if !v.lit {
				c.code(cl, v, "tar --checkpoint-action")
				continue
			}
			for _, prefix := range []string{"exec=", "exec"} {
				if strings.HasPrefix(v.val, prefix) {
					c.code(cl, attached(v, v.val[len(prefix):]), "tar --checkpoint-action=exec")
					break
				}
			}
		}
	}
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			return false
		}
	}
	return true
}

// findValued are find's primaries that take one value.
var findValued = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true, "-regex": true,
	"-iregex": true, "-lname": true, "-ilname": true, "-type": true, "-xtype": true, "-user": true, "-group": true, "-uid": true,
	"-gid": true, "-size": true, "-perm": true, "-mtime": true, "-mmin": true, "-atime": true, "-amin": true, "-ctime": true,
	"-cmin": true, "-newer": true, "-anewer": true, "-cnewer": true, "-samefile": true, "-inum": true, "-links": true,
	"-maxdepth": true, "-mindepth": true, "-fstype": true, "-used": true, "-context": true, "-printf": true, "-fprint": true,
	"-fprint0": true, "-fls": true, "-regextype": true, "-files0-from": true, "-D": true, "-O": true,
}

// findComputed asks about a find argument only known at run time that
// could be an action running a command or deleting files: "find .
// $(echo -exec) rm {} \;". Values of primaries such as -name "$PAT" and
// starting points given as variables ("$DIR") are left alone, except a
// command substitution followed by words that end an -exec.
func (c *checker) findComputed(args []word) bool {
	exprStarted := false
	terminator := false
	for _, a := range args {
		if a.lit && (a.val == ";" || a.val == "+") {
			terminator = true
		}
	}
	for i, a := range args {
		if a.lit {
			if strings.HasPrefix(a.val, "-") || a.val == "(" || a.val == "!" || a.val == "," {
				exprStarted = true
			}
			continue
		}
		if i > 0 && args[i-1].lit && findValued[args[i-1].val] {
			continue
		}
		if a.prefix != "" && a.prefix[0] != '-' {
			continue
		}
		if exprStarted && (!hasCmdSubst(a) || c.computedOption(a)) || c.computedOption(a) && (terminator || i == len(args)-1) {
			c.runtime(fmt.Sprintf("find has the argument %s, only known at run time, which could be an action that runs a command or deletes files", pyRepr(short(a.val))), a.written(), a.off)
			return true
		}
	}
	return false
}
