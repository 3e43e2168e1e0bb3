package policy

import "strings"

// git's global options, before the subcommand. git parses them itself
// (not with parse-options), without abbreviations.
var gitGlobalSpec = optSpec{
	short: "Cc",
	long:  []string{"git-dir", "work-tree", "namespace", "super-prefix", "config-env", "list-cmds", "attr-source"},
	flags: []string{"no-pager", "paginate", "bare", "no-replace-objects", "no-lazy-fetch", "no-optional-locks", "no-advice",
		"literal-pathspecs", "glob-pathspecs", "noglob-pathspecs", "icase-pathspecs", "exec-path", "html-path", "man-path",
		"info-path", "version", "help"},
}

// gitSubSpecs are the long options of the git subcommands whose options
// matter to the policy. git's parse-options accepts any unambiguous prefix
// of a long option ("--har" is "--hard"), so the policy resolves them the
// same way.
var gitSubSpecs = map[string]optSpec{
	"push": {short: "o", long: []string{"repo", "receive-pack", "exec", "push-option", "signed", "force-with-lease", "recurse-submodules"},
		flags: []string{"all", "branches", "mirror", "delete", "tags", "dry-run", "porcelain", "force", "force-if-includes", "set-upstream", "thin", "no-thin", "quiet", "verbose", "progress", "prune", "no-verify", "verify", "follow-tags", "no-follow-tags", "atomic", "no-atomic", "ipv4", "ipv6", "no-signed", "no-force-with-lease"}},
	"add": {long: []string{"chmod", "pathspec-from-file"},
		flags: []string{"all", "no-all", "ignore-removal", "no-ignore-removal", "update", "dry-run", "verbose", "force", "interactive", "patch", "edit", "sparse", "intent-to-add", "refresh", "ignore-errors", "ignore-missing", "no-warn-embedded-repo", "renormalize", "pathspec-file-nul"}},
	"commit": {short: "mFCctu", long: []string{"message", "file", "reuse-message", "reedit-message", "fixup", "squash", "author", "date", "template", "cleanup", "trailer", "gpg-sign", "pathspec-from-file", "untracked-files"},
		flags: []string{"all", "patch", "interactive", "amend", "no-edit", "edit", "dry-run", "short", "porcelain", "long", "null", "reset-author", "signoff", "no-signoff", "no-verify", "verify", "allow-empty", "allow-empty-message", "include", "only", "quiet", "verbose", "status", "no-status", "no-gpg-sign", "branch", "ahead-behind", "no-ahead-behind", "pathspec-file-nul"}},
	"tag": {short: "mFu", long: []string{"message", "file", "local-user", "cleanup", "sort", "format", "contains", "no-contains", "merged", "no-merged", "points-at", "column", "color", "trailer"},
		flags: []string{"annotate", "sign", "no-sign", "force", "delete", "list", "verify", "edit", "no-edit", "ignore-case", "omit-empty", "create-reflog"}},
	"merge": {short: "msXS", long: []string{"message", "file", "strategy", "strategy-option", "gpg-sign", "cleanup", "into-name", "log"},
		flags: []string{"edit", "no-edit", "ff", "no-ff", "ff-only", "squash", "no-squash", "commit", "no-commit", "stat", "no-stat", "verify", "no-verify", "abort", "continue", "quit", "autostash", "no-autostash", "signoff", "no-signoff", "allow-unrelated-histories", "rerere-autoupdate", "no-rerere-autoupdate", "quiet", "verbose", "progress", "no-progress", "overwrite-ignore", "verify-signatures", "no-verify-signatures", "summary", "no-summary", "no-log", "no-gpg-sign"}},
	"reset":       {long: []string{"pathspec-from-file"}, flags: []string{"hard", "soft", "mixed", "merge", "keep", "quiet", "no-quiet", "patch", "recurse-submodules", "no-refresh", "refresh", "intent-to-add", "pathspec-file-nul"}},
	"clean":       {short: "e", long: []string{"exclude"}, flags: []string{"force", "dry-run", "quiet", "interactive"}},
	"checkout":    {short: "bB", long: []string{"orphan", "conflict", "pathspec-from-file", "track"}, flags: []string{"force", "ours", "theirs", "merge", "detach", "patch", "quiet", "progress", "no-progress", "guess", "no-guess", "overlay", "no-overlay", "ignore-skip-worktree-bits", "ignore-other-worktrees", "overwrite-ignore", "recurse-submodules", "no-track", "pathspec-file-nul"}},
	"restore":     {short: "s", long: []string{"source", "conflict", "pathspec-from-file"}, flags: []string{"staged", "worktree", "patch", "ours", "theirs", "merge", "quiet", "progress", "no-progress", "ignore-unmerged", "ignore-skip-worktree-bits", "recurse-submodules", "overlay", "no-overlay", "pathspec-file-nul"}},
	"switch":      {short: "cC", long: []string{"create", "force-create", "orphan", "conflict", "track"}, flags: []string{"discard-changes", "force", "detach", "guess", "no-guess", "merge", "quiet", "progress", "no-progress", "recurse-submodules", "ignore-other-worktrees", "no-track"}},
	"rebase":      {short: "xsXS", long: []string{"exec", "onto", "strategy", "strategy-option", "gpg-sign", "whitespace", "empty", "rebase-merges", "update-refs"}, flags: []string{"interactive", "continue", "abort", "skip", "quit", "edit-todo", "show-current-patch", "keep-base", "apply", "merge", "autosquash", "no-autosquash", "autostash", "no-autostash", "root", "fork-point", "no-fork-point", "ignore-date", "committer-date-is-author-date", "reset-author-date", "signoff", "keep-empty", "no-keep-empty", "reapply-cherry-picks", "quiet", "verbose", "stat", "no-stat", "no-verify", "verify", "force-rebase", "no-ff", "reschedule-failed-exec", "no-reschedule-failed-exec", "no-update-refs", "no-gpg-sign", "no-rebase-merges"}},
	"branch":      {short: "u", long: []string{"set-upstream-to", "contains", "no-contains", "merged", "no-merged", "points-at", "sort", "format", "abbrev", "color", "column", "track"}, flags: []string{"delete", "force", "move", "copy", "list", "all", "remotes", "verbose", "quiet", "show-current", "unset-upstream", "edit-description", "create-reflog", "no-track", "ignore-case", "omit-empty", "recurse-submodules", "no-color", "no-column", "no-abbrev"}},
	"stash":       {short: "m", long: []string{"message", "pathspec-from-file"}, flags: []string{"patch", "staged", "keep-index", "no-keep-index", "include-untracked", "all", "quiet", "index", "pathspec-file-nul", "only-untracked"}},
	"log":         {long: logLong, flags: logFlags},
	"show":        {long: logLong, flags: logFlags},
	"diff":        {long: logLong, flags: append(logFlags, "cached", "staged", "no-index", "merge-base")},
	"whatchanged": {long: logLong, flags: logFlags},
	"clone":       {short: "obujc", long: []string{"origin", "branch", "upload-pack", "template", "reference", "reference-if-able", "config", "depth", "shallow-since", "shallow-exclude", "jobs", "separate-git-dir", "server-option", "filter", "bundle-uri", "revision", "ref-format"}, flags: []string{"local", "no-local", "no-hardlinks", "shared", "dissociate", "quiet", "verbose", "progress", "no-checkout", "bare", "sparse", "mirror", "single-branch", "no-single-branch", "no-tags", "tags", "recurse-submodules", "shallow-submodules", "no-shallow-submodules", "remote-submodules", "no-remote-submodules", "reject-shallow", "also-filter-submodules", "ipv4", "ipv6"}},
	"fetch":       {short: "oj", long: []string{"upload-pack", "depth", "deepen", "shallow-since", "shallow-exclude", "jobs", "server-option", "filter", "negotiation-tip", "recurse-submodules", "recurse-submodules-default", "submodule-prefix", "refmap", "porcelain"}, flags: []string{"all", "append", "atomic", "dry-run", "force", "keep", "multiple", "prune", "prune-tags", "no-tags", "tags", "unshallow", "update-shallow", "update-head-ok", "quiet", "verbose", "progress", "write-fetch-head", "no-write-fetch-head", "set-upstream", "ipv4", "ipv6", "negotiate-only", "auto-maintenance", "auto-gc", "write-commit-graph", "show-forced-updates", "stdin"}},
	"pull":        {short: "o", long: []string{"upload-pack", "depth", "deepen", "shallow-since", "shallow-exclude", "jobs", "server-option", "strategy", "strategy-option", "gpg-sign", "rebase", "recurse-submodules", "negotiation-tip", "cleanup"}, flags: []string{"all", "append", "atomic", "dry-run", "force", "keep", "prune", "no-tags", "tags", "unshallow", "update-shallow", "quiet", "verbose", "progress", "commit", "no-commit", "edit", "no-edit", "ff", "no-ff", "ff-only", "squash", "no-squash", "verify", "no-verify", "autostash", "no-autostash", "stat", "no-stat", "signoff", "no-rebase", "ipv4", "ipv6", "allow-unrelated-histories", "set-upstream"}},
	"ls-remote":   {long: []string{"upload-pack", "sort", "server-option"}, flags: []string{"heads", "tags", "branches", "refs", "quiet", "exit-code", "get-url", "symref"}},
	"archive":     {short: "o", long: []string{"format", "prefix", "output", "add-file", "add-virtual-file", "remote", "exec", "mtime"}, flags: []string{"list", "verbose", "worktree-attributes"}},
	"init":        {long: []string{"template", "separate-git-dir", "object-format", "ref-format", "initial-branch", "shared"}, flags: []string{"quiet", "bare"}},
	"send-email":  {long: []string{"to-cmd", "cc-cmd", "header-cmd", "sendmail-cmd", "smtp-server", "to", "cc", "bcc", "from", "subject", "in-reply-to", "smtp-server-port", "smtp-user", "smtp-pass", "smtp-encryption", "smtp-domain", "smtp-auth", "identity", "confirm", "transfer-encoding", "suppress-cc", "8bit-encoding", "compose-encoding", "reply-to", "envelope-sender", "batch-size", "relogin-delay", "smtp-server-option", "smtp-ssl-cert-path", "thread", "chain-reply-to", "validate", "annotate", "compose", "format-patch", "dump-aliases"}, flags: []string{"dry-run", "quiet", "no-to", "no-cc", "no-bcc", "no-identity", "no-smtp-auth", "no-thread", "no-chain-reply-to", "no-validate", "no-annotate", "no-format-patch", "signed-off-by-cc", "no-signed-off-by-cc", "cc-cover", "to-cover", "xmailer", "no-xmailer", "force", "no-header-cmd", "no-to-cmd", "no-cc-cmd"}},
	"difftool":    {short: "xt", long: []string{"extcmd", "tool", "gui"}, flags: []string{"no-prompt", "prompt", "dir-diff", "symlinks", "no-symlinks", "tool-help", "trust-exit-code", "no-trust-exit-code"}},
	"mergetool":   {short: "t", long: []string{"tool", "gui"}, flags: []string{"no-prompt", "prompt", "tool-help", "no-gui"}},
	"grep":        {short: "efABCm", long: []string{"open-files-in-pager", "threads", "after-context", "before-context", "context", "max-count", "max-depth", "color"}, flags: []string{"cached", "untracked", "no-index", "recurse-submodules", "ignore-case", "word-regexp", "invert-match", "line-number", "column", "name-only", "files-with-matches", "count", "full-name", "extended-regexp", "basic-regexp", "perl-regexp", "fixed-strings", "all-match", "quiet", "null", "break", "heading", "show-function", "function-context", "text", "textconv", "no-textconv", "only-matching", "exclude-standard", "no-exclude-standard"}},
}

var (
	logLong  = []string{"output", "open-files-in-pager", "format", "pretty", "author", "committer", "grep", "since", "until", "after", "before", "max-count", "skip", "date", "decorate", "color", "stat", "dirstat", "diff-filter", "relative", "src-prefix", "dst-prefix", "line-prefix", "word-diff", "word-diff-regex", "color-words", "abbrev", "anchored", "diff-algorithm", "inter-hunk-context", "unified", "output-indicator-new", "output-indicator-old", "output-indicator-context", "submodule", "ignore-submodules", "encoding", "notes", "expand-tabs", "find-renames", "find-copies", "find-object", "pickaxe-regex", "orderfile", "rotate-to", "skip-to", "ws-error-highlight", "color-moved", "color-moved-ws"}
	logFlags = []string{"ext-diff", "no-ext-diff", "textconv", "no-textconv", "oneline", "graph", "all", "patch", "no-patch", "name-only", "name-status", "numstat", "shortstat", "summary", "follow", "reverse", "first-parent", "merges", "no-merges", "raw", "binary", "full-index", "no-color", "no-prefix", "quiet", "exit-code", "check", "cc", "combined-all-paths", "full-diff", "log-size", "show-signature", "source", "use-mailmap", "no-decorate", "walk-reflogs", "children", "parents", "left-right", "cherry-pick", "cherry-mark", "boundary", "topo-order", "date-order", "author-date-order", "no-walk", "do-walk", "ignore-space-change", "ignore-all-space", "ignore-blank-lines", "minimal", "patience", "histogram", "histogram", "no-renames", "irreversible-delete", "text", "function-context", "stdin", "branches", "tags", "remotes", "regexp-ignore-case", "basic-regexp", "extended-regexp", "fixed-strings", "perl-regexp", "invert-grep", "all-match", "no-abbrev-commit", "abbrev-commit", "no-notes", "pickaxe-all", "compact-summary", "patch-with-stat", "patch-with-raw", "stat-count", "stat-width", "stat-name-width", "stat-graph-width"}
)

// gitNormalized returns a git command line with the global options out of
// the way and the subcommand's abbreviated long options written out:
// "git -C . push --forc" is "git push --force". A global option only known
// at run time keeps everything as written.
func gitNormalized(head string, args []word) []string {
	globals, i := parseOpts(args, gitGlobalSpec)
	_ = globals
	out := []string{head}
	if i > 0 && !args[i-1].lit {
		i = 0
	}
	if i >= len(args) {
		for _, a := range args {
			out = append(out, a.val)
		}
		return out
	}
	sub := args[i]
	out = append(out, sub.val)
	spec, ok := gitSubSpecs[sub.val]
	for _, a := range args[i+1:] {
		if ok && a.lit && strings.HasPrefix(a.val, "--") && len(a.val) > 2 {
			name, val, eq := strings.Cut(a.val[2:], "=")
			full, cands, _ := spec.resolveLong(name)
			if cands == nil && full != name {
				cands = []string{full}
			}
			if len(cands) > 0 {
				// An ambiguous abbreviation is written out as every option
				// it could be, so that a pattern for any of them matches.
				for _, c := range cands {
					s := "--" + c
					if eq {
						s += "=" + val
					}
					out = append(out, s)
				}
				continue
			}
		}
		out = append(out, a.val)
	}
	return out
}

// gitSubOpts parses a git subcommand's options, anywhere before "--", as
// git's parse-options does.
func gitSubOpts(sub string, args []word) ([]opt, []word) {
	return permutedOptions(args, gitSubSpecs[sub])
}
