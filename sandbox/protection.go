package sandbox

import "strings"

// protectedNames are files and directories that stay read-only wherever
// they appear inside a writable root: what a human, an editor, an agent or
// a hook manager reads or runs later, outside the sandbox.
var protectedNames = []string{
	// shellcap's own state and configuration.
	".shellcap", "shellcap.yaml", "shellcap.yml", "shellcap.json",
	// Agents and editors.
	".mcp.json", ".vscode", ".idea", ".zed", ".claude", ".cursor", ".codex", ".agents",
	".gemini", ".roo", ".kiro", ".amazonq", ".continue", ".windsurf", ".devcontainer",
	"opencode.json", ".aider.conf.yml",
	// Git and hook managers (they install and drive git hooks).
	".gitconfig", ".husky", ".githooks", ".pre-commit-config.yaml",
	"lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml", "lefthook-local.yml",
	// Shells and direnv.
	".envrc", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin",
}

// stateDirName is shellcap's own state directory (job logs and stdin
// FIFOs, kept outputs, the quarantine): inside the sandbox it is an empty
// read-only directory.
const stateDirName = ".shellcap"

func isProtectedName(n string) bool {
	for _, p := range protectedNames {
		if n == p {
			return true
		}
	}
	return false
}

// protection describes, one line each, what the workspace-write profile
// protects in the writable roots and how; the Enforcement of every
// result and `shellcap sandbox doctor` show it.
func protection() []string {
	return []string{
		"git metadata of every repository in the writable roots, found at each command's start by a walk of every directory (nested repositories anywhere, node_modules and vendor included; bare, separate, submodule and worktree git directories): config, config.worktree, commondir, hooks/, info/, .git pointer files, the core.hooksPath directory, files [include] and [includeIf] name, programs command-valued variables name by path: read-only mounts, their parent directories pinned (no rename, removal or symlink swap)",
		"names git would obey that a command creates (a hook, commondir, config.worktree, the config of a repository it makes with git init or clone, a .git pointer, a separate git directory): moved into .shellcap/quarantine when the command, session step or job ends, and named in its result",
		"directories the walk cannot read: read-only as a whole",
		"agent, editor and hook-manager configuration: " + strings.Join(protectedNames[1:], ", ") + ": read-only mounts (quarantined when a command creates them)",
		".shellcap (shellcap's state): hidden behind an empty read-only tmpfs",
	}
}
